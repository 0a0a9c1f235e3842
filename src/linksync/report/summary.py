"""Counts of a run's results, and the summary printed at the end of every run.

:class:`Tally` accumulates counts as results arrive (constant memory: counters plus one
example row per error constant); :meth:`Tally.counts` freezes them into :class:`Counts`.
:func:`render_summary` turns counts and run facts into the terminal text: what became of
the rows (``outcome``: created, updated, ... failed), counts by action and status, the
top error constants with one example row each, where the reports were written and what
the exit code means.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from linksync.errors.advice import advice_for
from linksync.model import Action, RowResult, RunInfo, Status
from linksync.report.cells import link_label, where
from linksync.safe.terminal import printable

#: How many error constants the terminal summary lists.
TOP_ERRORS = 5

#: What became of a row (``outcome``), in the order the summary names them.
OUTCOMES: tuple[str, ...] = (
    "created",
    "updated",
    "replaced",
    "deleted",
    "retired",
    "unchanged",
    "invalid",
    "skipped",
    "failed",
    "planned",
)
_DONE = {
    Action.CREATE: "created",
    Action.UPDATE: "updated",
    Action.REPLACE: "replaced",
    Action.DELETE: "deleted",
    Action.RETIRE: "retired",
    Action.UNCHANGED: "unchanged",
    Action.INVALID: "invalid",
    Action.SKIP: "skipped",
}


def outcome(action: Action, status: Status) -> str:
    """What became of a row: its action done ('created', 'updated', ... when ``ok``),
    'invalid', 'skipped', 'failed', or 'planned' (a plan's write; its unchanged rows
    are 'unchanged')."""
    if status is Status.OK:
        return _DONE[action]
    if status is Status.PLANNED:
        return "unchanged" if action is Action.UNCHANGED else "planned"
    if status is Status.INVALID:
        return "invalid"
    return "skipped" if status is Status.SKIPPED else "failed"


@dataclass(frozen=True, slots=True)
class ErrorCount:
    """One error constant: how many rows carry it, and the first of them."""

    constant: str
    count: int
    example: RowResult

    def to_dict(self) -> dict[str, Any]:
        return {
            "constant": self.constant,
            "count": self.count,
            "example": {
                "where": where(self.example),
                "link": link_label(self.example) or None,
                "message": self.example.message,
            },
        }


@dataclass(frozen=True, slots=True)
class Counts:
    """Counts of a set of results. Mappings are in the order of ``Action`` / ``Status``
    / ``OUTCOMES`` (only values that occur); ``errors`` by count (descending), then
    constant. ``by_outcome``: what became of the rows (``outcome``)."""

    total: int = 0
    by_action: Mapping[str, int] = field(default_factory=dict)
    by_status: Mapping[str, int] = field(default_factory=dict)
    by_action_status: Mapping[tuple[str, str], int] = field(default_factory=dict)
    errors: tuple[ErrorCount, ...] = ()
    by_outcome: Mapping[str, int] = field(default_factory=dict)

    @property
    def failed(self) -> int:
        """Rows failed or invalid."""
        return self.by_status.get(Status.FAILED, 0) + self.by_status.get(Status.INVALID, 0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "by_outcome": {o: self.by_outcome.get(o, 0) for o in OUTCOMES},
            "by_action": dict(self.by_action),
            "by_status": dict(self.by_status),
            "by_action_status": {
                action: {s: n for (a, s), n in self.by_action_status.items() if a == action}
                for action in self.by_action
            },
            "errors": [e.to_dict() for e in self.errors],
        }


class Tally:
    """Accumulates counts as results arrive; memory does not grow with the rows."""

    def __init__(self) -> None:
        self._pairs: Counter[tuple[Action, Status]] = Counter()
        self._errors: Counter[str] = Counter()
        self._examples: dict[str, RowResult] = {}

    def add(self, result: RowResult) -> None:
        self._pairs[(result.action, result.status)] += 1
        constant = result.error_constant
        if constant:
            self._errors[constant] += 1
            self._examples.setdefault(constant, result)

    def count(
        self,
        action: Action,
        status: Status,
        constant: str | None = None,
        row: Callable[[], RowResult] | None = None,
        *,
        times: int = 1,
    ) -> None:
        """``add`` of a row not built (``times`` rows alike): ``row()`` builds it only
        when it is the first of its error constant (the example the summary shows)."""
        if times <= 0:
            return
        self._pairs[(action, status)] += times
        if constant:
            self._errors[constant] += times
            if constant not in self._examples and row is not None:
                self._examples[constant] = row()

    def counts(self) -> Counts:
        # The pairs in the order of Action, then Status.
        pairs = {(a, s): self._pairs[a, s] for a in Action for s in Status if self._pairs[a, s]}
        by_action: Counter[Action] = Counter()
        by_status: Counter[Status] = Counter()
        by_outcome: Counter[str] = Counter()
        for (action, status), n in pairs.items():
            by_action[action] += n
            by_status[status] += n
            by_outcome[outcome(action, status)] += n
        errors = sorted(self._errors.items(), key=lambda kv: (-kv[1], kv[0]))
        return Counts(
            total=sum(pairs.values()),
            by_action={a.value: by_action[a] for a in Action if by_action[a]},
            by_status={s.value: by_status[s] for s in Status if by_status[s]},
            by_action_status={(a.value, s.value): n for (a, s), n in pairs.items()},
            errors=tuple(ErrorCount(c, n, self._examples[c]) for c, n in errors),
            by_outcome={o: by_outcome[o] for o in OUTCOMES if by_outcome[o]},
        )


def count_results(results: Iterable[RowResult]) -> Counts:
    """Counts of ``results`` (one pass)."""
    tally = Tally()
    for result in results:
        tally.add(result)
    return tally.counts()


def safe_target(target: str) -> str:
    """A target URL fit to print: user info (``user:key@``) and query string removed.
    What follows the URL (`` (profile staging)``) is kept: it is no part of the port."""
    target, space, after = target.partition(" ")
    try:
        parts = urlsplit(target)
    except ValueError:
        return target + space + after
    if not parts.scheme or not parts.netloc:
        return target + space + after
    host = parts.hostname or ""
    try:
        port = parts.port
    except ValueError:  # not a number, or out of range: show none
        port = None
    if port is not None:
        host = f"{host}:{port}"
    return urlunsplit((parts.scheme, host, parts.path, "", "")) + space + after


def run_title(counts: Counts, info: RunInfo) -> str:
    """'plan' when nothing was applied (dry run, or every row only planned), 'undo' for
    an undo (``linksync undo``), else 'apply'."""
    if info.mode == "undo" and not info.dry_run:
        return "undo"
    planned = counts.by_status.get(Status.PLANNED, 0)
    applied = counts.total - planned - counts.by_status.get(Status.INVALID, 0)
    return "plan" if info.dry_run or (planned and not applied) else "apply"


def outcome_sentence(counts: Counts) -> str:
    """'2 created, 1 updated, 1 unchanged, 1 invalid' (what occurs, in ``OUTCOMES`` order)."""
    return ", ".join(f"{n} {o}" for o, n in counts.by_outcome.items()) or "no rows"


def _status_breakdown(counts: Counts, action: str) -> str:
    parts = [f"{s} {n}" for (a, s), n in counts.by_action_status.items() if a == action]
    return f" ({', '.join(parts)})" if len(parts) > 1 or (parts and action != "unchanged") else ""


def render_summary(
    counts: Counts,
    info: RunInfo,
    report_paths: Sequence[str | Path] = (),
    exit_code: int | None = None,
    exit_meaning: str | None = None,
) -> str:
    """The end-of-run summary for the terminal, as plain text in a deterministic order."""
    lines: list[str] = []
    mode = f"mode {info.mode}" + (", dry run" if info.dry_run else "")
    title = run_title(counts, info)
    lines.append(f"linksync {title}: {safe_target(info.target)} ({mode})")
    if counts.total == 0:
        lines.append("Rows: none")
    else:
        lines.append(f"Rows: {counts.total}")
        said = outcome_sentence(counts)
        lines.append(f"{'Planned' if title == 'plan' else 'Done'}: {said}")
        width = max(len(a) for a in counts.by_action)
        for action, n in counts.by_action.items():
            lines.append(f"  {action:<{width}} {n:>7}{_status_breakdown(counts, action)}")
        lines.append("Status: " + ", ".join(f"{s} {n}" for s, n in counts.by_status.items()))
    if info.requests or info.rate_limit_waits or info.duration_s:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(info.requests_by_kind.items()))
        kinds = f" ({kinds})" if kinds else ""
        lines.append(
            f"Requests: {info.requests}{kinds}; 429 waits: {info.rate_limit_waits}; "
            f"duration {info.duration_s:.1f} s"
        )
    shown = counts.errors[:TOP_ERRORS]
    if shown:
        lines.append("Top errors:")
        cwidth = max(len(e.constant) for e in shown)
        for e in shown:
            example = e.example
            label = link_label(example)
            place = where(example)
            label = f" [{label}]" if label and label != place else ""
            message = " ".join((example.message or "").split())
            detail = f": {message}" if message else ""
            lines.append(
                f"  {e.constant:<{cwidth}} x{e.count:<6} e.g. {where(example)}{label}{detail}"
            )
            advice = advice_for(e.constant)
            if advice:
                lines.append(f"  {'':<{cwidth}} what to change: {advice}")
        rest = len(counts.errors) - len(shown)
        if rest > 0:
            lines.append(f"  ... and {rest} more error constants")
    if report_paths:
        lines.append("Reports:")
        lines.extend(f"  {p}" for p in report_paths)
    if exit_code is not None:
        meaning = f": {exit_meaning}" if exit_meaning else ""
        lines.append(f"Exit code {exit_code}{meaning}")
    # Safe for a terminal: a message must not move the cursor, change colours or reorder
    # the text in the user's terminal.
    return "\n".join(printable(" ".join(line.split("\n"))) for line in lines)
