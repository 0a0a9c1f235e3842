"""Shared fixtures: the sandbox, in-process and on a real 127.0.0.1 socket.

- ``sandbox_settings``: fast settings (no latency, no faults, a rate limit too high to
  reach). Override this fixture in a test module to tailor the sandbox.
- ``sandbox_app``: ``create_app(sandbox_settings, ":memory:")`` (real clock; for a
  clock you move, build one with ``support.sandbox_helpers.ManualClock``).
- ``sandbox_http``: ``httpx.AsyncClient`` on the app (ASGI transport, base URL
  ``http://sandbox.local``), authorised with the full-access key.
- ``live_sandbox``: the sandbox served by uvicorn in a thread on 127.0.0.1 (free port);
  yields the base URL. Real time, real sockets.
- every test runs with ``LINKSYNC_STATE_DIR`` in a temporary folder of its own, so the
  default run locks never touch the user's real state folder (nor one another), and
  without the proxy variables of the machine (``HTTPS_PROXY`` & co.: httpx would send
  requests to 127.0.0.1 through them); a test that wants one sets it.
- ``workdir``: a temporary working directory (the current one) for the CLI on its
  built-in sandbox, with no target in the environment (``LINKSYNC_BASE_URL``,
  ``LINKSYNC_API_KEY``, ``LINKSYNC_PROFILE`` removed) and the sandbox asked for:
  ``LINKSYNC_SANDBOX=1``. CliRunner is no terminal, and without one linksync uses the
  built-in sandbox only when asked (else exit 2, "no target configured"); the variable
  is a permission only, so a test that names a base URL (flag, variable, profile) still
  talks to it. A test of the refusal deletes the variable. A module that needs more in
  it (a source file, a key) defines its own ``workdir`` on top of this one.
- ``source``: ``links.csv`` written in ``workdir`` (a slug, a row without one, an
  accent), recorded as a ``support.cli_runs.Source`` to prove a run left it alone.
- ``_umask``: the umask 022 the output tests expect of the files they create (a module
  asks for it with ``pytestmark = pytest.mark.usefixtures("_umask")``).
- ``config``: the config file of two workspaces (``support.two_workspaces.make_two``)
  in ``workdir``, ``brand-b``'s key in ``$BRAND_B_KEY``.
- ``fake_time``: a ``support.reliability.FakeTime`` shared by an in-process sandbox and
  its client, so rate windows and backoff cost no real time.

Helpers shared by test folders are modules of the ``support`` package (this folder is
on ``sys.path``: ``from support.two_workspaces import make_two``); a helper used by one
folder lives in that folder.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette

from linksync.sandbox import DEFAULT_FULL_KEY, SandboxSettings, create_app
from support.cli_runs import Source
from support.reliability import FakeTime
from support.sandbox_helpers import serve_in_thread
from support.two_workspaces import make_two

SANDBOX_BASE_URL = "http://sandbox.local"

CSV = (
    "slug,Destination URL,description\n"
    "alpha,https://example.com/alpha,café crème\n"
    ",https://example.com/no-slug,service picks the slug\n"
    "bravo,https://example.com/bravo,\n"
)


@pytest.fixture(autouse=True)
def _private_state_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LINKSYNC_STATE_DIR", str(tmp_path_factory.mktemp("state")))
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


@pytest.fixture
def sandbox_settings() -> SandboxSettings:
    return SandboxSettings(rate_limit=1_000_000)


@pytest.fixture
def sandbox_app(sandbox_settings: SandboxSettings) -> Starlette:
    return create_app(sandbox_settings, ":memory:")


@pytest.fixture
async def sandbox_http(
    sandbox_app: Starlette, sandbox_settings: SandboxSettings
) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=sandbox_app),
        base_url=SANDBOX_BASE_URL,
        headers={"Authorization": f"Bearer {sandbox_settings.full_key}"},
    ) as client:
        yield client


@pytest.fixture
def live_sandbox(sandbox_settings: SandboxSettings) -> Iterator[str]:
    handle = serve_in_thread(sandbox_settings, ":memory:")
    try:
        yield handle.base_url
    finally:
        handle.stop()


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("LINKSYNC_BASE_URL", "LINKSYNC_API_KEY", "LINKSYNC_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LINKSYNC_SANDBOX", "1")  # asked for: CliRunner is no terminal
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def source(workdir: Path) -> Source:
    path = workdir / "links.csv"
    path.write_text(CSV, encoding="utf-8")
    return Source.of(path)


@pytest.fixture
def config(workdir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("BRAND_B_KEY", DEFAULT_FULL_KEY)
    return make_two(workdir)


@pytest.fixture
def _umask() -> None:
    os.umask(0o022)


@pytest.fixture
def fake_time() -> FakeTime:
    return FakeTime()
