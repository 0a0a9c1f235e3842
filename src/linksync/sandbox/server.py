"""The sandbox as a real HTTP server (uvicorn), in the foreground (``linksync sandbox serve``).

The socket is bound before uvicorn starts, so port 0 picks a free port and the real
URL is known at once. It listens with the settings' ``backlog``: the connections the
kernel queues before the server accepts them (5 acts like Python's ``http.server``: a
burst of new connections then has SYNs dropped, resent by TCP after 1, 3, 7 s). The
HTTP protocol is uvicorn's httptools one (a C parser: about a third of a millisecond
less CPU a request than its pure-Python h11 one), extended so the ``drop`` fault can
abort a connection without any response (``gate.DROP_EXTENSION``).
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from linksync.sandbox.app import create_app
from linksync.sandbox.gate import DROP_EXTENSION
from linksync.sandbox.settings import DEFAULT_BACKLOG, SandboxSettings


class DroppingProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, offering the app a way to abort the connection:
    every request's scope holds ``drop`` under ``DROP_EXTENSION``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        inner: ASGIApp = self.app

        async def app(scope: Scope, receive: Receive, send: Send) -> None:
            scope["extensions"] = {**(scope.get("extensions") or {}), DROP_EXTENSION: self.drop}
            await inner(scope, receive, send)

        self.app = app

    def drop(self) -> None:
        """Abort the connection at once, the request's response never sent."""
        if self.cycle is not None:
            self.cycle.disconnected = True
        self.transport.abort()


def bind(host: str, port: int, backlog: int = DEFAULT_BACKLOG) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto must be IPPROTO_TCP: asyncio only sets TCP_NODELAY on accepted sockets whose
    # proto says TCP, and without it Nagle + delayed ACK add ~40 ms to every response
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(backlog)
    except OSError:
        sock.close()  # a port in use: no socket left open behind the error
        raise
    sock.set_inheritable(True)
    return sock


def base_url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def make_server(
    app: ASGIApp,
    sock: socket.socket,
    log_level: str = "warning",
    backlog: int = DEFAULT_BACKLOG,
) -> uvicorn.Server:
    host, port = sock.getsockname()[:2]
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        backlog=backlog,  # the socket is bound by ``bind`` with it; kept here in step
        http=DroppingProtocol,
        lifespan="off",
        proxy_headers=False,  # no proxy in front: no X-Forwarded-* to read on each request
        log_level=log_level,
        access_log=False,
    )
    return uvicorn.Server(config)


def serve_forever(
    settings: SandboxSettings,
    db_path: str,
    host: str,
    port: int,
    *,
    on_ready: Callable[[str], None],
    log_level: str = "warning",
) -> None:
    """Serve in the foreground until interrupted; ``on_ready(base_url)`` is called once
    the socket is bound (the real port when ``port`` is 0)."""
    app = create_app(settings, db_path)
    sock = bind(host, port, settings.backlog)
    on_ready(base_url_of(sock))
    make_server(app, sock, log_level, settings.backlog).run(sockets=[sock])
