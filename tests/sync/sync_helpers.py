"""Helpers of the sync tests: an in-process sandbox and clients on it (fast sleeps)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from linksync.api import LinkServiceClient, RetryPolicy, asgi_transport
from linksync.model import LinkSpec, Provenance
from linksync.sandbox import DEFAULT_FULL_KEY, DEFAULT_READ_KEY, SandboxSettings, create_app

BASE = "http://sandbox.localhost"


async def no_sleep(_: float) -> None:
    """Retries and limiter pauses cost no wall time in tests."""


class Sandbox:
    def __init__(self, **overrides: Any) -> None:
        overrides.setdefault("rate_limit", 100_000)
        self.settings = SandboxSettings().with_overrides(**overrides)
        self.app = create_app(self.settings, ":memory:")

    @asynccontextmanager
    async def client(
        self, key: str = DEFAULT_FULL_KEY, concurrency: int = 4
    ) -> AsyncIterator[LinkServiceClient]:
        policy = RetryPolicy(sleep=no_sleep, random=lambda: 0.0)
        async with LinkServiceClient(
            BASE, key, transport=asgi_transport(self.app), concurrency=concurrency, retry=policy
        ) as client:
            yield client

    def read_only(self) -> Any:
        return self.client(DEFAULT_READ_KEY)


def row(slug: str | None, url: str, n: int, **fields: Any) -> LinkSpec:
    """A desired link as a CSV row ``n`` would give it."""
    managed = {"url", *fields} - {"domain"}
    if "tags" in fields and fields["tags"] is not None:
        fields["tags"] = tuple(fields["tags"])
    return LinkSpec(
        url=url,
        slug=slug,
        managed=frozenset(managed),
        provenance=Provenance("links.csv", None, n),
        **fields,
    )


def rows(count: int, *, prefix: str = "s", start: int = 0, **fields: Any) -> list[LinkSpec]:
    return [
        row(f"{prefix}{i}", f"https://example.com/{prefix}/{i}", i + 2, **fields)
        for i in range(start, start + count)
    ]
