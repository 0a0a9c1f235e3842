"""The client under injected faults: 10% 500, 5% 503, 2% dropped connections and 5%
500-after-the-write-happened. Every create and update ends ok, and no link exists
twice (per slug, and per URL for creates without a slug, whose outcome the client
must confirm by reading before it re-sends)."""

from __future__ import annotations

import asyncio
from collections import Counter

import httpx
import pytest
from virtual_clock import VirtualClock

from linksync.api import LinkServiceClient, RetryPolicy, asgi_transport
from linksync.sandbox import DEFAULT_FULL_KEY, SandboxSettings, create_app
from support.reliability import BASE_URL, FakeTime, make_app, open_client

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


async def test_burst_of_429s_from_another_client() -> None:
    """A tiny rate limit, and a careless client on the same key firing bursts that eat
    whole windows (1.5 s of bursts, 3 s of quiet, as in ``benchmarks/faults.py``):
    linksync's shared limiter parks on every 429 and retries, and every create lands
    once, within the interface's 3 retries. Virtual time: the client, the hog and the
    sandbox share one clock whose sleeps overlap as real ones do."""
    clock = VirtualClock(1_900_000_000.0)
    app = create_app(
        SandboxSettings(rate_limit=5, rate_window_s=1.0, latency_ms=(5, 10)),
        ":memory:",
        clock=clock,
        sleep=clock.sleep,
    )
    hog = httpx.AsyncClient(
        transport=asgi_transport(app),
        base_url=BASE_URL,
        headers={"Authorization": f"Bearer {DEFAULT_FULL_KEY}"},
    )
    hog_answers: Counter[int] = Counter()

    async def hog_bursts() -> None:
        for _ in range(3):  # three times: 1.5 s of bursts of 4, then 3 s of quiet
            for _ in range(6):
                for _ in range(4):
                    r = await hog.get("/api/v1/links", params={"limit": 1})
                    hog_answers[r.status_code] += 1
                await clock.sleep(0.25)
            await clock.sleep(3.0)

    policy = RetryPolicy(sleep=clock.sleep, clock=clock, random=lambda: 0.5)
    async with (
        hog,
        LinkServiceClient(
            BASE_URL,
            DEFAULT_FULL_KEY,
            transport=asgi_transport(app),
            allow_insecure=True,
            retry=policy,
        ) as client,
    ):
        slugs = [f"b-{i:02d}" for i in range(40)]
        _, created = await clock.run(
            asyncio.gather(
                hog_bursts(),
                asyncio.gather(
                    *(
                        client.create_link({"slug": s, "url": f"https://example.com/{s}"})
                        for s in slugs
                    )
                ),
            )
        )
        stats = client.stats
        links = await clock.run(client.list_links())
    assert hog_answers[429] > 0  # the burst really hit the limit
    assert stats.rate_limited > 0  # and linksync saw 429s too, yet:
    assert [c.slug for c in created] == slugs
    assert sorted(link.slug for link in links) == slugs
