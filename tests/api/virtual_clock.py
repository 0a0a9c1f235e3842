"""A virtual wall clock for tests of many concurrent tasks (importable from any test:
``from virtual_clock import VirtualClock``)."""

from __future__ import annotations

import asyncio
import heapq
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


class VirtualClock:
    """Virtual wall time for many tasks at once: ``sleep(d)`` waits until the clock reads
    now + d, and :meth:`run` moves the clock to the next wake-up only once every task has
    had its turn (so concurrent sleeps overlap, as real ones do). Give the same clock to
    the client and the sandbox: rate windows, latency and pacing then cost no real time.
    """

    #: Turns of the event loop given to ready tasks before time moves on.
    IDLE_TURNS = 4
    #: At most this many more turns while tasks are still ready.
    MAX_TURNS = 1_000

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start
        self._timers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._seq = 0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._timers, (self.now + seconds, self._seq, fut))
        self._seq += 1
        await fut

    async def run(self, coro: Awaitable[T]) -> T:
        """Run ``coro`` to its end, moving time whenever nothing else can run."""
        task = asyncio.ensure_future(coro)
        loop = asyncio.get_running_loop()
        while not task.done():
            for _ in range(self.IDLE_TURNS):
                await asyncio.sleep(0)
            # Then as long as some task is still ready to run (a chain of hand-overs,
            # one loop turn each): time moves only when nothing else can run. The
            # ready queue is CPython's; elsewhere the fixed turns above are all.
            for _ in range(self.MAX_TURNS):
                if not getattr(loop, "_ready", None):
                    break
                await asyncio.sleep(0)
            if task.done() or not self._timers:
                continue
            when, _, fut = heapq.heappop(self._timers)
            self.now = max(self.now, when)
            if not fut.done():
                fut.set_result(None)
        return task.result()
