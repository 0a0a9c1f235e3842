"""One shared rate limiter per client.

Three rules, all shared by every task that uses the client:

1. at most ``concurrency`` requests in flight (a semaphore);
2. one ``resume_at`` instant parks every task: it is set from ``Retry-After`` on a 429
   and from ``x-ratelimit-reset`` when ``x-ratelimit-remaining`` reaches 0, so a 429
   pauses every worker, not only the one that got it;
3. while the current window is known, a sender waits as long as ``remaining`` is not
   larger than the requests already in flight (each of them will use one).

The clock is wall time (``x-ratelimit-reset`` is a Unix time); clock and sleep are
injectable so tests run without real waiting.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass

from linksync.defaults import DEFAULT_CONCURRENCY

Sleep = Callable[[float], Awaitable[None]]
Clock = Callable[[], float]

#: Values of x-ratelimit-reset below this are read as seconds from now, not Unix time.
_RELATIVE_RESET_BELOW = 1_000_000_000.0


def _number(headers: Mapping[str, str], name: str) -> float | None:
    for k, v in headers.items():
        if k.lower() == name:
            try:
                return float(v.strip())
            except ValueError:
                return None
    return None


@dataclass(slots=True)
class LimiterState:
    """A snapshot for display and tests."""

    in_flight: int
    remaining: int | None
    reset_at: float | None
    resume_at: float


class RateLimiter:
    """Shared by every request of one client. Use ``async with limiter.slot() as slot``
    around one request, and ``slot.observe(status, headers)`` with its answer."""

    def __init__(
        self,
        concurrency: int = DEFAULT_CONCURRENCY,
        *,
        sleep: Sleep = asyncio.sleep,
        clock: Clock = time.time,
        max_reset_wait: float = 120.0,
    ) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.concurrency = concurrency
        self._sleep = sleep
        self._clock = clock
        self._max_reset_wait = max_reset_wait
        self._semaphore = asyncio.Semaphore(concurrency)
        self._changed = asyncio.Condition()
        self._in_flight = 0
        self._remaining: int | None = None
        self._reset_at: float | None = None
        self._resume_at = 0.0
        self.waited = 0.0
        self.pauses = 0

    def state(self) -> LimiterState:
        return LimiterState(self._in_flight, self._remaining, self._reset_at, self._resume_at)

    def pause(self, seconds: float) -> None:
        """Park every task for ``seconds`` from now (a 429's Retry-After)."""
        until = self._clock() + max(0.0, seconds)
        if until > self._resume_at:
            self._resume_at = until
            self.pauses += 1

    async def _admit(self) -> None:
        """Wait until this task may send, then count it in flight."""
        while True:
            now = self._clock()
            if self._resume_at > now:
                delay = self._resume_at - now
                self.waited += delay
                await self._sleep(delay)
                continue
            if self._exhausted(now):
                if self._in_flight == 0:
                    # Nothing in flight will bring news: wait for the window to end.
                    self._resume_at = max(self._resume_at, self._reset_at or now)
                    continue
                async with self._changed:
                    if self._exhausted(self._clock()) and self._in_flight > 0:
                        await self._changed.wait()
                continue
            self._in_flight += 1
            return

    def _exhausted(self, now: float) -> bool:
        """The known window has no request left beyond those already in flight."""
        return (
            self._remaining is not None
            and self._reset_at is not None
            and now < self._reset_at
            and self._remaining <= self._in_flight
        )

    async def _done(self, headers: Mapping[str, str] | None) -> None:
        self._in_flight -= 1
        if headers is not None:
            self._observe(headers)
        async with self._changed:
            self._changed.notify_all()

    def _observe(self, headers: Mapping[str, str]) -> None:
        now = self._clock()
        remaining = _number(headers, "x-ratelimit-remaining")
        reset = _number(headers, "x-ratelimit-reset")
        if reset is not None and reset < _RELATIVE_RESET_BELOW:
            reset = now + reset
        if reset is not None:
            reset = min(reset, now + self._max_reset_wait)
        if remaining is not None:
            rem = max(0, int(remaining))
            if reset is not None and (self._reset_at is None or reset > self._reset_at + 0.5):
                # A new window: its figure replaces the old one.
                self._remaining, self._reset_at = rem, reset
            elif self._remaining is None or self._reset_at is None or now >= self._reset_at:
                self._remaining, self._reset_at = rem, reset
            else:
                # Answers of one window arrive out of order: the smallest figure is newest.
                self._remaining = min(self._remaining, rem)
            if self._remaining == 0 and self._reset_at is not None:
                self._resume_at = max(self._resume_at, self._reset_at)

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[Slot]:
        async with self._semaphore:
            await self._admit()
            slot = Slot()
            try:
                yield slot
            finally:
                await self._done(slot.headers)


class Slot:
    """One admitted request; record its answer's headers with :meth:`observe`."""

    __slots__ = ("headers", "status")

    def __init__(self) -> None:
        self.headers: Mapping[str, str] | None = None
        self.status: int | None = None

    def observe(self, status: int, headers: Mapping[str, str]) -> None:
        self.status = status
        self.headers = headers
