"""Helpers of the fast reliability tests (``api/test_reliability_*``,
``sync/test_reliability_sync.py``): an in-process sandbox (no socket) and a fake
clock shared by the sandbox and the client, so rate windows and backoff cost no real
time."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.types import ASGIApp

from linksync.api import LinkServiceClient, RetryPolicy, asgi_transport
from linksync.sandbox import DEFAULT_FULL_KEY, SandboxSettings, create_app

BASE_URL = "http://sandbox.local"


class FakeTime:
    """A clock that only moves when someone sleeps: ``clock()`` and ``await sleep(s)``."""

    def __init__(self, start: float = 1_900_000_000.0) -> None:
        self.now = start
        self.slept = 0.0

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        if seconds > 0:
            self.now += seconds
            self.slept += seconds
        await asyncio.sleep(0)


def make_app(fake: FakeTime, **settings: Any) -> Starlette:
    return create_app(SandboxSettings(**settings), ":memory:", clock=fake.clock)


def make_policy(fake: FakeTime, **changes: Any) -> RetryPolicy:
    return RetryPolicy(sleep=fake.sleep, clock=fake.clock, random=lambda: 0.5, **changes)


@asynccontextmanager
async def open_client(
    app: ASGIApp, fake: FakeTime, *, concurrency: int = 8, **policy: Any
) -> AsyncIterator[LinkServiceClient]:
    async with LinkServiceClient(
        BASE_URL,
        DEFAULT_FULL_KEY,
        transport=asgi_transport(app),
        concurrency=concurrency,
        allow_insecure=True,
        retry=make_policy(fake, **policy),
    ) as client:
        yield client
