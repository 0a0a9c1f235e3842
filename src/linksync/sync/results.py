"""What an apply returns: one ``RowResult`` per plan change and the facts of the run
(``Results``), and how the changes that send nothing turn into results
(``static_result``). Every row is built by ``RowResult.from_change``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from linksync.api import CallEvent
from linksync.model import Action, RemoteLink, RowResult, RunInfo, Status
from linksync.model.outcome import (
    EXIT_MEANINGS,
    EXIT_ROWS_FAILED,
    RemoteWrites,
    run_exit_code,
    stop_sentence,
)
from linksync.model.results import CallFacts
from linksync.safe.secrets import REDACTED
from linksync.sync.plan import Change, Plan

#: The mode of an undo's results (``RunInfo.mode``: ``linksync.pipeline.undoing``).
UNDO_MODE = "undo"

#: Seconds the client's shared rate limiter will still hold every request.
WaitFn = Callable[[], float]


class ProgressSink(Protocol):
    """Told about a run as it goes: ``start`` with the number of writes to send and how
    to ask the rate limiter's wait (seconds every request is still held, 0 when none),
    ``advance`` once per row result the moment it is final, ``finish`` at the end
    (``linksync.report.progress`` has the terminal ones, ``linksync.ui`` the page's)."""

    def start(self, total: int, wait: WaitFn) -> None: ...

    def advance(self, result: RowResult) -> None: ...

    def finish(self) -> None: ...


class CancelSignal(Protocol):
    """Asks a run to stop from any thread (a ``threading.Event`` is one): no new
    requests, those in flight finish, the results and reports are kept."""

    def is_set(self) -> bool: ...


@dataclass(frozen=True, slots=True, repr=False)
class Results:
    """What an apply did: one RowResult per plan change, in plan order; the run facts
    (``info``); what it wrote to the workspace (``writes``) and why it stopped early
    (``stopped_by``: a constant of the error table; ``interrupted`` after Ctrl-C or a
    cancel). The pipeline adds the files it wrote (``files``), the failed rows that
    also failed in the last run (``repeats``, of ``last_run_id``) and its warnings;
    ``confirmed`` is False when the plan was declined (nothing applied, no rows)."""

    rows: tuple[RowResult, ...]
    plan: Plan
    info: RunInfo
    journal: Path | None = None
    interrupted: bool = False
    stopped_by: str | None = None
    writes: RemoteWrites = field(default_factory=RemoteWrites)
    files: tuple[Path, ...] = ()
    repeats: tuple[RowResult, ...] = ()
    last_run_id: str | None = None
    warnings: tuple[str, ...] = ()
    confirmed: bool = True

    def __repr__(self) -> str:
        # Short: asyncio.run formats its main task, result included, when it puts
        # the SIGINT handler back (twice); a default repr of 100,000 rows took seconds.
        return (
            f"Results(run_id={self.run_id!r}, rows={len(self.rows)}, "
            f"stopped_by={self.stopped_by!r}, interrupted={self.interrupted})"
        )

    @property
    def run_id(self) -> str:
        return self.info.run_id or ""

    @property
    def duration_s(self) -> float:
        return self.info.duration_s

    @property
    def counts(self) -> dict[str, int]:
        c = Counter(r.status.value for r in self.rows)
        return {s.value: c.get(s.value, 0) for s in Status if s is not Status.PLANNED}

    @property
    def failed(self) -> tuple[RowResult, ...]:
        return tuple(r for r in self.rows if r.failed)

    @property
    def ok(self) -> bool:
        return not self.failed and not self.interrupted

    @property
    def not_attempted(self) -> int:
        """Rows the run never sent (it was stopped or interrupted first)."""
        return sum(1 for r in self.rows if r.not_attempted)

    @property
    def exit_code(self) -> int:
        """The exit code a command line gives this run (``linksync.model.outcome``)."""
        return run_exit_code(
            self.writes,
            failed=bool(self.failed) or self.not_undone > 0,
            interrupted=self.interrupted,
            stopped_by=self.stopped_by,
        )

    @property
    def not_undone(self) -> int:
        """An undo's rows left as they are (a link changed since the run, an expiry
        passed): links the run wrote that the undo did not set back. They make the
        undo's exit code 1: a rollback job must not read it as fully undone."""
        if self.info.mode != UNDO_MODE or self.info.dry_run:
            return 0
        return sum(1 for r in self.rows if r.status is Status.SKIPPED)

    @property
    def exit_meaning(self) -> str:
        """What ``exit_code`` means for this run, as the summary says it."""
        code, n = self.exit_code, self.not_undone
        if n and code == EXIT_ROWS_FAILED and not self.failed and self.stopped_by is None:
            links, left = ("link", "it is") if n == 1 else ("links", "they are")
            return f"not fully undone: {n} {links} the run wrote left as {left}"
        return EXIT_MEANINGS.get(code, "")

    @property
    def stop_sentence(self) -> str | None:
        """'Stopped: the API key may not write (403 FORBIDDEN), after 10 created; ...'."""
        return stop_sentence(
            self.writes, stopped_by=self.stopped_by, not_attempted=self.not_attempted
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "info": self.info.to_dict(),
            "journal": str(self.journal) if self.journal is not None else None,
            "interrupted": self.interrupted,
            "stopped_by": self.stopped_by,
            "writes": self.writes.to_dict(),
            "counts": self.counts,
            "plan_counts": self.plan.counts,
            "exit_code": self.exit_code,
            "files": [str(f) for f in self.files],
            "rows": [r.to_dict() for r in self.rows],
        }


def static_result(ch: Change) -> RowResult | None:
    """The result of a change that sends nothing (unchanged, invalid, skip, blocked)."""
    if ch.blocked_by is not None or ch.action is Action.INVALID:
        # A blocked write names the problem of its constant; an invalid row its first error.
        if ch.blocked_by is not None:
            err = next((p for p in ch.problems if p.constant == ch.blocked_by), None)
        else:
            err = ch.error
        return RowResult.from_change(
            ch,
            Status.FAILED if ch.blocked_by is not None else Status.INVALID,
            problem=err,
            constant=ch.blocked_by,
        )
    if ch.action is Action.UNCHANGED:
        return RowResult.from_change(ch, Status.OK)
    if ch.action is Action.SKIP:
        return RowResult.from_change(ch, Status.SKIPPED, message=ch.reason)
    if ch.payload.get("password") == REDACTED:
        return RowResult.from_change(
            ch,
            Status.FAILED,
            constant="PASSWORD_NOT_IN_PLAN",
            message="the saved plan does not hold link passwords; give the sources to "
            "apply --plan so they can be read from there",
        )
    return None


def ok_result(
    ch: Change,
    event: CallEvent,
    *,
    link: RemoteLink | None = None,
    action: Action | None = None,
    attempts: int | None = None,
) -> RowResult:
    """The result of a change whose call (``event``) succeeded."""
    return RowResult.from_change(
        ch,
        Status.OK,
        action=action,
        link=link if link is not None else event.link,
        call=CallFacts(
            event.status, event.request_id, event.attempts if attempts is None else attempts
        ),
    )
