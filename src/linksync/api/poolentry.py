"""One request at a time between entering httpx's connection pool and holding a
connection of its own (the network path only).

httpcore 1.0's pool hands a new request the first idle connection, but that connection
stays idle until the request's task runs again and starts on it (two scheduler turns
later). A request that enters in between is handed the same connection, finds it taken
(``ConnectionNotAvailable``), and the pool runs its whole assignment pass again: a scan
of every connection that calls ``has_expired`` (a socket poll through anyio) on each idle
one and counts the connections once per idle one (encode/httpcore#1110 and #822 describe
the race; its cost is in docs/network.md).

The gate lets the next request enter the pool only once the previous one holds its
connection: httpcore reports that through the ``trace`` request extension (its first
event comes from a connection that is the request's own: ``connection.connect_tcp``
for a new one, ``http11.send_request_headers`` for a reused one), or when the request
ends (an error, a timeout). A request waiting for a connection of a full pool holds the
gate, which costs the ones behind it nothing: they would wait for a connection too.

Only for httpx's own transport: a given transport (the in-process sandbox, test fakes)
may send no trace events, and would then be held to one request at a time.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

#: The ``trace`` extension's callback: an event name and its details.
Trace = Callable[[str, dict[str, Any]], Awaitable[None]]


class PoolEntry:
    """``async with entry.enter(then) as extensions:`` around one request, handing
    ``extensions`` to httpx (``{"trace": ...}`` with the gate or ``then``, else ``{}``)."""

    __slots__ = ("_lock", "entered", "gate", "released_by_trace")

    def __init__(self, *, gate: bool = True) -> None:
        self.gate = gate
        self._lock = asyncio.Lock()
        #: Requests let in through the gate, and how many of them let the next one in
        #: on a trace event (the others held the gate until they ended).
        self.entered = 0
        self.released_by_trace = 0

    @asynccontextmanager
    async def enter(self, then: Trace | None = None) -> AsyncIterator[dict[str, Trace]]:
        """``then``: another trace callback, told of every event as well."""
        if not self.gate:
            yield {"trace": then} if then is not None else {}
            return
        lock = self._lock
        await lock.acquire()
        self.entered += 1
        held = True

        async def trace(name: str, info: dict[str, Any]) -> None:
            nonlocal held
            if held:
                held = False
                self.released_by_trace += 1
                lock.release()
            if then is not None:
                await then(name, info)

        try:
            yield {"trace": trace}
        finally:
            if held:
                held = False
                lock.release()
