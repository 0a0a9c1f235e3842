"""The in-flight cap (the limiter's rule 3): as many requests in flight as rate x latency
needs, with headroom, within ``concurrency``; new ones opened a few at a time.

The first tests share a virtual clock between the client and the in-process service
(latency costs no real time); the last one runs on a real socket against the sandbox
served with a listen backlog of 5, and counts the connections it accepts."""

from __future__ import annotations

import asyncio
import math
from collections import Counter
from typing import Any

from api_fakes import FakeService, Reply, Seen, VirtualClock, fast_policy, ok

from linksync.api import LinkServiceClient, asgi_transport
from linksync.sandbox import DEFAULT_FULL_KEY, DEFAULT_READ_KEY, SandboxSettings, create_app
from linksync.sync.pool import run_pool
from support.sandbox_helpers import serve_in_thread


class InFlight:
    """Wraps an ASGI app: at each request's arrival, (virtual instant, requests then in
    flight at the service, this one included)."""

    def __init__(self, app: Any, clock: VirtualClock) -> None:
        self.app, self.clock = app, clock
        self.now = 0
        self.arrivals: list[tuple[float, int]] = []
        self.statuses: Counter[int] = Counter()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.now += 1
        self.arrivals.append((self.clock(), self.now))

        async def record(message: Any) -> None:
            if message["type"] == "http.response.start":
                self.statuses[message["status"]] += 1
            await send(message)

        try:
            await self.app(scope, receive, record)
        finally:
            self.now -= 1

    @property
    def most(self) -> int:
        return max(n for _, n in self.arrivals)

    def most_at_one_instant(self, skip: int = 0) -> int:
        """The most requests that arrived at one instant (after the first ``skip``)."""
        return max(Counter(t for t, _ in self.arrivals[skip:]).values())


def client_of(app: Any, clock: VirtualClock, concurrency: int = 64) -> LinkServiceClient:
    return LinkServiceClient(
        "http://sandbox.local",
        DEFAULT_FULL_KEY,
        transport=asgi_transport(app),
        allow_insecure=True,
        concurrency=concurrency,
        retry=fast_policy(clock),
    )


async def read_pages(client: LinkServiceClient, clock: VirtualClock, pages: int) -> None:
    """As a plan lists a workspace: every page through the sync engine's worker pool
    (``concurrency`` workers), the pool announcing what it still holds."""

    async def one(n: int) -> None:
        await client.list_links_page(page=n, limit=100)

    pool = run_pool(range(1, pages + 1), one, client.concurrency, queued=client.set_queued)
    await clock.run(pool)


async def test_a_plans_pages_open_a_few_at_a_time_and_stay_near_rate_times_latency() -> None:
    """60 pages at R = 100 with 20-40 ms of latency and 64 workers: all 60 fit in the
    window, so pacing would let them go at once; the cap keeps them near rate x latency
    (100/s x 40 ms x 2 + 4 = 12) and lets them in a few at a time."""
    clock = VirtualClock(1_800_000_000.2)
    settings = SandboxSettings(rate_limit=100, rate_window_s=1.0, latency_ms=(20, 40), seed=3)
    service = InFlight(create_app(settings, ":memory:", clock=clock, sleep=clock.sleep), clock)
    async with client_of(service, clock) as client:
        await read_pages(client, clock, 60)
        state = client.limiter.state()
    assert service.statuses == {200: 60}
    assert service.arrivals[0][1] == 1  # the first goes alone
    assert service.most == state.max_in_flight <= 16  # not 59 (the old burst)
    assert service.most_at_one_instant(skip=1) <= 4  # the first answer lets in 4
    # After those 4, each answer lets in the next one and at most one more.
    assert service.most_at_one_instant(skip=5) <= 2
    # the latency it learned is about the slowest answers', and the cap follows it
    assert state.latency_s is not None and 0.03 <= state.latency_s <= 0.05
    assert state.cap == math.ceil(100 * state.latency_s * 2) + 4 <= 14


