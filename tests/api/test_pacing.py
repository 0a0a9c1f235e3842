"""Pacing: a client alone on its key never receives a 429, and spreads its sends.

The client and the in-process sandbox share one virtual clock (``VirtualClock``): rate
windows, the sandbox's latency and the limiter's waits take no real time, and sleeps of
concurrent tasks overlap as real ones do. Every request the sandbox counts is recorded
with the virtual instant it arrived and the status it got."""

from __future__ import annotations

import asyncio
import itertools
import math
from collections import Counter
from typing import Any

import pytest
from api_fakes import VirtualClock, fast_policy

from linksync.api import LinkServiceClient, RetryPolicy, asgi_transport
from linksync.sandbox import DEFAULT_FULL_KEY, SandboxSettings, create_app


class Arrivals:
    """Wraps the sandbox: (virtual time of arrival, HTTP status) of each API request."""

    def __init__(self, app: Any, clock: VirtualClock) -> None:
        self.app, self.clock = app, clock
        self.seen: list[tuple[float, int]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/api/"):
            await self.app(scope, receive, send)
            return
        arrived = self.clock()

        async def record(message: Any) -> None:
            if message["type"] == "http.response.start":
                self.seen.append((arrived, message["status"]))
            await send(message)

        await self.app(scope, receive, record)

    @property
    def statuses(self) -> Counter[int]:
        return Counter(status for _, status in self.seen)


def sandbox(
    clock: VirtualClock, limit: int, window: float, latency: tuple[int, int] = (20, 40)
) -> tuple[Any, Arrivals]:
    settings = SandboxSettings(
        rate_limit=limit, rate_window_s=window, latency_ms=latency, seed=4, link_quota=100_000
    )
    app = create_app(settings, ":memory:", clock=clock, sleep=clock.sleep)
    return app, Arrivals(app, clock)


def client(app: Any, clock: VirtualClock, concurrency: int) -> LinkServiceClient:
    return LinkServiceClient(
        "http://sandbox.local",
        DEFAULT_FULL_KEY,
        transport=asgi_transport(app),
        allow_insecure=True,
        concurrency=concurrency,
        retry=fast_policy(clock),
    )


async def create_links(app: Any, clock: VirtualClock, n: int, concurrency: int) -> Any:
    async with client(app, clock, concurrency) as c:
        queue = list(range(n))

        async def worker() -> None:
            while queue:
                i = queue.pop()
                await c.create_link({"slug": f"s{i}", "url": f"https://example.com/{i}"})

        await clock.run(asyncio.gather(*(worker() for _ in range(concurrency))))
        return c.stats


async def test_500_requests_through_a_limit_of_5_per_window_get_no_429() -> None:
    clock = VirtualClock(1_800_000_000.0)
    app, seen = sandbox(clock, limit=5, window=1.0)
    t0 = clock()
    stats = await create_links(seen, clock, 500, concurrency=8)
    elapsed = clock() - t0

    assert seen.statuses == {201: 500}  # not one 429
    assert stats.rate_limited == 0 and stats.retries == 0
    assert app.state.backend.store.count_links() == 500
    # At the limit: 500 requests at 5 per window take 100 windows, not more.
    assert 99.0 <= elapsed <= 101.0
    # No burst at a window's start: while more requests wait than the window has left,
    # the sends are spread over it. (The first request goes alone: its answer tells the
    # limit. In the last window the 5 requests left fit at once and go at once.)
    per_window = Counter(math.floor(t) for t, _ in seen.seen)
    assert max(per_window.values()) == 5
    last = max(per_window)
    sent = [t for t, _ in seen.seen[1:] if math.floor(t) < last]
    gaps = [b - a for a, b in itertools.pairwise(sent)]
    assert min(gaps) >= 0.1  # ideal spacing 0.2 s; a burst would be ~0
    assert {t for t, _ in seen.seen if math.floor(t) == last} == {float(last)}  # not held back


@pytest.mark.parametrize(
    ("limit", "window", "concurrency", "requests"),
    [
        (2, 1.0, 32, 9),
        (2, 60.0, 32, 7),
        (3, 1.0, 1, 10),
        (7, 13.0, 16, 22),
        (50, 1.0, 32, 160),
        (100, 7.0, 8, 250),
        (1000, 1.0, 32, 1100),
        (1000, 60.0, 32, 1050),
        (2, 1.0, 64, 9),
        (5, 1.0, 64, 40),
        (50, 2.0, 64, 160),
        (1000, 1.0, 64, 2100),
    ],
)
async def test_a_client_alone_on_its_key_never_gets_429(
    limit: int, window: float, concurrency: int, requests: int
) -> None:
    clock = VirtualClock(1_800_000_003.0)  # not at a window's start
    _, seen = sandbox(clock, limit=limit, window=window)
    stats = await create_links(seen, clock, requests, concurrency)
    assert seen.statuses == {201: requests}
    assert stats.rate_limited == 0
    windows = Counter(math.floor(t / window) for t, _ in seen.seen)
    assert max(windows.values()) <= limit


async def test_a_service_clock_behind_ours_is_learned() -> None:
    """The service's windows end 0.3 s later than its reset values say by our clock:
    the limiter learns the lag from the answers and stops sending too early."""
    clock = VirtualClock(1_800_000_000.5)

    def behind() -> float:
        return clock() - 0.3

    settings = SandboxSettings(rate_limit=10, rate_window_s=1.0, latency_ms=(20, 40), seed=2)
    app = Arrivals(create_app(settings, ":memory:", clock=behind, sleep=clock.sleep), clock)
    stats = await create_links(app, clock, 200, concurrency=8)
    assert app.statuses[201] == 200
    late = [t for t, status in app.seen if status == 429]
    assert stats.rate_limited == len(late) <= 3  # at most the first window's edge
    assert all(t < app.seen[0][0] + 3.0 for t in late)


class LateClock(VirtualClock):
    """A virtual clock whose sleeps of the client wake ``late`` seconds after they were
    due (as real timers do, rounded up to the millisecond), counting them."""

    def __init__(self, start: float, late: float) -> None:
        super().__init__(start)
        self.late, self.sleeps = late, 0

    async def client_sleep(self, seconds: float) -> None:
        self.sleeps += 1
        await self.sleep(seconds + self.late if seconds > 0 else seconds)


async def paced_run(clock: LateClock, n: int, concurrency: int) -> tuple[Any, float]:
    _, seen = sandbox(clock, limit=1000, window=1.0)
    retry = RetryPolicy(sleep=clock.client_sleep, clock=clock, random=lambda: 0.5)
    async with LinkServiceClient(
        "http://sandbox.local",
        DEFAULT_FULL_KEY,
        transport=asgi_transport(seen),
        allow_insecure=True,
        concurrency=concurrency,
        retry=retry,
    ) as c:
        queue = list(range(n))

        async def worker() -> None:
            while queue:
                i = queue.pop()
                c.set_queued(len(queue))  # as the executor's pool does
                await c.create_link({"slug": f"s{i}", "url": f"https://example.com/{i}"})

        t0 = clock()
        await clock.run(asyncio.gather(*(worker() for _ in range(concurrency))))
        return seen, clock() - t0


async def test_late_timers_are_made_up_and_waiting_senders_do_not_wake_at_every_send() -> None:
    """At 1,000 a second with 64 in flight, each pacing sleep waking 0.9 ms late (the
    spacing is about 1 ms): the sends keep the rate (the next one is due one spacing
    after the last was due), no 429, and only the first sender in line sleeps: about
    one sleep a send (54,000 when every waiting sender woke at every send)."""
    clock = LateClock(1_800_000_000.5, late=0.0009)
    seen, elapsed = await paced_run(clock, 3000, concurrency=64)
    assert seen.statuses == {201: 3000}
    # half a window, two whole ones, and the last answers; the first half window loses
    # about 40 ms while the connections open a few at a time (the limiter's rule 3)
    assert elapsed < 2.75
    assert clock.sleeps < 2 * 3000
