"""Exit codes, and what a run wrote remotely: the facts an exit code must not contradict.

    0    all rows fine
    1    some rows invalid or failed, or the run stopped after writing something
    2    usage, config or auth error, or another run holds the lock: nothing was written
    3    ``--detailed-exitcode``: the plan has pending changes
    130  interrupted (Ctrl-C): the summary says what was applied before

Exit code 2 promises that the workspace was not changed. ``RemoteWrites`` counts the
writes the service accepted while a run goes (and the writes whose outcome is unknown:
sent, never answered), so every way a run can end (401/403 in the middle, a report
that cannot be written, any error after some links were created) is turned into a code
and a sentence that say what happened: ``run_exit_code``, ``stop_sentence`` (an error
after a write is ``linksync.errors.StoppedAfterWrites``: exit 1, never 2).
``exit_code_for`` is the code of an error that ended a run, by its type.

A run over several targets (``linksync.apply_all``) exits with ``combined_exit_code``:
the worst code of its targets, in the order 130 > 2 > 1 > 3 > 0, where 2 keeps its
promise: it is the combined code only when no target wrote anything. A target that
failed with 2 while another target wrote makes the run 1 (something failed, something
was written). ``error_constant`` names the error that ended a target.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from linksync.errors import (
    ERRORS,
    AccessError,
    ApiError,
    ConfigError,
    FileProblems,
    InterruptedAfterWrites,
    LockError,
    MirrorRefused,
    NetworkSetupError,
    SavedPlanMismatch,
    SourceError,
    Stop,
    StoppedAfterWrites,
    UnsafePlanError,
)
from linksync.model import Severity

EXIT_OK = 0
EXIT_ROWS_FAILED = 1
EXIT_USAGE = 2
EXIT_CHANGES_PENDING = 3
EXIT_INTERRUPTED = 130

EXIT_MEANINGS: dict[int, str] = {
    EXIT_OK: "all rows fine",
    EXIT_ROWS_FAILED: "some rows invalid or failed",
    EXIT_USAGE: "usage, config or auth error (nothing done)",
    EXIT_CHANGES_PENDING: "the plan has pending changes (--detailed-exitcode)",
    EXIT_INTERRUPTED: "interrupted",
}

#: Calls that change the workspace (``CallEvent.kind``) -> the word for one done.
_WRITE_OPS: dict[str, str] = {
    "POST /links": "created",
    "PATCH /links/:slug": "updated",
    "DELETE /links/:slug": "deleted",
}


@dataclass(slots=True)
class RemoteWrites:
    """Writes of one run, counted as their answers arrive (mutable, one per run)."""

    done: dict[str, int] = field(default_factory=dict)
    unknown: int = 0

    def record(self, kind: str, *, answered: bool = True) -> None:
        """Count one call of ``kind`` (reads are not counted): ``answered`` when the
        service accepted it, else its outcome is unknown (sent, no answer)."""
        word = _WRITE_OPS.get(kind)
        if word is None:
            return
        if answered:
            self.done[word] = self.done.get(word, 0) + 1
        else:
            self.unknown += 1

    @property
    def any(self) -> bool:
        """Whether the workspace may have changed."""
        return bool(self.done) or self.unknown > 0

    def describe(self) -> str:
        """'10 created, 2 updated' / 'nothing written' (+ ', 1 of unknown outcome')."""
        parts = [f"{self.done[w]} {w}" for w in ("created", "updated", "deleted") if w in self.done]
        if self.unknown:
            parts.append(f"{self.unknown} sent without an answer (outcome unknown)")
        return ", ".join(parts) if parts else "nothing written"

    def to_dict(self) -> dict[str, int]:
        return {**{w: self.done.get(w, 0) for w in ("created", "updated", "deleted")},
                "unknown": self.unknown}  # fmt: skip


def run_exit_code(
    writes: RemoteWrites, *, failed: bool, interrupted: bool, stopped_by: str | None
) -> int:
    """The exit code of a finished apply."""
    if interrupted:
        return EXIT_INTERRUPTED
    stops = ERRORS[stopped_by].stops if stopped_by in ERRORS else None
    if stops in (Stop.RUN, Stop.WRITES) and not writes.any:
        return EXIT_USAGE
    if failed or stopped_by is not None:
        return EXIT_ROWS_FAILED
    return EXIT_OK


def stop_sentence(
    writes: RemoteWrites, *, stopped_by: str | None, not_attempted: int
) -> str | None:
    """'Stopped: the API key may not write (403 FORBIDDEN) after 10 created; 5 rows not
    attempted.' (None when the run was not stopped)."""
    if stopped_by is None:
        return None
    known = ERRORS.get(stopped_by)
    why = (known.stop_reason if known is not None else None) or stopped_by
    done = writes.describe() if writes.any else "nothing written"
    rows = f"; {not_attempted} row(s) not attempted" if not_attempted else ""
    return f"Stopped: {why}, after {done}{rows}."


