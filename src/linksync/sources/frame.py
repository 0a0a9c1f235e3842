"""SpecFrame: the desired links of one sheet or file, held as columns.

A million ``LinkSpec`` objects take seconds to build in CPython (about 9 s measured on
the 2-core machine), longer than reading the CSV itself. So readers produce columns
(one object array per field, None where the source sets nothing) and validation works
on those columns; ``LinkSpec`` objects are built only when someone asks for them
(``iter_specs()``), e.g. by the planner.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain, repeat
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from linksync.model import LINK_FIELDS, LinkSpec, Problem, Provenance
from linksync.model.numbers import shared, shared_ints
from linksync.model.utm_rules import UtmRules

if TYPE_CHECKING:
    from linksync.sources.column_report import ColumnReport


def _none_array(n: int) -> np.ndarray:
    return np.full(n, None, dtype=object)


def _shared_none(n: int) -> np.ndarray:
    """One read-only array of None for every field a sheet has no column for (a field
    the sheet sets nothing of costs no memory of its own; a fix makes its own copy)."""
    arr = _none_array(n)
    arr.flags.writeable = False
    return arr


def _none_mask(n: int) -> np.ndarray:
    return np.zeros(n, dtype=bool)


#: Rows turned into ``LinkSpec`` objects at a time (``SpecFrame.iter_specs``).
_BLOCK = 8192


@dataclass(frozen=True, slots=True)
class Stripped:
    """A cell that becomes part of the destination URL (a ``utm_*`` column, a column
    read as the query) whose invisible characters the reader took out before merging
    it: validation makes it an error (INVALID_URL, as in the URL column), or with
    ``--fix-invisible`` a warning. ``index`` is the row's index in the frame, ``value``
    the cell as read."""

    index: int
    field: str
    column: str
    value: str


@dataclass(frozen=True, eq=False)
class SpecFrame:
    """Columnar desired links of one sheet (or one YAML file).

    ``values[f]`` is an object array (None where the source sets nothing) for every
    field of ``LINK_FIELDS``. ``managed[f]`` says which rows set the field; for
    spreadsheets it is simply "the cell is not empty", for YAML a key set to ``null``
    is managed with a None value. ``rows`` are 1-based rows as the user sees them.
    ``provenances`` is given when each row has its own column map (YAML); otherwise
    one shared ``columns`` map serves every row. ``row_problems`` are findings of the
    reader about a row (index in this frame), e.g. a YAML value of the wrong shape.
    """

    source: str
    sheet: str | None
    rows: np.ndarray
    values: Mapping[str, np.ndarray]
    managed: Mapping[str, np.ndarray]
    columns: Mapping[str, str] = field(default_factory=dict)
    provenances: Sequence[Provenance] | None = None
    row_problems: tuple[tuple[int, Problem], ...] = ()
    #: ``managed[f]`` is exactly "``values[f]`` is not None" (spreadsheet frames).
    managed_is_set: bool = False
    #: The zone its date-times without one were read in (``Provenance.timezone``).
    timezone: str | None = None
    #: The UTM rules of a YAML file's ``defaults: utm_rules:`` (over the profile's).
    utm_rules: UtmRules | None = None
    #: A YAML file's ``defaults: ignore:`` entries (``linksync.model.ignore_rules``): the
    #: links the run leaves alone. A file that declares no link but these has a frame of
    #: no rows.
    ignore: tuple[str, ...] = ()
    #: URL-part cells whose invisible characters were taken out (``Stripped``).
    stripped: tuple[Stripped, ...] = ()
    #: The column mapping the sheet was read with (spreadsheets; ``validate`` and
    #: ``plan`` print it).
    column_report: ColumnReport | None = None

    def __len__(self) -> int:
        return len(self.rows)

    @classmethod
    def from_columns(
        cls,
        source: str,
        sheet: str | None,
        rows: np.ndarray,
        values: Mapping[str, np.ndarray],
        columns: Mapping[str, str],
        row_problems: tuple[tuple[int, Problem], ...] = (),
        *,
        managed: Mapping[str, np.ndarray] | None = None,
        timezone: str | None = None,
    ) -> SpecFrame:
        """A spreadsheet frame: a field is managed where its value is not None
        (``managed`` gives that mask for fields whose caller knows it already)."""
        n = len(rows)
        nothing = _shared_none(n) if len(values) < len(LINK_FIELDS) else None
        unset = _none_mask(n)  # read-only, shared by the fields the sheet has no column for
        unset.flags.writeable = False
        full = {f: values[f] if f in values or nothing is None else nothing for f in LINK_FIELDS}
        known = managed or {}
        masks = {
            f: known[f] if f in known else (not_none(full[f]) if f in values else unset)
            for f in LINK_FIELDS
        }
        return cls(
            source,
            sheet,
            np.asarray(rows, dtype=np.int64),
            full,
            masks,
            MappingProxyType(dict(columns)),
            None,
            row_problems,
            True,
            timezone,
        )

    @classmethod
    def from_specs(
        cls,
        specs: Sequence[LinkSpec],
        row_problems: tuple[tuple[int, Problem], ...] = (),
        *,
        source: str = "",
        sheet: str | None = None,
    ) -> SpecFrame:
        """A frame over ready-made specs (YAML, or specs built in Python)."""
        n = len(specs)
        values: dict[str, np.ndarray] = {}
        managed: dict[str, np.ndarray] = {}
        for f in LINK_FIELDS:
            arr = _none_array(n)
            arr[:] = [getattr(s, f) for s in specs] if n else []
            values[f] = arr
            managed[f] = np.fromiter((f in s.managed for s in specs), dtype=bool, count=n)
        provs = [s.provenance or Provenance(source, sheet) for s in specs]
        rows = np.fromiter(
            ((p.row if p.row is not None else -1) for p in provs), dtype=np.int64, count=n
        )
        return cls(source, sheet, rows, values, managed, {}, provs, row_problems)

    def provenance(self, i: int) -> Provenance:
        if self.provenances is not None:
            return self.provenances[i]
        return Provenance(self.source, self.sheet, int(self.rows[i]), self.columns, self.timezone)

    def iter_specs(self) -> Iterator[LinkSpec]:
        return chain.from_iterable(self.spec_blocks())

    def spec_blocks(self) -> Iterator[list[LinkSpec]]:
        """The ``LinkSpec`` of every row, in lists of a block of rows (``iter_specs``
        without a Python step per row)."""
        # Managed sets repeat: build each distinct one once, keyed by a bit pattern (of
        # the fields some rows set and others not; those all rows set are one bit each).
        n = len(self)
        every, some = 0, []
        for bit, f in enumerate(LINK_FIELDS):
            if self.managed[f].all():
                every |= 1 << bit
            elif self.managed[f].any():
                some.append(bit)
        code = np.full(n, every, dtype=np.int64)
        for bit in some:
            code |= self.managed[LINK_FIELDS[bit]].astype(np.int64) << bit
        cache: dict[int, frozenset[str]] = {}
        for c in np.flatnonzero(np.bincount(code)).tolist() if some else [every]:
            cache[c] = frozenset(f for b, f in enumerate(LINK_FIELDS) if c >> b & 1)
        cols = [self.values[f] for f in LINK_FIELDS]
        # A field no row sets (a spreadsheet without its column): None on every row,
        # given as such rather than read out of the column a block at a time.
        unset = [self.managed_is_set and not self.managed[f].any() for f in LINK_FIELDS]
        # A block of rows at a time: the columns' lists of a million rows at once would
        # cost more than the specs themselves, for a moment. Each row's records are made
        # by ``map`` (no Python frame a row): its managed set, its provenance, its spec.
        for start in range(0, n, _BLOCK):
            end = min(n, start + _BLOCK)
            lists = [
                repeat(None) if none else col[start:end].tolist()
                for col, none in zip(cols, unset, strict=True)
            ]
            managed = (  # one managed set for every row (the usual sheet): no lookup a row
                map(cache.__getitem__, code[start:end].tolist()) if some else repeat(cache[every])
            )
            if self.provenances is not None:
                provs: Iterable[Provenance] = self.provenances[start:end]
            else:  # as ``provenance(i)`` makes them, the rows' numbers read a block at once
                rows = _shared_rows(self.rows[start:end])  # one object a number
                provs = map(
                    Provenance, repeat(self.source), repeat(self.sheet), rows,
                    repeat(self.columns), repeat(self.timezone),
                )  # fmt: skip
            yield list(map(LinkSpec, *lists, managed, provs))

    def with_values(self, field_name: str, values: np.ndarray) -> SpecFrame:
        """A copy with one field's values replaced (managed unchanged)."""
        new_values = dict(self.values)
        new_values[field_name] = values
        return replace(self, values=new_values, managed_is_set=False)

    def is_set(self, field_name: str) -> np.ndarray:
        """Per row: the field has a value (not None)."""
        if self.managed_is_set:
            return self.managed[field_name]
        return not_none(self.values[field_name])


