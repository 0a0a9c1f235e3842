"""The sandbox as the tests drive it: a clock you move, and a real server in a thread.

- ``ManualClock``: Unix seconds as a float that only move when told, for expiry and
  rate windows without sleeping (``create_app(..., clock=ManualClock())``).
- ``serve_in_thread``: the sandbox on a real 127.0.0.1 socket in a daemon thread, as
  ``linksync sandbox serve`` runs it (same bind, same uvicorn protocol); a
  ``ServerHandle`` with ``base_url`` and ``stop()``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import uvicorn
from starlette.types import ASGIApp

from linksync.sandbox import SandboxSettings, create_app
from linksync.sandbox.backend import Clock
from linksync.sandbox.server import base_url_of, bind, make_server


class ManualClock:
    """A clock that only moves when told. Call it to read the time."""

    def __init__(self, start: float = 1_767_225_600.0) -> None:  # 2026-01-01T00:00:00Z
        self._now = start
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> float:
        with self._lock:
            self._now += seconds
            return self._now

    def set(self, now: float) -> None:
        with self._lock:
            self._now = now


@dataclass
class ServerHandle:
    """A running sandbox server: ``base_url`` and ``stop()``."""

    base_url: str
    server: uvicorn.Server
    thread: threading.Thread
    app: ASGIApp = field(repr=False)

    def stop(self, timeout: float = 10.0) -> None:
        self.server.should_exit = True
        self.thread.join(timeout)

    def __enter__(self) -> ServerHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve_in_thread(
    settings: SandboxSettings | None = None,
    db_path: str = ":memory:",
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    clock: Clock | None = None,
    startup_timeout: float = 10.0,
    wrap: Callable[[ASGIApp], ASGIApp] | None = None,
) -> ServerHandle:
    """Start the sandbox on a real socket in a daemon thread; returns once it listens.
    ``wrap`` puts an ASGI middleware of the caller's in front of it (tests use one to
    change what the service answers mid-run)."""
    settings = settings or SandboxSettings()
    app: ASGIApp = create_app(settings, db_path, clock=clock)
    if wrap is not None:
        app = wrap(app)
    sock = bind(host, port, settings.backlog)
    server = make_server(app, sock, backlog=settings.backlog)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="linksync-sandbox", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + startup_timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            sock.close()
            raise RuntimeError("the sandbox server did not start")
        time.sleep(0.005)
    return ServerHandle(base_url_of(sock), server, thread, app)
