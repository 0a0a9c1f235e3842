"""The page's column step: for each sheet of the uploaded files, the header row the
readers detect and what each column feeds, with a few example values.

It asks the readers' own functions (``find_header`` for the header row under any title
rows, ``match_columns`` for the aliases and the ``--map`` mapping), so what the page
shows is what ``linksync.plan`` / ``linksync.apply`` will read. The cells themselves are
read here only to show examples: call it after the sources were read once by the
readers (``linksync.ui.steps``), which refuse a workbook bomb or a file they cannot
read before this module opens it.

    sheets = preview([Path("campaign.xlsx")], {"Approved by": "ignore"})
    sheets[0].header_rows        # (3, 3): row 3 of the sheet
    sheets[0].columns[0].field   # "url"
"""

from __future__ import annotations

import codecs
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from linksync.report.xlsx_xml import column_letter
from linksync.sources.columns import (
    COLUMN_FIELDS,
    SHORT_URL,
    ColumnMatch,
    compile_mapping,
    match_columns,
    normalize_header,
)
from linksync.sources.csv_reader import sniff_header
from linksync.sources.encoding import detect_encoding
from linksync.sources.excel_cells import cell_text
from linksync.sources.header import find_header
from linksync.sources.options import CSV_SAMPLE_BYTES

#: Example values shown per column.
EXAMPLES = 3
#: Example values are cut to this many characters.
EXAMPLE_WIDTH = 60
#: The value of the column list that ignores a column (as ``--map HEADER=ignore``).
IGNORE = "ignore"

#: Each field a column can feed, in words for the list (``COLUMN_FIELDS`` order).
FIELD_LABELS: dict[str, str] = {
    "url": "Destination URL",
    "slug": "Slug (back-half)",
    "domain": "Domain",
    "description": "Title / description",
    "tags": "Tags",
    "password": "Password",
    "expires_at": "Expiry date",
    "apple": "iOS URL",
    "google": "Android URL",
    SHORT_URL: "Full short link (domain and slug)",
    "utm_source": "UTM source",
    "utm_medium": "UTM medium",
    "utm_campaign": "UTM campaign",
    "utm_term": "UTM term",
    "utm_content": "UTM content",
}
assert tuple(FIELD_LABELS) == COLUMN_FIELDS, "one label per field a column can feed"


class How:
    """Why a column feeds what it feeds (words shown beside it)."""

    ALIAS = "recognised from its header"
    CHOSEN = "your choice"
    SECOND = "second column of this field: read where the first is empty"
    IGNORED = "not used (export metadata)"
    IGNORED_CHOSEN = "not used (your choice)"
    UNMAPPED = "not mapped: its values are not read"


@dataclass(frozen=True, slots=True)
class ColumnView:
    """One column of a sheet: its header, the field it feeds ("" when none) and why,
    and up to ``EXAMPLES`` values from the rows under the header."""

    index: int
    letter: str
    header: str
    field: str
    how: str
    examples: tuple[str, ...]

    @property
    def unmapped(self) -> bool:
        return self.how == How.UNMAPPED

    def to_dict(self) -> dict[str, Any]:
        return {
            "letter": self.letter,
            "header": self.header,
            "field": self.field,
            "how": self.how,
            "examples": list(self.examples),
        }


@dataclass(frozen=True, slots=True)
class SheetView:
    """One sheet (or CSV file, or YAML file) as the column step shows it."""

    source: str
    sheet: str | None
    kind: str  # "table" or "yaml"
    header_rows: tuple[int, int] | None = None  # 1-based first and last header row
    columns: tuple[ColumnView, ...] = ()
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


def _how(col: int, text: str, match: ColumnMatch, explicit: Mapping[str, str]) -> tuple[str, str]:
    """(field, how) of one column."""
    key = normalize_header(text)
    for fname in match.fields:
        if col in match.columns_of(fname):
            if key in explicit:
                return fname, How.CHOSEN
            return fname, How.ALIAS if match.fields[fname] == col else How.SECOND
    if text in match.ignored:
        return "", How.IGNORED_CHOSEN if key in explicit else How.IGNORED
    return "", How.UNMAPPED


def table_view(
    source: str,
    sheet: str | None,
    rows: Sequence[Sequence[Any]],
    mapping: Mapping[str, str] | None,
    *,
    row_offset: int = 0,
) -> SheetView:
    """The view of one table of cells; ``row_offset``: rows above ``rows`` in the file
    (a CSV's ``sep=`` line)."""
    explicit = compile_mapping(mapping)
    head = find_header(rows, explicit=explicit)
    if head is None:
        missing = "no header row naming a destination URL column in its first 30 rows: not read"
        return SheetView(source, sheet, "table", note=missing)
    match = match_columns(list(head.cells), mapping)
    data = rows[head.data_start :]
    columns = []
    for col, text in enumerate(match.headers):
        if not normalize_header(text):
            continue
        fname, how = _how(col, text, match, explicit)
        columns.append(ColumnView(col, column_letter(col), text, fname, how, _examples(data, col)))
    first, last = head.first + 1 + row_offset, head.last + 1 + row_offset
    note = None
    if "url" not in match.fields and "slug" not in match.fields:
        note = "no column of destination URLs: map one to Destination URL"
    return SheetView(source, sheet, "table", (first, last), tuple(columns), note)


def _workbook(path: Path, name: str, mapping: Mapping[str, str] | None) -> list[SheetView]:
    from python_calamine import CalamineWorkbook, SheetTypeEnum, SheetVisibleEnum

    book = CalamineWorkbook.from_path(str(path))
    views = []
    for meta in book.sheets_metadata:
        if meta.visible != SheetVisibleEnum.Visible or meta.typ != SheetTypeEnum.WorkSheet:
            continue
        rows = book.get_sheet_by_name(meta.name).to_python(skip_empty_area=False)
        views.append(table_view(name, meta.name, rows, mapping))
    return views


def _csv(path: Path, name: str, mapping: Mapping[str, str] | None) -> SheetView:
    with path.open("rb") as fh:
        head = fh.read(CSV_SAMPLE_BYTES)
    encoding = detect_encoding(head)
    text = codecs.getincrementaldecoder(encoding)(errors="replace").decode(head, final=False)
    if text.startswith("\ufeff"):
        text = text[1:]
    _, _, rows, sep_line = sniff_header(text, compile_mapping(mapping))
    return table_view(name, None, rows, mapping, row_offset=1 if sep_line else 0)


def preview(
    files: Sequence[tuple[str, Path]], mapping: Mapping[str, str] | None
) -> list[SheetView]:
    """Every sheet of ``files`` ((name shown, path) pairs), in the readers' order."""
    views: list[SheetView] = []
    for name, path in files:
        suffix = path.suffix.lower()
        if suffix in (".yaml", ".yml"):
            note = "a YAML link file names each field itself: there are no columns to map"
            views.append(SheetView(name, None, "yaml", note=note))
        elif suffix == ".csv":
            views.append(_csv(path, name, mapping))
        else:
            views.extend(_workbook(path, name, mapping))
    return views
