"""Fetching the remote state: list pages go out concurrently once page 1 gives the total,
with no more requests than pages; odd services (no total, ``page`` ignored, links added
while listing) are still listed whole and the listing ends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from sync_helpers import BASE, row

from linksync.api import LinkServiceClient, RetryPolicy, asgi_transport
from linksync.sandbox import DEFAULT_FULL_KEY, SandboxSettings, create_app
from linksync.sandbox.store import Store
from linksync.sync import Mode, SyncOptions
from linksync.sync.remote import fetch_remote

TS = "2026-01-01T00:00:00.000Z"
MIRROR = SyncOptions(mode=Mode.MIRROR, scope_domains=("lnk.test",), system_domain="lnk.test")


class InFlight:
    """Wraps an ASGI app; counts list requests and the most in flight at once."""

    def __init__(self, app: Any) -> None:
        self.app, self.now, self.most, self.lists = app, 0, 0, 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        listing = scope["type"] == "http" and scope["path"] == "/api/v1/links"
        if listing:
            self.lists += 1
            self.now += 1
            self.most = max(self.most, self.now)
        try:
            await self.app(scope, receive, send)
        finally:
            if listing:
                self.now -= 1


def client_on(app: Any, concurrency: int = 4) -> LinkServiceClient:
    async def no_sleep(_: float) -> None:
        pass

    return LinkServiceClient(
        BASE,
        DEFAULT_FULL_KEY,
        transport=asgi_transport(app),
        concurrency=concurrency,
        retry=RetryPolicy(sleep=no_sleep, random=lambda: 0.0),
    )


async def test_pages_are_fetched_concurrently_once_the_total_is_known(tmp_path: Path) -> None:
    db = str(tmp_path / "sandbox.db")
    store = Store(db)
    with store.transaction() as conn:
        conn.executemany(
            "INSERT INTO links (id, domain, slug, url, created_at, updated_at) "
            "VALUES (?, 'lnk.test', ?, ?, ?, ?)",
            [(f"lnk_{i:04d}", f"s{i}", f"https://e.com/{i}", TS, TS) for i in range(505)],
        )
    store.close()
    # the same workspace, served with 3-6 ms of latency per request
    settings = SandboxSettings(rate_limit=1_000_000, latency_ms=(3, 6), seed=1)
    app = InFlight(create_app(settings, db))
    desired = [row("s1", "https://example.com/1", 2)]
    async with client_on(app) as c:
        remote = await fetch_remote(c, desired, MIRROR)
    assert len(remote.links) == 505
    assert {key[1] for key in remote.links} == {f"s{i}" for i in range(505)}
    assert app.lists == 6 and remote.requests == 2 + 6  # org, domains, 6 pages
    assert [(f.strategy, f.requests, f.total) for f in remote.fetches] == [("list", 6, 505)]
    assert 1 < app.most <= 4  # concurrent, within the client's concurrency


def fake_service(pages: dict[int, tuple[list[int], dict[str, int] | None]]) -> Any:
    """GET /links answers ``pages[page]``: (link numbers, pagination block or None);
    a page not in the table answers like page 1 (a service that ignores ``page``)."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        path = scope["path"]
        query = {k: v[0] for k, v in parse_qs(scope["query_string"].decode()).items()}
        body: dict[str, Any]
        if path.endswith("/organizations/current"):
            body = {"code": 0, "data": {"id": "o", "linkCount": 0, "linkQuota": 10_000}}
        elif path.endswith("/domains"):
            body = {"code": 0, "data": []}
        else:
            numbers, pagination = pages.get(int(query.get("page", "1")), pages[1])
            data = [
                {"id": f"id{n}", "domain": "lnk.test", "slug": f"s{n}", "url": f"https://e/{n}"}
                for n in numbers
            ]
            body = {"code": 0, "data": data}
            if pagination is not None:
                body["pagination"] = pagination
        payload = json.dumps(body).encode()
        headers = [(b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": payload})

    return app


def block(page: int, total: int) -> dict[str, int]:
    return {"page": page, "limit": 100, "total": total, "totalPages": -(-total // 100)}


async def test_links_added_while_listing_are_listed_too() -> None:
    # Page 1 said 150 links; by page 2 there are 250: page 3 is read as well.
    app = InFlight(
        fake_service(
            {
                1: (list(range(100)), block(1, 150)),
                2: (list(range(100, 200)), block(2, 250)),
                3: (list(range(200, 250)), block(3, 250)),
            }
        )
    )
    async with client_on(app) as c:
        remote = await fetch_remote(c, [row("s1", "https://e/1", 2)], MIRROR)
    assert len(remote.links) == 250 and app.lists == 3


async def test_without_a_total_pages_are_read_in_turn_until_a_short_one() -> None:
    app = InFlight(
        fake_service(
            {
                1: (list(range(100)), None),
                2: (list(range(100, 200)), None),
                3: (list(range(200, 230)), None),
            }
        )
    )
    async with client_on(app) as c:
        remote = await fetch_remote(c, [row("s1", "https://e/1", 2)], MIRROR)
    assert len(remote.links) == 230 and app.lists == 3 and app.most == 1


async def test_a_service_that_ignores_page_does_not_loop() -> None:
    app = InFlight(fake_service({1: (list(range(100)), None)}))
    async with client_on(app) as c:
        remote = await fetch_remote(c, [row("s1", "https://e/1", 2)], MIRROR)
    assert len(remote.links) == 100 and app.lists == 2  # page 2 brought nothing new


async def test_the_page_that_names_the_system_domain_starts_its_listing() -> None:
    """Without a custom domain, page 1 of the unfiltered list (read to learn the system
    domain) is page 1 of the listing: org + domains + the pages, nothing more."""
    app = InFlight(
        fake_service(
            {
                1: (list(range(100)), block(1, 250)),
                2: (list(range(100, 200)), block(2, 250)),
                3: (list(range(200, 250)), block(3, 250)),
            }
        )
    )
    unnamed = SyncOptions(mode=Mode.MIRROR, scope_domains=("lnk.test",))
    async with client_on(app) as c:
        remote = await fetch_remote(c, [row("s1", "https://e/1", 2)], unnamed)
    assert remote.system_domain == "lnk.test"
    assert len(remote.links) == 250 and app.lists == 3 and remote.requests == 2 + 3
    assert [(f.strategy, f.requests) for f in remote.fetches] == [("list", 3)]
