"""The shared limiter: header-driven pauses, a 429 parks every worker, bounded concurrency.
Time is a fake clock that moves only when a task sleeps, so these run instantly."""

from __future__ import annotations

import asyncio
import itertools
import math

from api_fakes import FakeClock, FakeService, Reply, Seen, fake_client, fast_policy, ok

from linksync.api import RateLimiter


class WindowService:
    """A fixed-window rate limit of ``limit`` requests per ``window`` seconds, on the fake
    clock; answers 429 with Retry-After above the limit."""

    def __init__(self, clock: FakeClock, limit: int, window: float = 1.0) -> None:
        self.clock, self.limit, self.window = clock, limit, window
        self.start = -1.0
        self.count = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.answers: list[tuple[float, int]] = []

    async def __call__(self, seen: Seen) -> Reply:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        await asyncio.sleep(0)  # let other tasks in while this one is "in flight"
        self.in_flight -= 1
        now = self.clock()
        start = math.floor(now / self.window) * self.window
        if start != self.start:
            self.start, self.count = start, 0
        self.count += 1
        reset = start + self.window
        headers = {
            "x-ratelimit-limit": str(self.limit),
            "x-ratelimit-remaining": str(max(0, self.limit - self.count)),
            "x-ratelimit-reset": str(reset),
        }
        if self.count > self.limit:
            headers["retry-after"] = str(max(1, math.ceil(reset - now)))
            self.answers.append((now, 429))
            body = {"error": {"code": 42901, "constant": "RATE_LIMITED", "message": "slow"}}
            return Reply(429, body, headers=headers)
        self.answers.append((now, 200))
        return Reply(200, {"code": 0, "data": {"slug": "s"}}, headers=headers)


async def test_many_requests_stay_under_the_limit_without_429() -> None:
    clock = FakeClock(1_800_000_000.0)
    service = WindowService(clock, limit=20)
    app = FakeService(service)
    async with fake_client(app, retry=fast_policy(clock), concurrency=8) as client:
        t0 = clock()
        await asyncio.gather(*(client.ai_slug(f"https://e.com/{i}") for i in range(200)))
        elapsed = clock() - t0
        stats = client.stats
    statuses = [s for _, s in service.answers]
    assert statuses.count(429) == 0 and statuses.count(200) == 200
    assert stats.rate_limited == 0
    assert 9.0 <= elapsed <= 10.0  # 200 requests at 20 per window: 10 windows
    assert service.max_in_flight <= 8


async def test_a_429_parks_every_worker() -> None:
    clock = FakeClock(1_800_000_000.0)
    first = True
    times: list[float] = []

    def handler(seen: Seen) -> Reply:
        nonlocal first
        times.append(clock())
        if first:
            first = False
            body = {"error": {"code": 42901, "constant": "RATE_LIMITED", "message": "slow"}}
            return Reply(429, body, headers={"retry-after": "3"})
        return ok({"slug": "s"})

    app = FakeService(handler)
    async with fake_client(app, retry=fast_policy(clock), concurrency=4) as client:
        t0 = clock()
        await client.ai_slug("https://e.com/0")  # the 429, then the retry
        results = await asyncio.gather(*(client.ai_slug(f"https://e.com/{i}") for i in range(6)))
    assert results == ["s"] * 6
    assert times[0] == t0
    assert all(t >= t0 + 3 for t in times[1:])


async def test_remaining_zero_holds_until_reset() -> None:
    clock = FakeClock(1000.0)
    limiter = RateLimiter(2, sleep=clock.sleep, clock=clock)
    async with limiter.slot() as slot:
        slot.observe({"x-ratelimit-remaining": "0", "x-ratelimit-reset": "1_000_000_000"})
    # a reset far away is capped (clock skew must not park for hours)
    assert limiter.state().resume_at <= 1000.0 + 120.0

    clock2 = FakeClock(2_000_000_000.0)
    limiter2 = RateLimiter(2, sleep=clock2.sleep, clock=clock2)
    async with limiter2.slot() as slot:
        slot.observe({"x-ratelimit-remaining": "0", "x-ratelimit-reset": "2000000004"})
    async with limiter2.slot():
        pass
    assert clock2.sleeps == [4.0] and limiter2.waited == 4.0


async def test_relative_reset_and_unreadable_headers() -> None:
    clock = FakeClock(2_000_000_000.0)
    limiter = RateLimiter(1, sleep=clock.sleep, clock=clock)
    async with limiter.slot() as slot:
        slot.observe({"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "2"})
    async with limiter.slot() as slot:
        slot.observe({"x-ratelimit-remaining": "soon", "x-ratelimit-reset": "?"})
    assert clock.sleeps == [2.0]


async def test_senders_wait_while_remaining_is_taken_by_requests_in_flight() -> None:
    clock = FakeClock(2_000_000_000.0)
    limiter = RateLimiter(8, sleep=clock.sleep, clock=clock)
    async with limiter.slot() as slot:
        slot.observe({"x-ratelimit-remaining": "2", "x-ratelimit-reset": "2000000010"})
    admitted: list[int] = []
    release = asyncio.Event()

    async def worker(i: int) -> None:
        async with limiter.slot():
            admitted.append(i)
            await release.wait()

    tasks = [asyncio.create_task(worker(i)) for i in range(5)]
    for _ in range(5):
        await asyncio.sleep(0)
    assert len(admitted) == 2  # only as many as the window has left
    release.set()
    await asyncio.gather(*tasks)
    assert len(admitted) == 5


async def test_what_fits_in_the_window_is_not_held_back_by_pacing() -> None:
    """Pacing spreads the window's sends only while more wants to go than the window
    has left (the senders waiting and what the caller announces it still holds)."""

    async def sends(queued: int) -> list[float]:
        clock = FakeClock(2_000_000_000.0)
        limiter = RateLimiter(8, sleep=clock.sleep, clock=clock)
        async with limiter.slot() as slot:  # the first answer: 10 left, 10 s to go
            slot.observe({"x-ratelimit-remaining": "10", "x-ratelimit-reset": "2000000010"})
        limiter.queued = queued
        times: list[float] = []

        async def one() -> None:
            async with limiter.slot():
                times.append(clock())

        await asyncio.gather(*(one() for _ in range(3)))
        return times

    assert len(set(await sends(queued=0))) == 1  # 3 fit in 10: all at once
    spread = await sends(queued=100)  # 103 want to go, 10 fit: one per second
    assert len(set(spread)) == 3 and min(b - a for a, b in itertools.pairwise(spread)) >= 0.9
