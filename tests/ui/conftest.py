"""Fixtures of the page's tests: settings on the built-in sandbox of a temporary
folder, the app's state (uploads and runs), an in-process client of the app."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from ui_support import make_state, page_client

from linksync.config import Settings, resolve
from linksync.ui import UiState


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return resolve(cwd=tmp_path, env={})


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
