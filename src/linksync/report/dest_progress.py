"""The progress line of a destination check (``--check-destinations``) on stderr.

``DestinationProgress`` is the ``progress(done, total)`` callback of
``linksync.validate.destinations.check_urls``: on a terminal, once the check has gone
on for ``delay`` seconds (2 by default), a rich line "checking destinations ━━━ 340/2000"
shows how many distinct URLs have an answer; a short check shows nothing. Off a
terminal (CI logs, cron mail) it shows nothing at all: the run's summary line ("Checked
N destination URL(s) in X s") says the rest. ``close`` removes the line.

    shown = DestinationProgress()
    try:
        check_destinations(validation, progress=shown)
    finally:
        shown.close()
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
)

#: Seconds a destination check goes on before its progress line shows.
SHOW_AFTER_S = 2.0


class DestinationProgress:
    """The progress line of a destination check (see module docstring)."""

    def __init__(
        self,
        console: Console | None = None,
        *,
        delay: float = SHOW_AFTER_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.console = console or Console(stderr=True)
        self.delay = delay
        self.clock = clock
        self.started: float | None = None
        self.bar: Progress | None = None
        self.task = TaskID(0)
        self.lock = threading.Lock()

    @property
    def shown(self) -> bool:
        """Whether the line is on the terminal (the check went past ``delay``)."""
        return self.bar is not None

    def __call__(self, done: int, total: int) -> None:
        if not self.console.is_terminal:
            return
        with self.lock:
            now = self.clock()
            if self.started is None or done == 0:
                self.started = now
            if self.bar is None:
                if now - self.started < self.delay or done >= total:
                    return
                self.bar = Progress(
                    TextColumn("checking destinations"),
                    BarColumn(),
                    MofNCompleteColumn(),
                    console=self.console,
                    transient=True,
                )
                self.task = self.bar.add_task("destinations", total=total, completed=done)
                self.bar.start()
            self.bar.update(self.task, completed=done, total=total)

    def close(self) -> None:
        """Remove the line (a check that showed none: nothing to do)."""
        with self.lock:
            if self.bar is not None:
                self.bar.stop()
                self.bar = None
