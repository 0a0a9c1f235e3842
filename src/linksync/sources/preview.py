"""The column preview of a run's sources: for each sheet, the header row the readers
detect and what each column feeds (and why), with a few example values.

It asks the readers' own functions (``find_header`` for the header row under any title
rows, ``match_columns`` for the aliases and the ``--map`` mapping), so what it shows is
what a run reads. The cells are read again here only for the examples: call it after
the readers read the sources once (``linksync.pipeline.checking.check`` does), so a
workbook bomb or a file they cannot read was refused before this module opens it.

    sheets = preview(["campaign.xlsx"], {"Approved by": "ignore"})
    sheets[0].header_rows        # (3, 3): row 3 of the sheet
    sheets[0].columns[0].field   # "url"
    sheets[0].columns[0].how     # How.ALIAS
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from os import PathLike
from pathlib import Path
from typing import Any

from linksync.model.links import column_letter
from linksync.sources.columns import (
    ColumnMatch,
    compile_mapping,
    match_columns,
    normalize_header,
)
from linksync.sources.csv_reader import decode_sample, sniff_header
from linksync.sources.encoding import detect_encoding
from linksync.sources.encrypted import decrypt_workbook, is_encrypted_workbook
from linksync.sources.excel_cells import cell_text
from linksync.sources.header import find_header
from linksync.sources.named import shown_name
from linksync.sources.options import CSV_SAMPLE_BYTES

__all__ = ["EXAMPLES", "EXAMPLE_WIDTH", "ColumnPreview", "How", "SheetPreview", "preview"]

#: Example values shown per column.
EXAMPLES = 3
#: Example values are cut to this many characters.
EXAMPLE_WIDTH = 60


class How(StrEnum):
    """How a column was matched to what it feeds (the words shown beside it)."""

    ALIAS = "recognised from its header"
    CHOSEN = "your choice"
    SECOND = "second column of this field: read where the first is empty"
    IGNORED = "not used (export metadata)"
    IGNORED_CHOSEN = "not used (your choice)"
    UNMAPPED = "not mapped: its values are not read"


@dataclass(frozen=True, slots=True)
class ColumnPreview:
    """One column of a sheet: its header, the field it feeds ("" when none), how it
    was matched, and up to ``EXAMPLES`` values from the rows under the header."""

    index: int
    header: str
    field: str
    how: How
    examples: tuple[str, ...]

    @property
    def letter(self) -> str:
        return column_letter(self.index)

    @property
    def unmapped(self) -> bool:
        return self.how is How.UNMAPPED

    def to_dict(self) -> dict[str, Any]:
        return {
            "letter": self.letter,
            "header": self.header,
            "field": self.field,
            "how": str(self.how),
            "examples": list(self.examples),
        }


@dataclass(frozen=True, slots=True)
class SheetPreview:
    """One sheet (or CSV file, or YAML file) of the sources; ``source`` as the
    readers name it (the path given), so as the problems' provenance names it."""

    source: str
    sheet: str | None
    kind: str  # "table" or "yaml"
    header_rows: tuple[int, int] | None = None  # 1-based first and last header row
    columns: tuple[ColumnPreview, ...] = ()
    note: str | None = None  # why nothing is shown (no header found, a YAML file)

    @property
    def unmapped(self) -> tuple[str, ...]:
        return tuple(c.header for c in self.columns if c.unmapped)

    @property
    def title(self) -> str:
        return f"{self.source}, sheet {self.sheet}" if self.sheet else self.source

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "sheet": self.sheet,
            "kind": self.kind,
            "header_rows": list(self.header_rows) if self.header_rows else None,
            "columns": [c.to_dict() for c in self.columns],
            "unmapped": list(self.unmapped),
            "note": self.note,
        }


def _short(text: str) -> str:
    return text if len(text) <= EXAMPLE_WIDTH else text[: EXAMPLE_WIDTH - 1] + "…"


def _examples(data: Sequence[Sequence[Any]], col: int) -> tuple[str, ...]:
    found: list[str] = []
    for row in data:
        if col < len(row):
            text = cell_text(row[col])
            if text is not None and text.strip():
                found.append(_short(text.strip()))
                if len(found) == EXAMPLES:
                    break
    return tuple(found)


