"""What past runs did, read from their journals: what the last run left failing, and
what a run wrote (``read_run``, for ``linksync undo``).

A scheduled job wants two things from the previous run: the rows that failed then are
retried first now (they are still in the plan, since nothing converged them), and the
summary says which of today's failures are repeats of yesterday's, so a persistent
problem stands out from a transient one.

A row is identified by its link (domain, slug) when it has a slug, else by where it
came from (source, sheet, row).

A run to undo is found by its id (the journal ``<runs folder>/<id>.jsonl``, else the
journal of the folder whose ``start`` names it), by a journal's path, or as the latest
run against the target (``find_run``); ``read_run`` gives each link it wrote with what
the link held before and what the run left (``WrittenRow``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from linksync.errors import ConfigError
from linksync.model import Action, LinkKey, Place, Provenance, RowResult
from linksync.safe.outputs import is_journal_file
from linksync.sync.journal import (
    DEFAULT_RUNS_DIR,
    JOURNAL_FORMAT,
    iter_journal_lines,
    parse_record,
)
from linksync.sync.plan import WRITE_ACTIONS, Change

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


# --- what a run wrote (linksync undo) ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class WrittenRow:
    """One link a past run wrote, as its journal recorded it: what the row did
    (``action``: the result's), the link, where the row came from (``where``: 'links.csv,
    row 4'; None for a row of no source) and the link's ``before`` and ``after``
    (``linksync.sync.journal.WrittenLinks.undo_fields``; wire names)."""

    action: Action
    domain: str
    slug: str
    before: Mapping[str, Any] | None
    after: Mapping[str, Any] | None
    where: str | None = None


@dataclass(frozen=True, slots=True)
class PastRun:
    """A run read back from its journal (``read_run``): its id, target and journal,
    its result rows (``rows``), the links it wrote, and whether its journal records
    what they held before (``undoable``: a journal of an earlier version does not)."""

    run_id: str
    target: str
    path: Path
    rows: int
    written: tuple[WrittenRow, ...]
    undoable: bool
    #: Rows the run reported done (created, updated...) whatever the journal records.
    done: int = 0
    #: Links a write request of the run answered with success but whose row has no
    #: result in the journal (the run was killed before recording it): 'lnk.test/a'.
    unrecorded: tuple[str, ...] = ()


def _written(record: Mapping[str, Any]) -> WrittenRow | None:
    if "after" not in record or not record.get("slug"):
        return None
    where = None
    if record.get("source"):
        row = record.get("row")
        place = Provenance(str(record["source"]), record.get("sheet"), row if row else None)
        where = place.where()
    return WrittenRow(
        Action(record["action"]),
        str(record.get("domain") or ""),
        str(record["slug"]),
        record.get("before"),
        record.get("after"),
        where,
    )


_DONE = frozenset(a.value for a in WRITE_ACTIONS)


_WRITE_OPS = ("POST", "PATCH", "DELETE")
#: A run's records: its ``start``, its ``result`` records, its ``request`` records.
_RunRecords = tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]


def _runs_in(path: Path) -> Iterator[_RunRecords]:
    """Each run of a journal: its ``start`` record, its ``result`` records and its
    ``request`` records."""
    start: dict[str, Any] | None = None
    results: list[dict[str, Any]] = []
    requests: list[dict[str, Any]] = []
    for line in iter_journal_lines(path):
        record = parse_record(line)
        if record is None:
            continue
        event = record.get("event")
        if event == "start":
            if start is not None:
                yield start, results, requests
            start, results, requests = record, [], []
        elif start is not None and record.get("run") == start.get("run"):
            if event == "result":
                results.append(record)
            elif event == "request":
                requests.append(record)
    if start is not None:
        yield start, results, requests


def _unrecorded(
    requests: Iterable[Mapping[str, Any]], written: Iterable[WrittenRow]
) -> tuple[str, ...]:
    """The links of the successful write requests that no written row records."""
    known = {(w.domain, w.slug) for w in written} | {("", w.slug) for w in written}
    out: dict[str, None] = {}
    for r in requests:
        status, slug = r.get("status"), r.get("slug")
        if not slug or not isinstance(status, int) or not 200 <= status < 300:
            continue
        if not str(r.get("op") or "").startswith(_WRITE_OPS):
            continue
        domain = str(r.get("domain") or "")
        if (domain, str(slug)) not in known:
            out[f"{domain}/{slug}" if domain else str(slug)] = None
    return tuple(out)


def read_run(path: Path | str, run_id: str | None = None) -> PastRun:
    """The run ``run_id`` of the journal at ``path`` (None: its last run), with each
    link it wrote. ``ConfigError`` when the file is not a journal or has no such run."""
    path = Path(path)
    shown = str(path)
    if not path.is_file() or not is_journal_file(path) or path.stat().st_size == 0:
        raise ConfigError(f"{shown} is not a linksync journal (nothing done)")
    try:
        runs = list(_runs_in(path))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the journal {shown}: {exc}") from None
    chosen = [r for r in runs if run_id is None or r[0].get("run") == run_id]
    if not chosen:
        what = f"run {run_id}" if run_id else "run"
        raise ConfigError(f"the journal {shown} holds no {what} (nothing done)")
    start, results, requests = chosen[-1]
    written = tuple(w for w in map(_written, results) if w is not None)
    done = sum(1 for r in results if r.get("status") == "ok" and r.get("action") in _DONE)
    return PastRun(
        run_id=str(start.get("run") or ""),
        target=str(start.get("target") or ""),
        path=path,
        rows=len(results),
        written=written,
        undoable=int(start.get("format") or 1) >= JOURNAL_FORMAT,
        done=done,
        unrecorded=_unrecorded(requests, written),
    )


def _journals(folder: Path) -> list[Path]:
    """The journals of ``folder``, newest name first."""
    if not folder.is_dir():
        return []
    found = (p for p in folder.glob("*.jsonl") if p.is_file() and is_journal_file(p))
    return sorted(found, reverse=True)


def _start_of(path: Path) -> dict[str, Any] | None:
    """The first ``start`` record of a journal (None when it has none in its first lines)."""
    try:
        for n, line in enumerate(iter_journal_lines(path)):
            record = parse_record(line)
            if record is not None and record.get("event") == "start":
                return record
            if n > 100:
                return None
    except (OSError, UnicodeDecodeError):
        return None
    return None


def _not_an_undo(path: Path, target: str) -> None:
    """``--last`` names the latest run; when that run is itself an undo (a second click
    on undo, or a second ``undo --last``), undoing it would bring back what the first
    undo set back: refused, naming the run to give when that is meant."""
    start = _start_of(path) or {}
    if start.get("undoes"):
        run = start.get("run")
        raise ConfigError(
            f"the latest run against {target}, {run}, is the undo of run {start['undoes']}: "
            f"undoing it would bring back what it set back. To do that, name it: "
            f"linksync undo {run} (nothing done)"
        )


def find_run(
    run: str | os.PathLike[str] | None, target: str, runs_dir: Path | str = DEFAULT_RUNS_DIR
) -> tuple[Path, str | None]:
    """The journal of ``run`` and the run's id in it (None: the journal's last run):
    a journal's path, a run id (``<runs_dir>/<id>.jsonl``, else the journal of
    ``runs_dir`` whose ``start`` names it), or None for the latest run against
    ``target`` (the journal whose run started last). ``ConfigError`` (nothing done)
    when there is none."""
    folder = Path(runs_dir)
    if run is None:
        latest = max(
            (
                (str(start.get("ts") or ""), path.stat().st_mtime_ns, path)
                for path in _journals(folder)
                if (start := _start_of(path)) is not None and start.get("target") == target
            ),
            default=None,
        )
        if latest is None:
            raise ConfigError(f"no run against {target} has a journal in {folder} (nothing done)")
        _not_an_undo(latest[2], target)
        return latest[2], None
    text = os.fspath(run)
    given = Path(text)
    if given.is_file() or text.endswith(".jsonl") or os.sep in text or "/" in text:
        if not given.is_file():
            raise ConfigError(f"no journal at {text} (nothing done)")
        return given, None
    named = folder / f"{text}.jsonl"
    if named.is_file():  # a page run's journal is named by the page's run id
        start = _start_of(named)
        return named, text if start is not None and start.get("run") == text else None
    for path in _journals(folder):
        start = _start_of(path)
        if start is not None and start.get("run") == text:
            return path, text
    raise ConfigError(
        f"no journal of run {text} in {folder}: give the journal's path (the run's "
        "--journal), or the run id its summary printed (nothing done)"
    )
