"""Reading what a linksync run leaves behind: the JSON/JSONL report and the journal."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

FAILED_STATUSES = ("failed", "invalid")


@dataclass(frozen=True, slots=True)
class Report:
    """A per-row report written by ``linksync apply --report FILE`` (.json or .jsonl)."""

    rows: tuple[dict[str, Any], ...]
    run_info: dict[str, Any] | None

    @property
    def by_status(self) -> dict[str, int]:
        return dict(sorted(Counter(str(r.get("status")) for r in self.rows).items()))

    @property
    def failed(self) -> int:
        return sum(1 for r in self.rows if r.get("status") in FAILED_STATUSES)

    def slugs(self) -> set[str]:
        return {str(r.get("slug") or "").lower() for r in self.rows if r.get("slug")}


def _is_row(obj: Any) -> bool:
    return isinstance(obj, dict) and "status" in obj and "action" in obj


def read_report(path: Path) -> Report:
    """Rows and run facts of a JSON report (a list of rows, or an object holding one)
    or a JSONL report (one row per line, run facts on a line of their own)."""
    text = path.read_text(encoding="utf-8")
    rows: list[dict[str, Any]] = []
    info: dict[str, Any] | None = None
    if path.suffix == ".jsonl":
        for line in text.splitlines():
            if not line.strip():
                continue
            obj = json.loads(line)
            if _is_row(obj):
                rows.append(obj)
            elif isinstance(obj, dict):
                info = obj.get("run", obj)
        return Report(tuple(rows), info)
    doc = json.loads(text)
    if isinstance(doc, list):
        return Report(tuple(r for r in doc if _is_row(r)), None)
    for key in ("rows", "results", "items"):
        if isinstance(doc.get(key), list):
            rows = [r for r in doc[key] if _is_row(r)]
            break
    for key in ("run", "summary", "info", "run_info"):
        if isinstance(doc.get(key), dict):
            info = doc[key]
            break
    return Report(tuple(rows), info)


WRITE_OPS = ("POST ", "PATCH ", "DELETE ")


@dataclass(frozen=True, slots=True)
class Journal:
    """One run journal (``.linksync/runs/*.jsonl``, see ``linksync.sync.journal``).

    ``answered_writes``: ``request`` events of POST/PATCH/DELETE calls that got an HTTP
    answer (a status), in order. ``results``: the ``result`` events (report rows).
    ``planned_writes``: the write count of the ``start`` event. ``started`` /
    ``ended``: Unix times of the ``start`` and ``end`` events (None when absent)."""

    answered_writes: tuple[dict[str, Any], ...]
    results: tuple[dict[str, Any], ...]
    planned_writes: int | None
    started: float | None = None
    ended: float | None = None

    def answered_ok_slugs(self) -> set[str]:
        return {
            str(e.get("slug") or "").lower()
            for e in self.answered_writes
            if isinstance(e.get("status"), int) and 200 <= e["status"] < 300
        }


def read_journal(path: Path) -> Journal:
    """Read a journal leniently: a killed run may leave a torn last line."""
    writes: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    planned: int | None = None
    started = ended = None
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return Journal((), (), None)
    for line in text.splitlines():
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(obj, dict):
            continue
        event = obj.get("event")
        if event == "request" and str(obj.get("op", "")).startswith(WRITE_OPS):
            if obj.get("status") is not None:
                writes.append(obj)
        elif event == "result":
            results.append(obj)
        elif event == "start":
            started = _instant(obj.get("ts"))
            if isinstance(obj.get("writes"), int):
                planned = obj["writes"]
        elif event == "end":
            ended = _instant(obj.get("ts"))
    return Journal(tuple(writes), tuple(results), planned, started, ended)


def _instant(ts: Any) -> float | None:
    """'2026-03-01T02:00:00.123Z' -> Unix seconds."""
    if not isinstance(ts, str):
        return None
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None
