"""One worker pool for the sync engine: the executor's writes, the remote fetch's reads
(slugs one by one, pages of a listing), the AI enrichment.

``run_pool(items, fn, size)`` calls ``fn`` on every item, at most ``size`` at once, the
items taken in order (a worker takes the next item as soon as it is free), so the
client's shared rate limiter, not the pool, decides the pace. The first failure cancels
the other workers, waits for them, and is raised as it is (not as a group).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


async def run_pool(
    items: Iterable[T],
    fn: Callable[[T], Awaitable[None]],
    size: int,
    *,
    queued: Callable[[int], None] | None = None,
) -> None:
    """``fn(item)`` for every item, at most ``size`` at once (see module docstring).
    ``queued`` is told how many items are still waiting each time one is taken (the
    client's pacing hint, ``set_queued``), and 0 at the end."""
    queue = list(items)
    queue.reverse()

    async def worker() -> None:
        while queue:
            item = queue.pop()
            if queued is not None:
                queued(len(queue))
            await fn(item)

    try:
        await gather_or_cancel([worker() for _ in range(max(1, min(size, len(queue))))])
    finally:
        if queued is not None:
            queued(0)


async def gather_or_cancel(coros: Sequence[Coroutine[Any, Any, None]]) -> None:
    """Run ``coros`` together; on the first failure cancel the others, wait for them,
    and raise that failure (a plain exception, not a group)."""
    tasks = [asyncio.ensure_future(c) for c in coros]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
