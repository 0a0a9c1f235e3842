"""Shared fixtures: the sandbox, in-process and on a real 127.0.0.1 socket.

- ``sandbox_settings``: fast settings (no latency, no faults, a rate limit too high to
  reach). Override this fixture in a test module to tailor the sandbox.
- ``sandbox_app``: ``create_app(sandbox_settings, ":memory:")`` (real clock; for a
  clock you move, build one with ``linksync.sandbox.clock.ManualClock``).
- ``sandbox_http``: ``httpx.AsyncClient`` on the app (ASGI transport, base URL
  ``http://sandbox.local``), authorised with the full-access key.
- ``live_sandbox``: the sandbox served by uvicorn in a thread on 127.0.0.1 (free port);
  yields the base URL. Real time, real sockets.
- every test runs with ``LINKSYNC_STATE_DIR`` in a temporary folder of its own, so the
  default run locks never touch the user's real state folder (nor one another), and
  without the proxy variables of the machine (``HTTPS_PROXY`` & co.: httpx would send
  requests to 127.0.0.1 through them); a test that wants one sets it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from starlette.applications import Starlette

from linksync.sandbox import SandboxSettings, create_app
from linksync.sandbox.server import serve_in_thread

SANDBOX_BASE_URL = "http://sandbox.local"


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
