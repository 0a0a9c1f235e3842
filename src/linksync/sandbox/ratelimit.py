"""Fixed-window rate limiting per API key (plain Python, injected clock).

Windows are aligned to multiples of the window length in Unix time, so every key's
window resets at the same instants: ``reset`` is the end of the current window.
Every request counts, including the ones answered 429.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RateDecision:
    allowed: bool
    limit: int
    remaining: int
    reset: int  # Unix seconds, end of the current window (rounded up)
    retry_after: int  # whole seconds to wait when not allowed, at least 1

    def headers(self) -> dict[str, str]:
        return {
            "x-ratelimit-limit": str(self.limit),
            "x-ratelimit-remaining": str(self.remaining),
            "x-ratelimit-reset": str(self.reset),
        }

    def raw_headers(self) -> list[tuple[bytes, bytes]]:
        """``headers()`` as an ASGI response's raw header list."""
        return [
            (b"x-ratelimit-limit", b"%d" % self.limit),
            (b"x-ratelimit-remaining", b"%d" % self.remaining),
            (b"x-ratelimit-reset", b"%d" % self.reset),
        ]


class FixedWindowLimiter:
    def __init__(self, limit: int, window_s: float, clock: Callable[[], float]) -> None:
        self.limit = limit
        self.window_s = window_s
        self._clock = clock
        self._lock = threading.Lock()
        self._windows: dict[str, tuple[int, int]] = {}  # key -> (window index, count)

    def hit(self, key: str) -> RateDecision:
        """Count one request of ``key`` and say whether it may proceed."""
        now = self._clock()
        index = math.floor(now / self.window_s)
        with self._lock:
            current, count = self._windows.get(key, (index, 0))
            if current != index:
                count = 0
            count += 1
            self._windows[key] = (index, count)
        end = (index + 1) * self.window_s
        allowed = count <= self.limit
        return RateDecision(
            allowed=allowed,
            limit=self.limit,
            remaining=max(0, self.limit - count),
            reset=math.ceil(end),
            retry_after=0 if allowed else max(1, math.ceil(end - now)),
        )
