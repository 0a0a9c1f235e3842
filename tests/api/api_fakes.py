"""A tiny scripted ASGI service for odd server shapes (no sandbox involved)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from virtual_clock import VirtualClock

from linksync.api import LinkServiceClient, RetryPolicy, asgi_transport

KEY = "fake-secret-key-0123456789"


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # JSON value, or bytes/str sent as is
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/json"


Handler = Callable[[Seen], Reply | Awaitable[Reply]]
ClientFactory = Callable[..., LinkServiceClient]


class FakeService:
    """Answers every request with ``handler(seen)``; records what it saw."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.seen: list[Seen] = []

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        assert scope["type"] == "http"
        raw = b""
        while True:
            msg = await receive()
            raw += msg.get("body", b"")
            if not msg.get("more_body"):
                break
        seen = Seen(
            method=scope["method"],
            path=scope["path"],
            query={k: v[0] for k, v in parse_qs(scope["query_string"].decode()).items()},
            headers={k.decode().lower(): v.decode() for k, v in scope["headers"]},
            body=json.loads(raw) if raw else None,
        )
        self.seen.append(seen)
        reply = self.handler(seen)
        if asyncio.iscoroutine(reply):
            reply = await reply
        assert isinstance(reply, Reply)
        if isinstance(reply.body, bytes):
            payload = reply.body
        elif isinstance(reply.body, str):
            payload = reply.body.encode()
        elif reply.body is None:
            payload = b""
        else:
            payload = json.dumps(reply.body).encode()
        headers = [(b"content-type", reply.content_type.encode())]
        headers += [(k.encode(), v.encode()) for k, v in reply.headers.items()]
        await send({"type": "http.response.start", "status": reply.status, "headers": headers})
        await send({"type": "http.response.body", "body": payload})


class FakeClock:
    """Wall clock that only moves when the client sleeps."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


def fast_policy(clock: FakeClock | VirtualClock | None = None, **kw: Any) -> RetryPolicy:
    clock = clock or FakeClock()
    return RetryPolicy(sleep=clock.sleep, clock=clock, random=lambda: 0.5, **kw)


def no_retries() -> RetryPolicy:
    """No retries at all (every error is reported as it comes)."""
    return RetryPolicy(
        rate_limited_retries=0,
        server_error_retries=0,
        unavailable_retries=0,
        transport_retries=0,
        reused_connection_retries=0,
    )


def fake_client(
    app: Any, *, clock: FakeClock | None = None, key: str = KEY, **kw: Any
) -> LinkServiceClient:
    retry = kw.pop("retry", None) or fast_policy(clock)
    return LinkServiceClient(
        "http://fake.local",
        key,
        transport=asgi_transport(app),
        allow_insecure=True,
        retry=retry,
        **kw,
    )


def ok(data: Any, status: int = 200, **extra: Any) -> Reply:
    return Reply(status, {"code": 0, "data": data, **extra})


def error(
    status: int, constant: str, code: int, message: str = "nope", rid: str = "req-1"
) -> Reply:
    return Reply(
        status,
        {"error": {"code": code, "constant": constant, "message": message, "requestId": rid}},
    )
