"""The sandbox as a real HTTP server (uvicorn), in the foreground (``linksync sandbox serve``).

The socket is bound before uvicorn starts, so port 0 picks a free port and the real
URL is known at once. It listens with the settings' ``backlog``: the connections the
kernel queues before the server accepts them (5 acts like Python's ``http.server``: a
burst of new connections then has SYNs dropped, resent by TCP after 1, 3, 7 s). The
HTTP protocol is uvicorn's httptools one (a C parser: about a third of a millisecond
less CPU a request than its pure-Python h11 one, still used where httptools is not
installed), extended so the ``drop`` fault can abort a connection without any response
(``gate.DROP_EXTENSION``).
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from typing import Any

import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from linksync.sandbox.app import create_app
from linksync.sandbox.gate import DROP_EXTENSION
from linksync.sandbox.settings import DEFAULT_BACKLOG, SandboxSettings


def _offer_drop(protocol: Any) -> None:
    """Wrap a uvicorn protocol's app so every request's scope offers ``protocol.drop``."""
    inner: ASGIApp = protocol.app

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        extensions = dict(scope.get("extensions") or {})
        extensions[DROP_EXTENSION] = protocol.drop
        scope["extensions"] = extensions
        await inner(scope, receive, send)

    protocol.app = app


def _abort(protocol: Any) -> None:
    """Abort the connection at once, the request's response never sent."""
    if protocol.cycle is not None:
        protocol.cycle.disconnected = True
    protocol.transport.abort()


class DroppingH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, offering the app a way to abort the connection."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _offer_drop(self)

    def drop(self) -> None:
        _abort(self)


PROTOCOL: type[asyncio.Protocol] = DroppingH11Protocol
try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # pragma: no cover - httptools is a dependency; h11 is the fallback
    pass
else:

    class DroppingHttpToolsProtocol(HttpToolsProtocol):
        """uvicorn's httptools protocol, offering the app a way to abort the connection."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            _offer_drop(self)

        def drop(self) -> None:
            _abort(self)

    PROTOCOL = DroppingHttpToolsProtocol


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
        http=PROTOCOL,
        lifespan="off",
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
