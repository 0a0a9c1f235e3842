"""Fixtures of the page's tests: settings on the built-in sandbox of a temporary
folder, the app's state (uploads and runs), an in-process client of the app, and the
browser of a module's browser tests.

``browser_context``: headless Chromium (the OS package) driven by Playwright for
Python, one per module. Skipped, saying what to install, where Playwright or Chromium
is missing; with ``LINKSYNC_BROWSER_TESTS=required`` (set by ``.ci/run`` once it
installed them) a missing browser fails instead."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from ui_support import make_state, page_client

from linksync.config import Settings, resolve
from linksync.ui import UiState


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return resolve(cwd=tmp_path, env={}, sandbox=True)


@pytest.fixture
def state(settings: Settings, tmp_path: Path) -> Iterator[UiState]:
    ui = make_state(settings, tmp_path)
    yield ui
    ui.runs.close(timeout=5)
    ui.uploads.close()


@pytest.fixture
async def client(state: UiState) -> AsyncIterator[httpx.AsyncClient]:
    async with page_client(state) as http:
        yield http


CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 10_000


def _missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed: pip install -e '.[test]' (or pip install playwright)"
    if not os.access(CHROMIUM, os.X_OK):
        return "no Chromium: install the OS package (Debian/Ubuntu: apt-get install chromium)"
    return None


@pytest.fixture(scope="module")
def browser_context(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    why = _missing()
    if why is not None:
        if os.environ.get("LINKSYNC_BROWSER_TESTS") == "required":
            pytest.fail(f"browser tests required but cannot run: {why}")
        pytest.skip(f"browser tests skipped: {why}")
    from playwright.sync_api import expect, sync_playwright

    # What the page is waited for: as long for an ``expect`` as for an action (its own
    # default is 5 s, which a loaded CI machine can pass while a workbook's password
    # is tried).
    expect.set_options(timeout=TIMEOUT_MS)
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),  # a fresh user-data-dir
            executable_path=CHROMIUM,
            headless=True,
            args=FLAGS,
            accept_downloads=True,
            viewport={"width": 1280, "height": 800},
        )
        context.set_default_timeout(TIMEOUT_MS)
        try:
            yield context
        finally:
            context.close()