def _shared_rows(rows: np.ndarray) -> Iterable[int]:
    """``shared`` of a block of row numbers; a run of consecutive ones (a sheet without
    empty rows) as a slice of the shared numbers, with no number made and dropped."""
    first = int(rows[0]) if len(rows) else -1
    if first >= 0 and int(rows[-1]) - first == len(rows) - 1 and (np.diff(rows) == 1).all():
        return shared_ints(first + len(rows))[first : first + len(rows)]
    return shared(rows.tolist())


def column_lines(frames: Iterable[SpecFrame]) -> tuple[str, ...]:
    """The column mapping line of each frame read from a sheet (YAML frames have
    none): what ``linksync.validate`` adds to its notes, for ``validate`` and ``plan``
    to print."""
    return tuple(f.column_report.line() for f in frames if f.column_report is not None)


def not_none(arr: np.ndarray) -> np.ndarray:
    """Per value: not None, for the columns readers make (text, tuples or None):
    faster than ``pd.notna``, which also looks for NaN in every value."""
    out: np.ndarray = arr != None  # noqa: E711 (elementwise)
    return out


@dataclass(frozen=True)
class UnknownColumn:
    """A column no field claimed, reported once per sheet."""

    source: str
    sheet: str | None
    header: str


@dataclass
class ReadResult:
    """What one reader made of one file: frames (one per sheet), file-level problems
    (warnings included) and the unknown columns."""

    frames: list[SpecFrame] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    unknown: list[UnknownColumn] = field(default_factory=list)

    def add(self, other: ReadResult) -> None:
        self.frames.extend(other.frames)
        self.problems.extend(other.problems)
        self.unknown.extend(other.unknown)
