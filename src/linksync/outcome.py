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
and a sentence that say what happened: ``exit_code_after_error``, ``stop_sentence``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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

#: Request kinds that change the workspace -> the word for one done.
_WRITE_OPS: dict[str, str] = {
    "POST /links": "created",
    "PATCH /links": "updated",
    "DELETE /links/:slug": "deleted",
}

#: Stop reasons (``Results.stopped_by``) -> what they mean for the rest of the run.
STOPS: dict[str, str] = {
    "UNAUTHORIZED": "the API key was refused (401 UNAUTHORIZED)",
    "FORBIDDEN": "the API key may not write (403 FORBIDDEN)",
    "INTERRUPTED": "the run was interrupted",
}


@dataclass(slots=True)
class RemoteWrites:
    """Writes of one run, counted as their answers arrive (mutable, one per run)."""

    done: dict[str, int] = field(default_factory=dict)
    unknown: int = 0

    def record(self, op: str, *, answered: bool = True) -> None:
        """Count one write request: ``answered`` when the service accepted it, else its
        outcome is unknown (sent, no answer)."""
        word = _WRITE_OPS.get(op)
        if word is None:
            return
        if answered:
            self.done[word] = self.done.get(word, 0) + 1
        else:
            self.unknown += 1

    @property
    def total(self) -> int:
        return sum(self.done.values())

    @property
    def any(self) -> bool:
        """Whether the workspace may have changed."""
        return self.total > 0 or self.unknown > 0

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
    if stopped_by in ("UNAUTHORIZED", "FORBIDDEN") and not writes.any:
        return EXIT_USAGE
    if failed or stopped_by is not None:
        return EXIT_ROWS_FAILED
    return EXIT_OK


def exit_code_after_error(code: int, writes: RemoteWrites) -> int:
    """The exit code of a run that ended in an error whose own code is ``code``: never 2
    (nothing done) once something was written."""
    if code == EXIT_USAGE and writes.any:
        return EXIT_ROWS_FAILED
    return code


def stop_sentence(
    writes: RemoteWrites, *, stopped_by: str | None, not_attempted: int
) -> str | None:
    """'Stopped: the API key may not write (403 FORBIDDEN) after 10 created; 5 rows not
    attempted.' (None when the run was not stopped)."""
    if stopped_by is None:
        return None
    why = STOPS.get(stopped_by, stopped_by)
    done = writes.describe() if writes.any else "nothing written"
    rows = f"; {not_attempted} row(s) not attempted" if not_attempted else ""
    return f"Stopped: {why}, after {done}{rows}."
