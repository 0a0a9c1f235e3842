"""The edge of the sandbox, as plain ASGI middleware in front of the routes.

For every request: a request id (``x-request-id`` on every response). For ``/api/``
requests, in this order: the rate limit per key (every response carries
``x-ratelimit-*``; 429 RATE_LIMITED with Retry-After), authentication (401
UNAUTHORIZED), then the seeded faults (latency, dropped connection, 503, 500 before the
work, 500 after a write). Redirect paths are public: no key, no rate limit, no faults.

A dropped connection, under uvicorn, aborts the TCP connection without a response (the
server's protocol puts a ``linksync.drop`` callable in ``scope["extensions"]``);
in-process it raises ``httpx.RemoteProtocolError``, which is what httpx raises when a
server disconnects without responding.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from linksync.sandbox.errors import ServiceError, error_response
from linksync.sandbox.faults import Faults
from linksync.sandbox.ratelimit import FixedWindowLimiter
from linksync.sandbox.settings import SandboxSettings

REQUEST_ID_KEY = "linksync.request_id"
KEY_KIND_KEY = "linksync.key_kind"
DROP_EXTENSION = "linksync.drop"
WRITE_METHODS = frozenset({"POST", "PATCH", "PUT", "DELETE"})
ANONYMOUS = "anonymous"


def with_headers(send: Send, extra: dict[str, str]) -> Send:
    return with_raw_headers(
        send, [(k.encode("latin-1"), v.encode("latin-1")) for k, v in extra.items()]
    )


def with_raw_headers(send: Send, raw: list[tuple[bytes, bytes]]) -> Send:
    """``send`` adding ``raw`` (encoded names and values) to the response's headers."""

    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), *raw]}
        await send(message)

    return wrapped


def bearer_token(scope: Scope) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            text: str = value.decode("latin-1")
            scheme, _, token = text.strip().partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
            return None
    return None


class Gate:
    def __init__(
        self,
        app: ASGIApp,
        *,
        settings: SandboxSettings,
        limiter: FixedWindowLimiter,
        faults: Faults,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.app = app
        self._sleep = sleep
        self.limiter = limiter
        self.faults = faults
        self._keys = {settings.full_key: "full", settings.read_key: "read"}
        self._ids = random.Random()  # request ids: unique, not secret (no syscall each)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = f"req_{self._ids.getrandbits(64):016x}"
        scope[REQUEST_ID_KEY] = request_id
        if not scope["path"].startswith("/api/"):
            await self.app(scope, receive, with_headers(send, {"x-request-id": request_id}))
            return

        token = bearer_token(scope)
        kind = self._keys.get(token) if token is not None else None
        decision = self.limiter.hit(token if kind is not None and token else ANONYMOUS)
        raw = decision.raw_headers()
        raw.insert(0, (b"x-request-id", request_id.encode("ascii")))
        send = with_raw_headers(send, raw)

        async def reject(exc: ServiceError) -> None:
            await error_response(exc, request_id)(scope, receive, send)

        if not decision.allowed:
            await reject(
                ServiceError(
                    "RATE_LIMITED",
                    f"more than {decision.limit} requests in {self.limiter.window_s:g} s",
                    {"Retry-After": str(decision.retry_after)},
                )
            )
            return
        if kind is None:
            why = "missing bearer credential" if token is None else "unknown API key"
            await reject(ServiceError("UNAUTHORIZED", why, {"WWW-Authenticate": "Bearer"}))
            return
        scope[KEY_KIND_KEY] = kind

        plan = self.faults.draw()
        if plan.latency_s > 0:
            await self._sleep(plan.latency_s)
        if plan.drop:
            await _drop(scope)
            return
        if plan.fail_503:
            await reject(ServiceError("EDGE_UNAVAILABLE", "injected fault: edge unavailable"))
            return
        if plan.fail_500:
            await reject(ServiceError("INTERNAL_ERROR", "injected fault: internal error"))
            return
        if plan.fail_500_after_write and scope["method"] in WRITE_METHODS:
            await self.app(scope, receive, _discard)
            await reject(
                ServiceError("INTERNAL_ERROR", "injected fault: internal error after the work")
            )
            return
        await self.app(scope, receive, send)


async def _discard(message: Message) -> None:
    """A send that throws the response away (the work has been done)."""


async def _drop(scope: Scope) -> None:
    dropper: Callable[[], Any] | None = (scope.get("extensions") or {}).get(DROP_EXTENSION)
    if dropper is None:
        raise httpx.RemoteProtocolError("Server disconnected without sending a response.")
    dropper()
    for _ in range(3):  # let the server see the connection is gone
        await asyncio.sleep(0)
