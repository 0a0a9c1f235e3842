"""Who may talk to the page's server: the page itself, nobody else.

The server listens on 127.0.0.1 only, but any web page the user opens can still send
requests to 127.0.0.1. So every request passes ``PageGuard``, an ASGI middleware:

- ``Host`` must be the server's own (``127.0.0.1:PORT`` or ``localhost:PORT``): a
  foreign name that a DNS-rebinding attack points at 127.0.0.1 is refused;
- ``Origin``, when the browser sends one, must be the page's own origin, and a
  browser's ``Sec-Fetch-Site`` must not say ``cross-site`` or ``same-site``: another
  site can neither read from nor write to the server (CSRF), nor link into it;
- a request that changes something (any method but GET and HEAD) must carry the
  server's session token in the ``X-Linksync-Token`` header. The token is made when
  the server starts and is written into the page it serves; a page of another origin
  cannot read it, and a plain HTML form cannot send a header.

Refusals are 403 with a one-line reason. Every answer also carries headers that keep
the page from being framed or from loading anything that is not its own
(Content-Security-Policy ``default-src 'self'``), and no answer is cached.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable

from starlette.datastructures import Headers
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from linksync.sandbox.gate import with_headers

TOKEN_HEADER = "x-linksync-token"
_SAFE_METHODS = frozenset({"GET", "HEAD"})
_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; "
    "object-src 'none'"
)
SECURITY_HEADERS: dict[str, str] = {
    "content-security-policy": _CSP,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
    "cache-control": "no-store",
}


def page_hosts(port: int) -> frozenset[str]:
    """The Host values of a page served on 127.0.0.1:``port``."""
    return frozenset({f"127.0.0.1:{port}", f"localhost:{port}"})


def error_answer(status: int, message: str) -> JSONResponse:
    """A refusal the page shows: ``{"error": message}`` with its status."""
    return JSONResponse({"error": message}, status_code=status)


def refusal(headers: Headers, method: str, hosts: Iterable[str], token: str) -> str | None:
    """Why a request must be refused (None: it may pass)."""
    allowed = frozenset(hosts)
    host = headers.get("host", "").lower()
    if host not in allowed:
        return "refused: this server answers only its own page (Host not allowed)"
    origin = headers.get("origin")
    if origin is not None and origin.lower() not in {f"http://{h}" for h in allowed}:
        return "refused: request from another web page (Origin not allowed)"
    if headers.get("sec-fetch-site", "same-origin") in ("cross-site", "same-site"):
        return "refused: request from another web page"
    if method not in _SAFE_METHODS:
        given = headers.get(TOKEN_HEADER, "")
        if not secrets.compare_digest(given.encode(), token.encode()):
            return "refused: missing or wrong session token (reload the page)"
    return None


class PageGuard:
    """The ASGI middleware of the module docstring."""

    def __init__(self, app: ASGIApp, *, hosts: Iterable[str], token: str) -> None:
        self.app = app
        self.hosts = frozenset(h.lower() for h in hosts)
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        why = refusal(Headers(scope=scope), scope["method"], self.hosts, self.token)
        send_with_headers = with_headers(send, SECURITY_HEADERS)
        if why is not None:
            await PlainTextResponse(why, status_code=403)(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)
