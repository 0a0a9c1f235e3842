"""Progress of an apply on stderr: a rich bar on a terminal (done/total, rate, ETA and
the current rate-limit wait), plain periodic lines otherwise (CI logs, cron mail), JSON
``progress`` events with ``--log-format json``.

"Applied" counts the rows that were attempted. Rows a stopped or interrupted run never
sent (skipped with NOT_ATTEMPTED) are counted apart, so after Ctrl-C the last line says
what was applied, not the total."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from functools import cache
from typing import IO, TYPE_CHECKING, Any

from linksync.logs import get_logger, log_event
from linksync.model import RowResult, Status
from linksync.sync.results import WaitFn

if TYPE_CHECKING:
    from rich.console import Console


def no_wait() -> float:
    """The rate-limit wait of a sink before the run starts: none."""
    return 0.0


@cache
def _columns() -> tuple[type[Any], type[Any]]:
    """The bar's own columns (the rate-limit wait, the rate), made on first use: rich
    is loaded only when a bar is shown (a run without a terminal never loads it)."""
    from rich.progress import ProgressColumn, Task
    from rich.text import Text

    class WaitColumn(ProgressColumn):
        def __init__(self) -> None:
            super().__init__()
            self.wait: WaitFn = no_wait

        def render(self, task: Task) -> Text:
            w = self.wait()
            return Text(f"rate-limit wait {w:.1f}s" if w > 0.05 else "", style="yellow")

    class RateColumn(ProgressColumn):
        def render(self, task: Task) -> Text:
            speed = task.finished_speed or task.speed
            return Text(f"{speed:.1f}/s" if speed else "", style="cyan")

    return WaitColumn, RateColumn


class RichProgress:
    """A live bar on a terminal (stderr)."""

    def __init__(self, console: Console | None = None) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TaskProgressColumn,
            TextColumn,
            TimeRemainingColumn,
        )

        wait_column, rate_column = _columns()
        self._wait_column = wait_column()
        self._progress = Progress(
            TextColumn("applying"),
            BarColumn(),
            MofNCompleteColumn(),
            TaskProgressColumn(),
            rate_column(),
            TimeRemainingColumn(),
            TextColumn("{task.fields[failed]} failed{task.fields[skipped]}"),
            self._wait_column,
            console=console or Console(stderr=True),
            transient=False,
        )
        self._task: Any = None
        self._failed = 0
        self._skipped = 0

    def start(self, total: int, wait: WaitFn = no_wait) -> None:
        self._wait_column.wait = wait
        self._progress.start()
        self._task = self._progress.add_task("apply", total=total, failed=0, skipped="")

    def advance(self, result: RowResult) -> None:
        if result.not_attempted:
            self._skipped += 1
        elif result.status is Status.FAILED:
            self._failed += 1
        if self._task is not None:
            self._progress.update(
                self._task,
                advance=0 if result.not_attempted else 1,
                failed=self._failed,
                skipped=f", {self._skipped} not attempted" if self._skipped else "",
            )

    def finish(self) -> None:
        self._progress.stop()


class PlainProgress:
    """One line every ``every`` seconds and a last one at the end."""

    def __init__(
        self,
        out: IO[str] | None = None,
        every: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._wait: WaitFn = no_wait
        self._out = out
        self._every = every
        self._clock = clock
        self.total = 0
        self.done = 0
        self.failed = 0
        self.skipped = 0
        self._t0 = 0.0
        self._last = 0.0

    def start(self, total: int, wait: WaitFn = no_wait) -> None:
        self.total = total
        self._wait = wait
        self._t0 = self._last = self._clock()

    def advance(self, result: RowResult) -> None:
        if result.not_attempted:
            self.skipped += 1
            return
        self.done += 1
        if result.status is Status.FAILED:
            self.failed += 1
        now = self._clock()
        if now - self._last >= self._every:
            self._last = now
            self._emit(now)

    def finish(self) -> None:
        if self.total:
            self._emit(self._clock())

    def line(self, now: float) -> str:
        elapsed = max(now - self._t0, 1e-9)
        rate = self.done / elapsed
        left = self.total - self.done - self.skipped
        eta = f", ETA {left / rate:.0f}s" if rate > 0 and left else ""
        wait = self._wait()
        waiting = f", waiting {wait:.1f}s for the rate limit" if wait > 0.05 else ""
        skipped = f", {self.skipped} not attempted" if self.skipped else ""
        return (
            f"applied {self.done}/{self.total} ({rate:.1f}/s{eta}), {self.failed} failed"
            f"{skipped}{waiting}"
        )

    def _emit(self, now: float) -> None:
        out = self._out or sys.stderr
        out.write(self.line(now) + "\n")
        out.flush()


class LogProgress(PlainProgress):
    """``progress`` events through the ``linksync`` logger (for ``--log-format json``)."""

    def _emit(self, now: float) -> None:
        log_event(
            get_logger(),
            "progress",
            applied=self.done,
            total=self.total,
            failed=self.failed,
            not_attempted=self.skipped,
            line=self.line(now),
        )


def progress_for(*, json_log: bool = False) -> RichProgress | PlainProgress:
    """A bar on a terminal, plain lines otherwise, JSON events with ``json_log``."""
    if json_log:
        return LogProgress()
    if sys.stderr.isatty():
        return RichProgress()
    return PlainProgress()
