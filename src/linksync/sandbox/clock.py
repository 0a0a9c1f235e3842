"""Clocks for the sandbox: Unix seconds as a float. ``ManualClock`` lets tests move
time (expiry, rate windows) without sleeping."""

from __future__ import annotations

import threading


class ManualClock:
    """A clock that only moves when told. Call it to read the time."""

    def __init__(self, start: float = 1_767_225_600.0) -> None:  # 2026-01-01T00:00:00Z
        self._now = start
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> float:
        with self._lock:
            self._now += seconds
            return self._now

    def set(self, now: float) -> None:
        with self._lock:
            self._now = now
