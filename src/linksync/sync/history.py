"""What the last run left failing, read from its journal.

A scheduled job wants two things from the previous run: the rows that failed then are
retried first now (they are still in the plan, since nothing converged them), and the
summary says which of today's failures are repeats of yesterday's, so a persistent
problem stands out from a transient one.

A row is identified by its link (domain, slug) when it has a slug, else by where it
came from (source, sheet, row).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from linksync.model import LinkKey, Place, RowResult
from linksync.safe.outputs import is_journal_file
from linksync.sync.journal import DEFAULT_RUNS_DIR, iter_journal_lines, parse_record
from linksync.sync.plan import Change

#: A row's identity across runs: its link, else where it came from.
RowKey = LinkKey | Place

_FAILED = ("failed", "invalid")


def row_key(domain: str | None, slug: str | None, place: Place) -> RowKey:
    """The link (domain, slug) when the row names a slug, else its place in the sources."""
    return LinkKey.of(domain, slug) if slug else place


def result_key(result: RowResult) -> RowKey:
    return row_key(result.domain, result.slug, (result.source or "", result.sheet, result.row))


def change_key(change: Change) -> RowKey:
    p = change.provenance
    return row_key(change.domain, change.slug, p.place if p is not None else ("", None, None))


@dataclass(frozen=True, slots=True)
class LastRun:
    """The failing rows of the most recent finished-or-killed run against a target."""

    run_id: str
    failed: frozenset[RowKey]

    def is_repeat(self, result: RowResult) -> bool:
        return result.failed and result_key(result) in self.failed


def last_run(target: str, runs_dir: Path | str = DEFAULT_RUNS_DIR) -> LastRun | None:
    """The latest journal in ``runs_dir`` whose run was against ``target``, or None."""
    folder = Path(runs_dir)
    if not folder.is_dir():
        return None
    for path in sorted(folder.glob("*.jsonl"), reverse=True):
        # A file of the folder that is not a journal of this target (the user's own
        # data, another target's run) is passed over without reading it all.
        if not path.is_file() or not is_journal_file(path):
            continue
        try:
            found = _failed_results(path, target)
        except (OSError, UnicodeDecodeError):
            continue
        if found is None:
            continue
        failed = frozenset(result_key(RowResult.from_dict(r)) for r in found)
        return LastRun(path.stem, failed)
    return None


def _failed_results(path: Path, target: str) -> list[dict[str, Any]] | None:
    """The failed and invalid ``result`` records of a journal of ``target`` (None when
    it is not one). Only lines that hold one of those words are decoded: a run of
    100,000 rows leaves 200,000 lines, nearly all of them successes."""
    start: dict[str, Any] | None = None
    out: list[dict[str, Any]] = []
    for line in iter_journal_lines(path):
        if start is None:
            record = parse_record(line)
            if record is not None and record.get("event") == "start":
                if record.get("target") != target:
                    return None
                start = record
            continue
        if '"failed"' not in line and '"invalid"' not in line:
            continue
        record = parse_record(line)
        if record and record.get("event") == "result" and record.get("status") in _FAILED:
            out.append(record)
    return out if start is not None else None


def failed_first(
    items: Sequence[tuple[int, Change]], last: LastRun | None
) -> list[tuple[int, Change]]:
    """``items`` with the rows that failed last time first (stable otherwise)."""
    if last is None or not last.failed:
        return list(items)
    again = [it for it in items if change_key(it[1]) in last.failed]
    rest = [it for it in items if change_key(it[1]) not in last.failed]
    return again + rest


def repeats(results: Iterable[RowResult], last: LastRun | None) -> list[RowResult]:
    """Today's failed rows that also failed in ``last``."""
    if last is None:
        return []
    return [r for r in results if last.is_repeat(r)]