async def test_an_apply_at_the_rate_limit_keeps_about_rate_times_latency_in_flight() -> None:
    """250 creates at R = 100, 64 workers, from a window's start: two windows paced 10 ms
    apart (about 3 in flight: 100/s x 30 ms), then the last 50 fit in the third window,
    so pacing lets them go at once; the cap still holds them near rate x latency."""
    clock = VirtualClock(1_800_000_000.0)
    settings = SandboxSettings(
        rate_limit=100, rate_window_s=1.0, latency_ms=(20, 40), seed=5, link_quota=1_000
    )
    service = InFlight(create_app(settings, ":memory:", clock=clock, sleep=clock.sleep), clock)
    async with client_of(service, clock) as client:

        async def create(i: int) -> None:
            await client.create_link({"slug": f"s{i}", "url": f"https://example.com/{i}"})

        await clock.run(run_pool(range(250), create, 64, queued=client.set_queued))
        stats, state = client.stats, client.limiter.state()
    assert service.statuses == {201: 250} and stats.rate_limited == 0
    assert service.most == state.max_in_flight <= 14  # not 50 (the old burst at the end)
    typical = sorted(n for _, n in service.arrivals)[len(service.arrivals) // 2]
    assert typical <= 5  # the median request found about rate x latency in flight


async def test_without_rate_headers_the_cap_grows_by_slow_start_to_the_ceiling() -> None:
    """A service that sends no x-ratelimit headers: nothing bounds the rate, so the cap
    grows toward ``concurrency`` (16 here), by one per answer."""
    clock = VirtualClock(1_800_000_000.0)
    count = 0

    async def handler(seen: Seen) -> Reply:
        nonlocal count
        count += 1
        await clock.sleep(0.020 + (count % 7) * 0.003)  # answers at distinct instants
        return ok({"slug": "s"})

    service = InFlight(FakeService(handler), clock)
    async with client_of(service, clock, concurrency=16) as client:

        async def ask(i: int) -> None:
            await client.ai_slug(f"https://example.com/{i}")

        await clock.run(run_pool(range(200), ask, 16))
        state = client.limiter.state()
    in_flight = [n for _, n in service.arrivals]
    assert in_flight[0] == 1 and max(in_flight[1:5]) <= 4
    assert service.most == 16 == state.max_in_flight == state.cap
    # the ceiling is reached only after a dozen answers: one more connection an answer
    first_at_ceiling = in_flight.index(16)
    assert first_at_ceiling >= 16
    assert service.most_at_one_instant(skip=1) <= 4


async def test_answers_that_come_together_do_not_let_in_a_batch_of_new_connections() -> None:
    """Every answer of a round at the same instant (a constant 30 ms: as when a busy
    client reads a pile of answers at once): the cap grows by one an answer, but the
    sends that need a new connection (above the most in flight so far) go at most 4 in
    any 10 ms."""
    clock = VirtualClock(1_800_000_000.0)

    async def handler(seen: Seen) -> Reply:
        await clock.sleep(0.030)
        return ok({"slug": "s"})

    service = InFlight(FakeService(handler), clock)
    async with client_of(service, clock, concurrency=64) as client:

        async def ask(i: int) -> None:
            await client.ai_slug(f"https://example.com/{i}")

        await clock.run(run_pool(range(400), ask, 64))
    highest, rises = 0, []
    for t, n in service.arrivals:
        if n > highest:
            highest, rises = n, [*rises, t]
    assert highest == 64  # no rate headers: the ceiling, in the end
    assert max(sum(1 for u in rises if t <= u < t + 0.0099) for t in rises) <= 4


async def test_the_cap_falls_when_the_latency_does() -> None:
    """Slow answers first (200 ms), then fast ones (5 ms): the cap follows the latency
    down at once (the requests in flight with it)."""
    clock = VirtualClock(1_800_000_000.0)
    count = 0

    async def handler(seen: Seen) -> Reply:
        nonlocal count
        count += 1
        await clock.sleep(0.2 if count <= 60 else 0.005)
        window_end = math.floor(clock()) + 1
        headers = {
            "x-ratelimit-limit": "100",
            "x-ratelimit-remaining": "99",  # never the constraint
            "x-ratelimit-reset": str(window_end),
        }
        return Reply(200, {"code": 0, "data": {"slug": "s"}}, headers=headers)

    service = InFlight(FakeService(handler), clock)
    async with client_of(service, clock) as client:
        caps: list[int] = []

        async def ask(i: int) -> None:
            await client.ai_slug(f"https://example.com/{i}")
            caps.append(client.limiter.state().cap)

        await clock.run(run_pool(range(400), ask, 64))
    # 100/s x (200 ms and more) x 2 + 4 >= 44; then 100/s x 5 ms x 2 + 4 = 5
    assert max(caps[:60]) >= 30
    assert caps[-1] <= 6
    assert max(n for _, n in service.arrivals[-100:]) <= 6


async def test_a_real_server_with_a_backlog_of_5_gets_new_connections_a_few_at_a_time() -> None:
    """On a real socket: the sandbox listening with a backlog of 5, 20-40 ms of latency,
    R = 100; 80 pages read by 64 workers. Connections follow the requests in flight, and
    those grow by at most one per answer: when the n-th connection brings its first
    request, the server has already answered at least n - 4 requests (the old burst
    opened 64 connections after the first answer)."""
    answered = 0
    first_seen: dict[int, int] = {}  # client port -> answers done when it first came
    statuses: Counter[int] = Counter()

    def wrap(app: Any) -> Any:
        async def counting(scope: Any, receive: Any, send: Any) -> None:
            nonlocal answered
            if scope["type"] == "http":
                first_seen.setdefault(scope["client"][1], answered)

            async def record(message: Any) -> None:
                if message["type"] == "http.response.start":
                    statuses[message["status"]] += 1
                await send(message)

            await app(scope, receive, record)
            answered += 1

        return counting

    settings = SandboxSettings(rate_limit=100, latency_ms=(20, 40), backlog=5)
    with serve_in_thread(settings, ":memory:", wrap=wrap) as server:
        async with LinkServiceClient(
            server.base_url + "/api/v1", DEFAULT_READ_KEY, allow_insecure=True, concurrency=64
        ) as client:

            async def one(n: int) -> None:
                await client.list_links_page(page=n, limit=100)

            await asyncio.wait_for(run_pool(range(1, 81), one, 64), timeout=60)
            stats, state = client.stats, client.limiter.state()
    assert stats.requests == 80 and stats.rate_limited == 0 and statuses == {200: 80}
    opened = sorted(first_seen.values())
    assert all(answers >= n - 4 for n, answers in enumerate(opened, start=1)), opened
    assert len(opened) <= state.max_in_flight < 64
