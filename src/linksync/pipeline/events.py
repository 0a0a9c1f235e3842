"""What a front end is told while a run goes, and how it confirms the plan.

``RunEvents`` does nothing (and confirms every plan): a scheduler passes none. A front
end subclasses it and overrides what it shows: the command line prints the sources'
file-level problems, the plan and the warnings on stderr and asks on a terminal; the
web page keeps them for the page. The methods are called in the thread that runs the
run, in this order: ``checking`` (only while destinations are checked),
``problems`` (after reading the sources), ``lock_wait`` (only when
another run holds the lock and the run waits for it), ``planned`` (the plan about to
be applied), ``confirm`` (only when the plan has writes), ``warning`` and ``notice`` (any number).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from linksync.model import Problem

if TYPE_CHECKING:  # annotations only: a command's --help loads neither the lock nor the engine
    from linksync.pipeline.lock import LockHolder
    from linksync.sync.plan import Plan


class RunEvents:
    """The events of a run (see module docstring); every method does nothing here."""

    def checking(self, done: int, total: int) -> None:
        """A destination check goes on: ``done`` of ``total`` distinct URLs have a
        verdict (called with 0 first, then after each URL; from the check's own thread when
        the run's thread runs an event loop)."""

    def problems(self, problems: Sequence[Problem]) -> None:
        """The problems of the sources that belong to no row (errors and warnings)."""

    def lock_wait(self, holder: LockHolder | None, seconds: float) -> None:
        """Another run holds the lock: this one waits up to ``seconds`` for it."""

    def planned(self, plan: Plan) -> None:
        """The plan the run is about to apply (nothing was written yet)."""

    def confirm(self, plan: Plan) -> bool:
        """Whether to apply ``plan`` (it has writes): False applies nothing."""
        return True

    def note(self, text: str) -> None:
        """A line about a check the run made (a destination check: how many URLs, how
        long), after ``problems``."""

    def warning(self, text: str) -> None:
        """Something the run could not do for one row or file, and went on."""

    def notice(self, text: str) -> None:
        """What the run did beside the sync (the alerts sent: "notified 1 of 1 (json)")."""