def _column(
    col: int, text: str, match: ColumnMatch, explicit: Mapping[str, str]
) -> tuple[str, How]:
    """(field, how) of one column, as ``match_columns`` decided it."""
    fname = match.field_of(col)
    if fname is not None:
        if match.chosen(col):
            return fname, How.CHOSEN
        return fname, How.ALIAS if match.fields[fname] == col else How.SECOND
    if text in match.ignored:
        return "", How.IGNORED_CHOSEN if normalize_header(text) in explicit else How.IGNORED
    return "", How.UNMAPPED


def _table(
    source: str,
    sheet: str | None,
    rows: Sequence[Sequence[Any]],
    mapping: Mapping[str, str] | None,
    *,
    row_offset: int = 0,
) -> SheetPreview:
    """The preview of one table of cells; ``row_offset``: rows above ``rows`` in the
    file (a CSV's ``sep=`` line)."""
    explicit = compile_mapping(mapping)
    head = find_header(rows, explicit=explicit)
    if head is None:
        missing = "no header row naming a destination URL column in its first 30 rows: not read"
        return SheetPreview(source, sheet, "table", note=missing)
    match = match_columns(list(head.cells), mapping)
    data = rows[head.data_start :]
    columns = []
    for col, text in enumerate(match.headers):
        if not normalize_header(text):
            continue
        fname, how = _column(col, text, match, explicit)
        columns.append(ColumnPreview(col, text, fname, how, _examples(data, col)))
    first, last = head.first + 1 + row_offset, head.last + 1 + row_offset
    note = None
    if "url" not in match.fields and "slug" not in match.fields:
        note = "no column of destination URLs: map one to Destination URL"
    return SheetPreview(source, sheet, "table", (first, last), tuple(columns), note)


def _workbook(
    path: Path, name: str, mapping: Mapping[str, str] | None, workbook_password: str | None
) -> list[SheetPreview]:
    from python_calamine import CalamineWorkbook, SheetTypeEnum, SheetVisibleEnum

    if is_encrypted_workbook(path):  # decrypted in memory, as the reader does
        data = decrypt_workbook(path, name, workbook_password)
        book = CalamineWorkbook.from_filelike(io.BytesIO(data))
    else:
        book = CalamineWorkbook.from_path(str(path))
    views = []
    for meta in book.sheets_metadata:
        if meta.visible != SheetVisibleEnum.Visible or meta.typ != SheetTypeEnum.WorkSheet:
            continue
        rows = book.get_sheet_by_name(meta.name).to_python(skip_empty_area=False)
        views.append(_table(name, meta.name, rows, mapping))
    return views


def _csv(path: Path, name: str, mapping: Mapping[str, str] | None) -> SheetPreview:
    with path.open("rb") as fh:
        head = fh.read(CSV_SAMPLE_BYTES)
    text = decode_sample(head, detect_encoding(head)).removeprefix("\ufeff")
    _, _, rows, sep_line = sniff_header(text, compile_mapping(mapping))
    return _table(name, None, rows, mapping, row_offset=1 if sep_line else 0)


def preview(
    paths: Sequence[str | PathLike[str]],
    mapping: Mapping[str, str] | None,
    *,
    workbook_password: str | None = None,
) -> list[SheetPreview]:
    """Every sheet of the source files ``paths``, in the readers' order, with the
    ``--map`` mapping (over the profile's ``columns:``) the run reads them with; an
    encrypted workbook opened with ``workbook_password``."""
    views: list[SheetPreview] = []
    for given in paths:
        path, name = Path(given), shown_name(given) or str(given)  # as the readers name it
        suffix = path.suffix.lower()
        if suffix in (".yaml", ".yml"):
            note = "a YAML link file names each field itself: there are no columns to map"
            views.append(SheetPreview(name, None, "yaml", note=note))
        elif suffix == ".csv":
            views.append(_csv(path, name, mapping))
        else:
            views.extend(_workbook(path, name, mapping, workbook_password))
    return views
