"""50 parallel clients creating the same slugs: one link per slug, every loser is told
SLUG_EXISTS (409), nothing else happens."""

from __future__ import annotations

import asyncio
import random
from collections import Counter

from starlette.applications import Starlette

from linksync.errors import ApiError
from support.reliability import FakeTime, make_app, open_client

CLIENTS = 50
SLUGS = [f"race-{i:02d}" for i in range(6)]


async def _racer(app: Starlette, fake: FakeTime, n: int) -> list[tuple[str, str, str]]:
    order = SLUGS[:]
    random.Random(n).shuffle(order)
    out: list[tuple[str, str, str]] = []
    async with open_client(app, fake, concurrency=2) as client:
        for slug in order:
            url = f"https://example.com/client/{n}"
            try:
                link = await client.create_link({"slug": slug, "url": url})
            except ApiError as exc:
                out.append((slug, exc.constant, str(exc.status)))
            else:
                out.append((slug, "CREATED", link.url))
    return out


async def test_fifty_clients_one_link_per_slug(fake_time: FakeTime) -> None:
    app = make_app(fake_time, rate_limit=1_000_000)
    answers = await asyncio.gather(*(_racer(app, fake_time, n) for n in range(CLIENTS)))

    created: Counter[str] = Counter()
    losers: Counter[str] = Counter()
    winners: dict[str, str] = {}
    for per_client in answers:
        for slug, outcome, detail in per_client:
            if outcome == "CREATED":
                created[slug] += 1
                winners[slug] = detail
            else:
                assert (outcome, detail) == ("SLUG_EXISTS", "409")
                losers[slug] += 1
    assert all(created[s] == 1 for s in SLUGS)
    assert all(losers[s] == CLIENTS - 1 for s in SLUGS)

    async with open_client(app, fake_time) as client:
        links = await client.list_links()
    per_slug = Counter(link.slug for link in links)
    assert sorted(per_slug) == SLUGS
    assert set(per_slug.values()) == {1}
    assert {link.slug: link.url for link in links} == winners
