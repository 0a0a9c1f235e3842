"""What a run from the command line shows on stderr as it goes (``CliEvents``): the
sources' problems, a wait for the lock, the plan, the confirmation on a terminal. Both
the one-target commands (``cli.sync``, ``cli.apply``) and the commands over several
targets (``cli.all_targets``) use it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from linksync.cli.common import err, fail
from linksync.model import Problem
from linksync.pipeline.events import RunEvents

if TYPE_CHECKING:
    from linksync.pipeline.lock import LockHolder
    from linksync.report.dest_progress import DestinationProgress
    from linksync.sync.plan import Plan


class CliEvents(RunEvents):
    """What a run shows on stderr; the confirmation on a terminal (``yes``: none)."""

    #: The confirmation's question, of the number of changes it sends.
    question = "Apply {} changes?"

    def __init__(self, *, yes: bool = True, prefix: str = "") -> None:
        self.yes = yes
        #: Before each problem, warning and notice (``[brand-a] `` for a target of several).
        self.prefix = prefix
        self.destinations: DestinationProgress | None = None

    def checking(self, done: int, total: int) -> None:
        """A progress line on a terminal past a few seconds (``DestinationProgress``),
        removed when the last URL has its answer."""
        if self.destinations is None:
            from linksync.report.dest_progress import DestinationProgress  # rich: only now

            self.destinations = DestinationProgress()
        self.destinations(done, total)
        if done >= total:
            self.destinations.close()

    def problems(self, problems: Sequence[Problem]) -> None:
        for p in problems:
            err(f"{self.prefix}{p.severity.value}: {p.where()}: {p.constant}: {p.message}")

    def lock_wait(self, holder: LockHolder | None, seconds: float) -> None:
        who = holder.describe() if holder else "another run"
        err(f"waiting up to {seconds:g} s for the lock held by {who}")

    def planned(self, plan: Plan) -> None:
        from linksync.report import render_plan_text

        err(render_plan_text(plan))

    def confirm(self, plan: Plan) -> bool:
        if self.yes:
            return True
        if not sys.stdin.isatty():
            fail("no terminal to confirm on: pass --yes to apply without asking")
        return click.confirm(self.question.format(len(plan.writes)), default=False, err=True)

    def note(self, text: str) -> None:
        err(text)

    def warning(self, text: str) -> None:
        err(f"{self.prefix}Warning: {text}")

    def notice(self, text: str) -> None:
        err(f"{self.prefix}{text}")
