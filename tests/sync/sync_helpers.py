"""Helpers of the sync tests: an in-process sandbox and clients on it (fast sleeps)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any

from linksync.api import LinkServiceClient, RetryPolicy, asgi_transport
from linksync.model import LinkKey, LinkSpec, Provenance, RemoteLink
from linksync.sandbox import DEFAULT_FULL_KEY, DEFAULT_READ_KEY, SandboxSettings, create_app
from linksync.sync.state import DomainFetch, DomainInfo, OrgInfo, RemoteState

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


def remote_state(
    system_domain: str,
    links: Iterable[RemoteLink],
    *,
    listed_domains: Iterable[str] | None = None,
    read_keys: Iterable[LinkKey] = (),
    custom_domains: Iterable[DomainInfo] = (),
    org: OrgInfo | None = None,
    fetches: Iterable[DomainFetch] = (),
    requests: int = 0,
) -> RemoteState:
    """A state from a list of links, made by hand. ``listed_domains`` defaults to every
    domain the links and custom domains name, plus the system domain (a complete picture)."""
    link_list = list(links)
    doms = list(custom_domains)
    if listed_domains is None:
        listed = {system_domain.lower()} | {d.domain.lower() for d in doms}
        listed |= {link.domain.lower() for link in link_list}
    else:
        listed = {d.lower() for d in listed_domains}
    return RemoteState(
        system_domain=system_domain.lower(),
        links={link.key: link for link in link_list},
        listed_domains=frozenset(listed),
        read_keys=frozenset(LinkKey.of(d, s) for d, s in read_keys),
        custom_domains={d.domain.lower(): d for d in doms},
        org=org,
        fetches=tuple(fetches),
        requests=requests,
    )
