"""Seeded fault injection: latency, dropped connections, 503 before the work, 500
before the work, 500 after a successful write (the write happened: for testing a
client's confirm-before-retry logic).

One ``random.Random(seed)`` draws the same five numbers for every request, in order,
so a run with the same seed and the same request order sees the same faults.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass

from linksync.sandbox.settings import SandboxSettings


@dataclass(frozen=True, slots=True)
class FaultPlan:
    latency_s: float = 0.0
    drop: bool = False
    fail_503: bool = False
    fail_500: bool = False
    fail_500_after_write: bool = False


NO_FAULT = FaultPlan()


class Faults:
    def __init__(self, settings: SandboxSettings) -> None:
        self._s = settings
        self._rng = random.Random(settings.seed)
        self._lock = threading.Lock()
        self.enabled = settings.has_faults

    def draw(self) -> FaultPlan:
        """The faults of the next request (NO_FAULT without drawing when disabled)."""
        if not self.enabled:
            return NO_FAULT
        s = self._s
        with self._lock:
            lo, hi = s.latency_ms
            latency = self._rng.uniform(lo, hi) / 1000.0
            drop = self._rng.random() < s.drop
            fail_503 = self._rng.random() < s.fail_503
            fail_500 = self._rng.random() < s.fail_500
            after = self._rng.random() < s.fail_500_after_write
        return FaultPlan(latency, drop, fail_503, fail_500, after)
