"""Fixtures of the tests against real components: nginx and tinyproxy from the OS
packages, started on 127.0.0.1 in temporary folders in front of the sandbox served on
a real socket.

- ``stack``: a ``Stack`` that starts the sandbox (``stack.sandbox()``), nginx in front
  of it (``stack.nginx(Site(...))``) and tinyproxy (``stack.tinyproxy(...)``); every
  process it started is stopped at teardown, by pid, and waited for.
- ``pki``: a CA and a server certificate for 127.0.0.1/localhost made for the test.
- every test runs in its own temporary folder (the working directory) with the host's
  proxy and trust variables removed (``workload.NETWORK_VARIABLES``).

Skipped, saying what to install, where nginx or tinyproxy is missing; with
``LINKSYNC_NETWORK_TESTS=required`` (for CI once it installed them) they fail instead.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from linksync.sandbox import SandboxSettings
from support.sandbox_helpers import serve_in_thread

from .pki import Pki, make_pki
from .servers import NGINX, TINYPROXY, Nginx, Site, Tinyproxy, start_nginx, start_tinyproxy
from .workload import NETWORK_VARIABLES, seed

REQUIRED_VARIABLE = "LINKSYNC_NETWORK_TESTS"


def _missing(*programs: str) -> str | None:
    absent = [p for p in programs if not os.access(p, os.X_OK)]
    if absent:
        return (
            f"{', '.join(absent)} not found: install the OS packages "
            "(Debian/Ubuntu: apt-get install nginx tinyproxy)"
        )
    return None


def require(*programs: str) -> None:
    why = _missing(*programs)
    if why is not None:
        if os.environ.get(REQUIRED_VARIABLE) == "required":
            pytest.fail(f"network tests required ({REQUIRED_VARIABLE}=required) but {why}")
        pytest.skip(f"network tests skipped: {why}")


def chunked(app: ASGIApp) -> ASGIApp:
    """The sandbox answering without Content-Length: uvicorn sends every body chunked."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        async def send_chunked(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message["headers"] if k.lower() != b"content-length"]
                message = {**message, "headers": headers}
            await send(message)

        await app(scope, receive, send_chunked)

    return wrapped


class Stack:
    """The servers of one test, each in a folder of ``root``; ``close()`` stops them."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._exit = ExitStack()
        self.sandbox_url = ""

    def sandbox(self, *, wrap: Callable[[ASGIApp], ASGIApp] | None = None) -> str:
        """The sandbox on a real socket, seeded with the workload's first links."""
        handle = serve_in_thread(SandboxSettings(rate_limit=1_000_000), wrap=wrap)
        self._exit.callback(handle.stop)
        self.sandbox_url = handle.base_url
        seed(self.sandbox_url)
        return self.sandbox_url

    def nginx(self, site: Site, name: str = "nginx") -> Nginx:
        require(NGINX)
        if not self.sandbox_url:
            self.sandbox()
        server = start_nginx(self.root / name, self.sandbox_url, site)
        self._exit.callback(server.stop)
        return server

    def tinyproxy(self, *, bind: str, connect_port: int) -> Tinyproxy:
        require(TINYPROXY)
        proxy = start_tinyproxy(self.root / "tinyproxy", bind=bind, connect_port=connect_port)
        self._exit.callback(proxy.stop)
        return proxy

    def close(self) -> None:
        self._exit.close()


@pytest.fixture(autouse=True)
def _own_network_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in NETWORK_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    # CliRunner is no terminal: the built-in sandbox (where no URL is set) is asked for.
    monkeypatch.setenv("LINKSYNC_SANDBOX", "1")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    servers = Stack(tmp_path / "servers")
    try:
        yield servers
    finally:
        servers.close()


@pytest.fixture
def pki(tmp_path: Path) -> Pki:
    return make_pki(tmp_path / "pki")
