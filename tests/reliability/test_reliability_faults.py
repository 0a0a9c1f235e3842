"""The client under injected faults: 10% 500, 5% 503, 2% dropped connections and 5%
500-after-the-write-happened. Every create and update ends ok, and no link exists
twice (per slug, and per URL for creates without a slug, whose outcome the client
must confirm by reading before it re-sends)."""

from __future__ import annotations

import asyncio
from collections import Counter

import httpx
import pytest
from reliability_support import BASE_URL, FakeTime, make_app, open_client

from linksync.api import asgi_transport
from linksync.sandbox import DEFAULT_FULL_KEY

FAULTS = {"fail_500": 0.10, "fail_503": 0.05, "drop": 0.02, "fail_500_after_write": 0.05}


@pytest.mark.parametrize("seed", [1, 2])
async def test_creates_and_updates_survive_faults(fake_time: FakeTime, seed: int) -> None:
    app = make_app(fake_time, rate_limit=1_000_000, seed=seed, **FAULTS)
    with_slug = [(f"f-{i:03d}", f"https://example.com/f/{i}") for i in range(80)]
    without_slug = [f"https://example.com/noslug/{seed}/{i}" for i in range(20)]

    async with open_client(app, fake_time) as client:
        created = await asyncio.gather(
            *(client.create_link({"slug": s, "url": u}) for s, u in with_slug),
            *(client.create_link({"url": u}) for u in without_slug),
        )
        updated = await asyncio.gather(
            *(client.update_link(s, {"url": u + "?v=2"}) for s, u in with_slug[:40])
        )
        stats = client.stats

    assert [c.url for c in created] == [u for _, u in with_slug] + without_slug
    assert all(u.url.endswith("?v=2") for u in updated)
    # The faults really happened and were retried.
    assert stats.retries > 0
    assert stats.responses_by_status[500] + stats.responses_by_status[503] > 0

    # Read the faulty sandbox back with a client that retries generously.
    generous = {"server_error_retries": 20, "unavailable_retries": 20, "transport_retries": 20}
    async with open_client(app, fake_time, **generous) as reader:
        links = await reader.list_links()
    by_slug = Counter(link.slug for link in links)
    by_url = Counter(link.url for link in links)
    assert len(links) == len(with_slug) + len(without_slug)
    assert set(by_slug.values()) == {1}
    assert all(by_url[u] == 1 for u in without_slug)
    urls = {link.slug: link.url for link in links}
    assert all(urls[s] == u + "?v=2" for s, u in with_slug[:40])
    assert all(urls[s] == u for s, u in with_slug[40:])


async def test_burst_of_429s_from_another_client(fake_time: FakeTime) -> None:
    """A tiny rate limit, and a careless client on the same key firing bursts that eat
    the windows: linksync's shared limiter parks and retries, every create lands once."""
    app = make_app(fake_time, rate_limit=5, rate_window_s=1.0)
    hog = httpx.AsyncClient(
        transport=asgi_transport(app),
        base_url=BASE_URL,
        headers={"Authorization": f"Bearer {DEFAULT_FULL_KEY}"},
    )
    hog_answers: Counter[int] = Counter()

    async def hog_bursts() -> None:
        for _ in range(15):  # 15 bursts of 4 requests, one burst per turn of the loop
            for _ in range(4):
                r = await hog.get("/api/v1/links", params={"limit": 1})
                hog_answers[r.status_code] += 1
            await asyncio.sleep(0)

    async with hog, open_client(app, fake_time) as client:
        slugs = [f"b-{i:02d}" for i in range(40)]
        _, created = await asyncio.gather(
            hog_bursts(),
            asyncio.gather(
                *(client.create_link({"slug": s, "url": f"https://example.com/{s}"}) for s in slugs)
            ),
        )
        stats = client.stats
        links = await client.list_links()
    assert hog_answers[429] > 0  # the burst really hit the limit
    assert stats.rate_limited > 0  # and linksync saw 429s too, yet:
    assert [c.slug for c in created] == slugs
    assert sorted(link.slug for link in links) == slugs