#: What ended a run, by the error's type (the first that matches): its exit code and
#: its constant. An API error's constant is its own; other errors exit 1.
_ENDINGS: tuple[tuple[type[BaseException], int, str], ...] = (
    (InterruptedAfterWrites, EXIT_INTERRUPTED, "INTERRUPTED"),
    (StoppedAfterWrites, EXIT_ROWS_FAILED, "UNEXPECTED_ERROR"),
    (FileProblems, EXIT_ROWS_FAILED, "FILE_ERROR"),
    (SavedPlanMismatch, EXIT_USAGE, "PLAN_MISMATCH"),
    (ConfigError, EXIT_USAGE, "CONFIG_ERROR"),
    (LockError, EXIT_USAGE, "LOCK_HELD"),
    (MirrorRefused, EXIT_USAGE, "MIRROR_REFUSED"),
    (UnsafePlanError, EXIT_USAGE, "UNSAFE_PLAN"),
    (SourceError, EXIT_USAGE, "FILE_ERROR"),
    (OSError, EXIT_USAGE, "FILE_ERROR"),
)


def exit_code_for(exc: BaseException) -> int:
    """The exit code (this module's table) for an error that ended a run, by its type: 2 only
    when nothing was written (a usage, config or auth error, a lock held, an unsafe
    plan, a file that cannot be used before any request)."""
    if isinstance(exc, AccessError | NetworkSetupError):  # the key refused, or no way in
        return EXIT_USAGE
    return next((code for kind, code, _ in _ENDINGS if isinstance(exc, kind)), EXIT_ROWS_FAILED)


def error_constant(exc: BaseException) -> str:
    """The constant of the error table naming what ended a run: the service's constant
    of an API error (also as the cause of ``StoppedAfterWrites``), the first file-level
    error of ``FileProblems``, else the local constant of the error's type."""
    if isinstance(exc, StoppedAfterWrites) and exc.__cause__ is not None:
        return error_constant(exc.__cause__)
    if isinstance(exc, ApiError):
        return exc.constant
    if isinstance(exc, FileProblems):
        errors = [p for p in exc.problems if p.severity is Severity.ERROR]
        return errors[0].constant if errors else "FILE_ERROR"
    return next((name for kind, _, name in _ENDINGS if isinstance(exc, kind)), "UNEXPECTED_ERROR")


def combined_exit_code(outcomes: Iterable[tuple[int, bool]]) -> int:
    """The exit code of a run over several targets from each target's ``(exit code,
    whether it wrote to its workspace)`` (see the module docstring)::

        130  a target was interrupted
        2    a target failed with 2 and no target wrote anything
        1    a target failed (1, or 2 while another target wrote)
        3    a target's plan has pending changes (--detailed-exitcode)
        0    every target fine
    """
    items = list(outcomes)
    codes = {code for code, _ in items}
    wrote = any(w for _, w in items)
    if EXIT_INTERRUPTED in codes:
        return EXIT_INTERRUPTED
    if EXIT_USAGE in codes and not wrote:
        return EXIT_USAGE
    if codes & {EXIT_USAGE, EXIT_ROWS_FAILED}:
        return EXIT_ROWS_FAILED
    if EXIT_CHANGES_PENDING in codes:
        return EXIT_CHANGES_PENDING
    return EXIT_OK
