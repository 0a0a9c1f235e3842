"""What a run is to the page, and the progress it shows.

A run the page starts is a ``RunSource``: something that does its work in a worker
thread, tells a ``RunFeed`` how far it got, watches a cancel event, writes its files
into the folder it is given, and returns a ``RunOutcome``. The apply of the library
is such a source: its ``run`` calls ``linksync.apply(files, reports=[folder / ...],
reads=uploads, on_progress=feed, cancel=cancel)``, after ``linksync.plan`` showed the
plan on the page (``apply(plan=planned.plan)`` then applies exactly that plan).
``RunFeed`` is a progress sink of the sync engine (``ProgressSink``:
``start(total, wait)`` / ``advance(result)`` / ``finish()``).

The page reads ``ProgressSnapshot`` values: done/total, failed, not attempted, the
rate, an estimate of the time left, and the seconds of a rate-limit pause still to
wait (the ``wait`` the engine hands ``start``: the client's shared limiter), which the
page shows as its own "waiting for the rate limit" state.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

from linksync.report.progress import PlainProgress, no_wait
from linksync.sync.results import WaitFn


class RunState(StrEnum):
    RUNNING = "running"
    WAITING = "waiting"  # running, paused by the service's rate limit
    CANCELLING = "cancelling"  # cancel asked: no new requests, those in flight finish
    FINISHED = "finished"
    CANCELLED = "cancelled"
    FAILED = "failed"  # the run raised: its message says why
    INTERRUPTED = "interrupted"  # the server stopped while the run was going

    @property
    def over(self) -> bool:
        return self in _OVER


_OVER = frozenset({RunState.FINISHED, RunState.CANCELLED, RunState.FAILED, RunState.INTERRUPTED})
#: A rate-limit pause shorter than this is not shown.
_SHOWN_WAIT_S = 0.05


@dataclass(frozen=True, slots=True)
class ProgressSnapshot:
    """How far a run is, as the page shows it."""

    state: RunState
    done: int = 0
    total: int = 0
    failed: int = 0
    not_attempted: int = 0
    rate: float | None = None  # rows per second since the start
    eta_s: float | None = None  # seconds left at that rate
    wait_s: float = 0.0  # seconds of a rate-limit pause still to wait
    message: str | None = None  # what the run is doing, in words ("planning")

    def to_dict(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "state": self.state.value,
            "rate": round(self.rate, 2) if self.rate is not None else None,
            "eta_s": round(self.eta_s, 1) if self.eta_s is not None else None,
            "wait_s": round(self.wait_s, 1),
        }


class RunFeed(PlainProgress):
    """The progress sink of a page run: counts as the plain progress lines do, and
    hands out snapshots instead of printing. Fed from the run's thread, read from the
    server's; ``version`` changes with every change a page should see."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(every=0.0, clock=clock)
        self.version = 0
        self.message: str | None = None

    def note(self, message: str | None) -> None:
        """Say what the run is doing ("planning", "writing the reports")."""
        self.message = message
        self.version += 1

    def start(self, total: int, wait: WaitFn = no_wait) -> None:
        super().start(total, wait)
        self.version += 1

    def _emit(self, now: float) -> None:
        self.version += 1

    def finish(self) -> None:
        self.version += 1

    def snapshot(self, state: RunState = RunState.RUNNING) -> ProgressSnapshot:
        now = self._clock()
        elapsed = now - self._t0
        rate = self.done / elapsed if self.done and elapsed > 0 else None
        left = self.total - self.done - self.skipped
        eta = left / rate if rate and left > 0 and not state.over else None
        wait = self._wait() if not state.over else 0.0
        if state is RunState.RUNNING and wait > _SHOWN_WAIT_S:
            state = RunState.WAITING
        return ProgressSnapshot(
            state=state,
            done=self.done,
            total=self.total,
            failed=self.failed,
            not_attempted=self.skipped,
            rate=rate,
            eta_s=eta,
            wait_s=wait if wait > _SHOWN_WAIT_S else 0.0,
            message=self.message,
        )


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """How a run ended: one line for the page, the exit code a CLI run would have
    given, and the names of the files it wrote in its folder (the page's downloads)."""

    summary: str
    exit_code: int
    files: tuple[str, ...] = ()
    cancelled: bool = False


class RunSource(Protocol):
    """A run the page can start (see module docstring). ``kind`` names it on the page
    ("apply"). ``run`` is called once, in a worker thread; it must stop soon after
    ``cancel`` is set (no new requests; those in flight finish) and still return an
    outcome with the files written so far. A source with a ``say(text)`` method words
    the error of a failed run with it (the page's words: file names, its controls)."""

    kind: str

    def run(self, feed: RunFeed, cancel: threading.Event, folder: Path) -> RunOutcome: ...
