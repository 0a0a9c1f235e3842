"""The rate limiter's cap on requests in flight (rule 3 of ``api/limiter.py``).

Little's law: the requests in flight a client needs are its rate times the latency of
an answer. At 100 requests a second and 30 ms that is about 3; opening 64 connections
for it only hurts a server with a small listen backlog (Python's ``http.server`` queues
5), which drops the SYNs of a burst and has TCP send them again after 1, 3, 7 s.

- **The target** is ``rate x latency x 2 + 4``, never above the ceiling
  (``--concurrency``) nor below 2. The rate is the service's long-run rate (the limiter
  gives it: the limit over the window's length); the latency is a moving average of
  answer times plus twice their moving deviation (as TCP estimates a round trip: about
  the slowest of recent answers). Without a rate (no rate headers) the target is the
  ceiling.
- **Growth**: the cap is 4 after the first answer and grows by at most 1 per answer
  (TCP's slow start: at most doubling per round trip); it falls to the target at once.
- **New connections a few at a time**: the transport reuses idle connections first,
  and keeps them about 5 s (``api/aio.KEEPALIVE_EXPIRY``, httpx's ``keepalive_expiry``,
  and uvicorn's keep-alive timeout): so a send that takes the requests in flight to a level
  they have not been at in the last 5 s needs a new connection. At most 4 of those go
  in any 10 ms, since answers read together (a busy machine), or a rise after a quiet
  spell whose connections were closed, would otherwise let in a batch.
"""

from __future__ import annotations

import math
from collections import deque

#: The cap after the first answer, its floor, and its growth per answer.
START = 4
FLOOR = 2
GROWTH = 1
#: Headroom over rate x latency: x HEADROOM + SPARE.
HEADROOM = 2.0
SPARE = 4
#: At most NEW_AT_ONCE sends that need a new connection in any NEW_SPAN seconds.
NEW_AT_ONCE = 4
NEW_SPAN = 0.010
#: A level of requests in flight not reached for this long has no idle connection left.
WARM = 5.0
#: Weights of a new answer time in the moving average and in the moving deviation
#: (TCP's smoothed round-trip time: 1/8 and 1/4).
LATENCY_WEIGHT = 0.125
DEVIATION_WEIGHT = 0.25


class InFlightCap:
    """How many requests may be in flight now (``value``), learned from the answers."""

    __slots__ = ("_deviation", "_latency", "_opened", "_reached", "ceiling", "most", "value")

    def __init__(self, ceiling: int) -> None:
        self.ceiling = ceiling
        self.value = 1  # until the first answer (the limiter's rule 2)
        self.most = 0  # the most requests in flight at once so far
        self._latency: float | None = None  # moving average of answer times
        self._deviation = 0.0  # moving average of their distance to it
        self._opened: deque[float] = deque(maxlen=NEW_AT_ONCE)  # the last new connections
        #: When each level of requests in flight (the index) was last reached or left:
        #: the connection that serves it has been idle since.
        self._reached = [-math.inf] * (ceiling + 2)

    def latency(self) -> float | None:
        """The latency the cap is computed with (seconds; None before any answer)."""
        if self._latency is None:
            return None
        return self._latency + 2 * self._deviation

    def target(self, rate: float | None) -> int:
        """rate x latency with headroom, within [FLOOR, ceiling] (the ceiling without a
        rate: then slow start alone bounds the growth)."""
        latency = self.latency()
        if rate is None or latency is None:
            return self.ceiling
        needed = math.ceil(rate * latency * HEADROOM) + SPARE
        return min(self.ceiling, max(FLOOR, needed))

    def answered(self, seconds: float, rate: float | None) -> None:
        """An answer came ``seconds`` after its request was let go; ``rate`` is the
        service's long-run rate (requests a second; None: not known)."""
        if self._latency is None:
            self._latency, self._deviation = seconds, seconds / 2
        else:
            self._deviation += DEVIATION_WEIGHT * (abs(seconds - self._latency) - self._deviation)
            self._latency += LATENCY_WEIGHT * (seconds - self._latency)
        grown = max(self.value + GROWTH, START)
        self.value = max(1, min(self.target(rate), grown))

    def _needs_connection(self, level: int, now: float) -> bool:
        return now - self._reached[min(level, len(self._reached) - 1)] > WARM

    def opening_delay(self, in_flight: int, now: float) -> float:
        """Seconds to wait before one more request may go with ``in_flight`` already
        out (0: now): only a send that needs a new connection may have to wait."""
        if len(self._opened) < NEW_AT_ONCE or not self._needs_connection(in_flight + 1, now):
            return 0.0
        return max(0.0, self._opened[0] + NEW_SPAN - now)

    def sent(self, in_flight: int, now: float) -> None:
        """A request went; ``in_flight`` counts it."""
        if self._needs_connection(in_flight, now):
            self._opened.append(now)
        self._reached[min(in_flight, len(self._reached) - 1)] = now
        self.most = max(self.most, in_flight)

    def released(self, in_flight: int, now: float) -> None:
        """A request ended; ``in_flight`` no longer counts it (its connection went idle)."""
        self._reached[min(in_flight + 1, len(self._reached) - 1)] = now
