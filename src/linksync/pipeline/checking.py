"""Checking a run's sources without a request to the target: what the web page's
Check step shows, in one call.

``check`` reads and validates the sources as ``linksync.plan`` and ``linksync.apply``
read them (``load_specs``: the same readers, the same ``--map`` mapping over the
profile's ``columns:``, the same rules, the profile's default domain under the one
given) and returns plain values: every problem with the value of its cell as read
(after any ``--fix-invisible``), the counts, and the column preview of each sheet
(``linksync.sources.preview``)::

    checked = check(["campaign.xlsx"], settings, Reading(mapping={"Approved by": "ignore"}))
    checked.counts["invalid"], checked.sheets[0].columns[0].how

With ``Reading(check_destinations=True)`` (or the profile's ``check_destinations:``)
each destination URL is requested once first and the findings (DEST_*) are problems
of their rows like the others; ``checked.notes`` says how many URLs and how long. No
request goes to the target either way.

A file that cannot be read at all raises ``SourceError``, as a run does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from os import PathLike
from typing import TYPE_CHECKING

from linksync.config import Settings
from linksync.model import Problem
from linksync.pipeline.inputs import SourceReading, load_specs, sync_options
from linksync.pipeline.request import Reading, SyncPolicy

if TYPE_CHECKING:
    from linksync.sources.frame import SpecFrame
    from linksync.sources.preview import SheetPreview


@dataclass(frozen=True, slots=True)
class CellProblem:
    """A problem and the value of its cell as read (None: no cell, or an empty one)."""

    problem: Problem
    value: object = None


@dataclass(frozen=True)
class Checked:
    """What ``check`` found: the problems in source order, the counts (``rows``,
    ``valid``, ``invalid``, ``errors``, ``warnings``), the columns of each sheet and the
    notes of the checks made (a destination check's "Checked N destination URL(s)...")."""

    problems: tuple[CellProblem, ...]
    counts: Mapping[str, int]
    sheets: tuple[SheetPreview, ...] = field(default=())
    notes: tuple[str, ...] = field(default=())


class _Cells:
    """The value of a problem's cell, from the links as read (after any fix)."""

    def __init__(self, frames: Sequence[SpecFrame]) -> None:
        self.frames = {(f.source, f.sheet): f for f in frames}
        self.rows: dict[tuple[str, str | None], dict[int, int]] = {}

    def value(self, problem: Problem) -> object:
        p = problem.provenance
        if p is None or p.row is None or problem.field is None:
            return None
        frame = self.frames.get((p.source, p.sheet))
        if frame is None or problem.field not in frame.values:
            return None
        key = (p.source, p.sheet)
        if key not in self.rows:
            self.rows[key] = {int(r): i for i, r in enumerate(frame.rows.tolist())}
        index = self.rows[key].get(p.row)
        return frame.values[problem.field][index] if index is not None else None


def check(
    sources: Sequence[str | PathLike[str]],
    settings: Settings,
    reading: Reading | None = None,
    *,
    default_domain: str | None = None,
) -> Checked:
    """Read and validate ``sources`` with ``reading`` over the profile's reading
    options and ``default_domain`` over the profile's; preview their columns."""
    from linksync.sources.frame import column_lines
    from linksync.sources.preview import preview

    domain = sync_options(SyncPolicy(default_domain=default_domain), settings).default_domain
    read = SourceReading.for_target(reading, settings)
    validation = load_specs(sources, read, default_domain=domain)
    cells = _Cells(validation.frames)
    invalid = len(validation.invalid)
    counts = {
        "rows": validation.total,
        "valid": validation.total - invalid,
        "invalid": invalid,
        "errors": len(validation.errors),
        "warnings": len(validation.warnings),
    }
    problems = tuple(CellProblem(p, cells.value(p)) for p in validation.problems)
    sheets = tuple(preview(sources, read.reading.mapping, workbook_password=read.workbook_password))
    mapping = set(column_lines(validation.frames))  # the page shows the columns itself
    notes = tuple(n for n in validation.notes if n not in mapping)
    return Checked(problems, counts, sheets, notes)
