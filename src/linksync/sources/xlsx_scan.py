"""The byte searches of one sheet's XML, chunk by chunk (``linksync.sources.xlsx_guard``).

Two kinds, run apart:

- the extent (``SheetScan.extent``): the declared ``<dimension>``, the widest column
  of any cell, the highest row of any cell (the last cell of a chunk, then any cell
  above it anywhere in the chunk: rows out of order as a crafted file may have them),
  rows without a number. It must be known before calamine reads the sheet.
- the notes (``SheetScan.notes_of``): error cells, numbers shown through a format that
  changes them, hyperlinks, formulas without a saved value, hidden rows and columns,
  the filter and merged ranges. They may be searched while calamine reads.

Each search is handed ``buf[lo:hi]`` with ``_CONTEXT`` bytes of the neighbouring
chunks around it, so a tag cut by a chunk's end is seen whole once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

_CONTEXT = 512
_REF = re.compile(rb"([A-Z]{1,3})(\d{1,7})")
_LAST_REF = re.compile(rb"[A-Z]+0*(\d{1,10})")
_ROW_NUMBER = re.compile(rb"0*(\d{1,10})")
#: An ``r`` attribute written otherwise than `` r="``: a tab or line break before it,
#: spaces around ``=``, single quotes. XML allows them; the searches here do not read
#: them, and calamine does (a far cell written so aborted the process): refused.
_ODD_R = re.compile(rb"r(?:[\t\n\r ]+=|=[\t\n\r ]*'|=[\t\n\r ]+\")")
#: Tags or attributes after a tab or line break (``<c\tr="..."``): refused as well.
_ODD_SPACE = (b"\tr", b"\nr", b"\rr", b"<c\t", b"<c\n", b"<c\r", b"<row\t", b"<row\n")
_CELL_TAGS = (b"<c ", b"<c>", b"<c/")
_CELL_TAG_REF = re.compile(rb'\br="([A-Z]{1,3}\d{1,7})"')
_TYPE = re.compile(rb'\bt="(\w+)"')
_VALUE = re.compile(rb"<v>([^<]*)</v>")
_DIMENSION = re.compile(rb'<dimension\s+ref="([A-Z]{1,3}\d{1,7})(?::([A-Z]{1,3}\d{1,7}))?"')
_HYPERLINK = re.compile(rb"<hyperlink\b([^>]*?)/?>")
_ATTR = re.compile(rb'([\w:]+)="([^"]*)"')
_HIDDEN = (b'hidden="1"', b'hidden="true"')
_ROW_R = re.compile(rb'\br="0*(\d{1,10})"')
_COL_SPAN = re.compile(rb'\b(min|max)="(\d{1,5})"')
_RANGE_REF = re.compile(rb'\bref="([A-Z]{1,3}\d{1,7})(?::([A-Z]{1,3}\d{1,7}))?"')
_COL_ID = re.compile(rb'\bcolId="(\d{1,5})"')
_FORMULA = re.compile(rb"<f\b[^>]*?(?:/>|>([^<]*)</f>)")
#: The byte after ``<f`` in a formula's tag: ``<f>``, ``<f t="shared" .../>``...
_FORMULA_NEXT = (b">", b" ", b"/")


def col_index(letters: str | bytes) -> int:
    """'A' -> 0, 'XFD' -> 16383."""
    text = letters.decode("ascii") if isinstance(letters, bytes) else letters
    n = 0
    for ch in text:
        n = n * 26 + ord(ch) - 64
    return n - 1


def cell_of(ref: bytes) -> tuple[int, int] | None:
    """b'B3' -> (2, 1) (row, column from 0), None when not a cell reference."""
    m = _REF.fullmatch(ref)
    return (int(m.group(2)) - 1, col_index(m.group(1))) if m else None


def _rows_above(n: int) -> re.Pattern[bytes]:
    """Cell references whose row has more digits than ``n`` (so a cell out of order is
    found unless its row is below ten times ``n``: one pattern without alternatives,
    as cheap as a search for rows of a million; an exact comparison costs twice)."""
    d = len(str(n))
    # Rows' own numbers too (no letters): a cell without ``r`` sits in its row's.
    return re.compile(rb' r="[A-Z]*0*([1-9]\d{' + str(d).encode() + rb',9})"')


@dataclass
class SheetNotes:
    """What one sheet's values do not say, by (row, column) from 0.

    ``unsaved``: formula cells without a saved value (calamine reads them as empty), by
    their formula's text ("" for a shared formula's follower); ``stale``: with
    ``recalculate`` (the workbook asks to be recalculated when opened:
    ``fullCalcOnLoad``, as scripts write it), the formula cells whose saved value is a
    placeholder (XlsxWriter saves 0 for every formula). ``hidden_rows`` and
    ``hidden_cols``: rows and columns hidden (by a filter or by hand); ``filter``: the
    autoFilter's range (first row, first column, last row, last column) and the columns
    it filters on; ``merged``: merged ranges (first row, first column, last row, last
    column); ``struck``: cells whose font is struck through (as a cancelled row is
    often marked)."""

    errors: dict[tuple[int, int], str] = field(default_factory=dict)
    formats: dict[tuple[int, int], str] = field(default_factory=dict)
    links: dict[tuple[int, int], str] = field(default_factory=dict)
    unsaved: dict[tuple[int, int], str] = field(default_factory=dict)
    stale: dict[tuple[int, int], str] = field(default_factory=dict)
    recalculate: bool = False
    hidden_rows: set[int] = field(default_factory=set)
    hidden_cols: set[int] = field(default_factory=set)
    filter: tuple[tuple[int, int, int, int], tuple[int, ...]] | None = None
    merged: list[tuple[int, int, int, int]] = field(default_factory=list)
    struck: dict[tuple[int, int], str] = field(default_factory=dict)

    def column(self, kind: str, col: int) -> dict[int, str]:
        """row -> note of one column (``kind``: errors, formats, links, unsaved, stale or
        struck)."""
        found: dict[tuple[int, int], str] = getattr(self, kind)
        return {r: v for (r, c), v in found.items() if c == col}


class SheetScan:
    """State of one sheet's chunked scan."""

    def __init__(
        self,
        formats: dict[bytes, str],
        recalculate: bool = False,
        struck: frozenset[bytes] = frozenset(),
    ):
        self.formats = formats
        self.struck = struck
        self.notes = SheetNotes(recalculate=recalculate)
        self.declared = (0, 0)
        self.max_row = 0
        self.max_col = 0
        self.row_tags = 0
        self.cell_tags = 0  # <c> elements
        self.r_attrs = 0  # r=" attributes, of cells and rows
        self.row_attr_tags = 0  # <row> elements with attributes
        self.odd_r = False  # an r attribute written otherwise (see _ODD_R)
        self.hyperlinks: list[dict[bytes, bytes]] = []
        self._after_data = False  # </sheetData> passed (the notes' pieces come in order)
        self._wide = self._wide_re()
        self._above = _rows_above(0)

    def area(self) -> tuple[int, int]:
        """Rows x columns the cells found so far span (rows without a number added)."""
        return self.max_row + self.row_tags, self.max_col + 1

    def _wide_re(self) -> re.Pattern[bytes]:
        """Cell refs in a column right of the widest seen (A-Z by one letter class)."""
        if self.max_col >= 25:
            return re.compile(rb' r="([A-Z]{2,})\d')
        letters = "".join(chr(65 + i) for i in range(self.max_col + 1, 26))
        return re.compile(rb' r="([A-Z]{2,}|[' + letters.encode() + rb"])\d")

    def extent(self, buf: bytes, lo: int, hi: int) -> None:
        """Search ``buf[lo:hi]`` for what sets the sheet's used range."""
        if not self.declared[0]:
            m = _DIMENSION.search(buf, 0, min(len(buf), 4096))
            if m:
                a, b = cell_of(m.group(1)), cell_of(m.group(2) or m.group(1))
                if a and b:
                    self.declared = (b[0] - a[0] + 1, b[1] - a[1] + 1)
        self.row_tags += buf.count(b"<row>", lo, hi)  # rows without a number: counted
        self._count_tags(buf, lo, hi)
        while True:
            m = self._wide.search(buf, lo, hi + 16)
            if m is None:
                break
            self.max_col = max(self.max_col, col_index(m.group(1)))
            self._wide = self._wide_re()
            lo = m.start() + 1
        last = buf.rfind(b'<c r="', 0, hi)
        if last >= 0:
            m = _LAST_REF.match(buf, last + 6)
            if m:
                self._row(int(m.group(1)))
        last = buf.rfind(b'<row r="', 0, hi)
        if last >= 0:
            m = _ROW_NUMBER.match(buf, last + 8)
            if m:
                self._row(int(m.group(1)))
        # In order, the last cell is the highest; a cell above it is out of order.
        found = self._above.findall(buf, lo, hi + _CONTEXT)
        if found:
            self._row(max(map(int, found)))

    def cells_without_r(self) -> int:
        """Cells with no ``r`` (calamine puts them one column right of the previous
        cell: the searches cannot bound where). A row with attributes but no ``r``
        counts as one too (the safe side)."""
        return max(0, self.cell_tags - (self.r_attrs - self.row_attr_tags))

    def _count_tags(self, buf: bytes, lo: int, hi: int) -> None:
        """Count what starts in ``buf[lo:hi]`` (each chunk's share, none twice)."""

        def count(pattern: bytes) -> int:
            return buf.count(pattern, lo, min(len(buf), hi + len(pattern) - 1))

        self.cell_tags += sum(count(t) for t in _CELL_TAGS)
        self.row_attr_tags += count(b"<row ")
        self.r_attrs += count(b' r="')
        if self.odd_r:
            return
        end = min(len(buf), hi + 8)
        hits = [m.start() for m in _ODD_R.finditer(buf, lo, end)]
        for t in _ODD_SPACE:
            at = buf.find(t, lo, end)
            while at >= 0:
                hits.append(at)
                at = buf.find(t, at + 1, end)
        for at in hits:
            opened, closed = buf.rfind(b"<", 0, at + 1), buf.rfind(b">", 0, at)
            # Inside a tag, not in a cell's text; with neither in sight, not known: odd.
            if opened > closed or opened == closed == -1:
                self.odd_r = True
                return

    def _row(self, row: int) -> None:
        if row > self.max_row:
            self.max_row = row
            self._above = _rows_above(row)

    def notes_of(self, buf: bytes, lo: int, hi: int) -> None:
        """Search ``buf[lo:hi]`` for error cells, formatted numbers and hyperlinks."""
        self._tagged(buf, lo, hi, b't="e"', self._error)
        for style, code in self.formats.items():

            def take(tag: bytes, _buf: bytes, _end: int, code: str = code) -> None:
                self._fmt(tag, code)

            self._tagged(buf, lo, hi, b' s="' + style + b'"', take)
        for style in self.struck:
            self._tagged(buf, lo, hi, b' s="' + style + b'"', self._strike)
        start = buf.find(b"<hyperlink ", lo, hi)
        while start >= 0:
            m = _HYPERLINK.match(buf, start)
            if m:
                self.hyperlinks.append(dict(_ATTR.findall(m.group(1))))
            start = buf.find(b"<hyperlink ", start + 1, hi)
        # One search per kind (each costs a pass over the chunk): "<f" then its next byte.
        at = buf.find(b"<f", lo, hi)
        while at >= 0:
            if buf[at + 2 : at + 3] in _FORMULA_NEXT:
                self._formula(buf, at)
            at = buf.find(b"<f", at + 2, hi)
        self._layout(buf, lo, hi)

    def _formula(self, buf: bytes, at: int) -> None:
        """The formula starting at ``at``: noted in ``unsaved`` when its cell holds no
        saved value (no ``<v>``, or an empty one that is not an empty text), in
        ``stale`` when it has one but the workbook is to be recalculated on opening."""
        open_at = buf.rfind(b"<c ", max(0, at - _CONTEXT), at)
        if open_at < 0 or buf.find(b"</c>", open_at, at) >= 0:
            return
        tag_end = buf.find(b">", open_at, at)
        close = buf.find(b"</c>", at)
        m = _CELL_TAG_REF.search(buf, open_at, tag_end) if tag_end >= 0 else None
        cell = cell_of(m.group(1)) if m else None
        if cell is None or close < 0:
            return
        t = _TYPE.search(buf, open_at, tag_end)
        kind = t.group(1) if t else b"n"
        if kind == b"e":
            return  # an error value: noted as one (``_error``)
        value = _VALUE.search(buf, at, close)
        saved = (value is not None and value.group(1) != b"") or (
            kind == b"str" and buf.find(b"<v", at, close) >= 0
        )
        if saved and not self.notes.recalculate:
            return
        f = _FORMULA.match(buf, at)
        text = f.group(1) if f is not None and f.group(1) is not None else b""
        found = self.notes.stale if saved else self.notes.unsaved
        found[cell] = _unescape(text.decode("utf-8", "replace"))

    def _layout(self, buf: bytes, lo: int, hi: int) -> None:
        """Hidden rows and columns, the autoFilter, merged ranges in ``buf[lo:hi]``."""
        at = buf.find(b'hidden="', lo, hi)
        while at >= 0:
            self._hidden(buf, at)
            at = buf.find(b'hidden="', at + 8, hi)
        # The autoFilter and the merged ranges follow the cells (</sheetData>).
        if not self._after_data:
            at = buf.find(b"</sheetData>", lo, hi + 12)
            if at < 0:
                return
            self._after_data, lo = True, max(lo, at)
        at = buf.find(b"<autoFilter ", lo, hi)
        if at >= 0:
            end = buf.find(b"</autoFilter>", at)
            end = end if end >= 0 else buf.find(b">", at)
            area = _area(buf, at)
            if area is not None:
                cols = tuple(int(c) for c in _COL_ID.findall(buf, at, max(end, at)))
                self.notes.filter = (area, cols)
        at = buf.find(b"<mergeCell ", lo, hi)
        while at >= 0:
            area = _area(buf, at)
            if area is not None:
                self.notes.merged.append(area)
            at = buf.find(b"<mergeCell ", at + 1, hi)

    def _hidden(self, buf: bytes, at: int) -> None:
        """The ``hidden="..."`` attribute at ``at``: a hidden row's or columns'."""
        if not buf.startswith(_HIDDEN, at) or buf[at - 1 : at] not in (b" ", b"\t", b"\n"):
            return
        start = buf.rfind(b"<", 0, at)
        end = buf.find(b">", at)
        if start < 0 or end < 0 or buf.find(b">", start, at) >= 0:
            return
        if buf.startswith(b"<row ", start):
            r = _ROW_R.search(buf, start, end)
            if r is not None:
                self.notes.hidden_rows.add(int(r.group(1)) - 1)
        elif buf.startswith(b"<col ", start):
            span: dict[bytes, bytes] = dict(_COL_SPAN.findall(buf, start, end))
            if b"min" in span:
                first = int(span[b"min"]) - 1
                last = int(span.get(b"max", span[b"min"])) - 1
                self.notes.hidden_cols.update(range(first, min(last, first + 16_384) + 1))

    def _tagged(
        self, buf: bytes, lo: int, hi: int, needle: bytes, take: Callable[[bytes, bytes, int], None]
    ) -> None:
        at = buf.find(needle, lo, hi)
        while at >= 0:
            open_at = buf.rfind(b"<c ", max(0, at - _CONTEXT), at)
            close_at = buf.find(b">", at)
            if open_at >= 0 and close_at >= 0 and buf.find(b">", open_at, at) < 0:
                tag = buf[open_at:close_at]
                take(tag, buf, close_at)
            at = buf.find(needle, at + 1, hi)

    def _error(self, tag: bytes, buf: bytes, end: int) -> None:
        m = _CELL_TAG_REF.search(tag)
        cell = cell_of(m.group(1)) if m else None
        if cell is None:
            return
        stop = buf.find(b"</c>", end, end + _CONTEXT)
        value = _VALUE.search(buf, end, stop if stop >= 0 else end + _CONTEXT)
        text = value.group(1).decode("utf-8", "replace") if value else "#ERROR"
        self.notes.errors[cell] = text

    def _strike(self, tag: bytes, _buf: bytes, _end: int) -> None:
        m = _CELL_TAG_REF.search(tag)
        cell = cell_of(m.group(1)) if m else None
        if cell is not None:
            self.notes.struck[cell] = ""

    def _fmt(self, tag: bytes, code: str) -> None:
        t = _TYPE.search(tag)
        if t is not None and t.group(1) != b"n":
            return
        m = _CELL_TAG_REF.search(tag)
        cell = cell_of(m.group(1)) if m else None
        if cell is not None:
            self.notes.formats[cell] = code


def _area(buf: bytes, at: int) -> tuple[int, int, int, int] | None:
    """The ``ref="B5:B7"`` of the tag at ``at`` as (first row, first column, last row,
    last column) from 0."""
    end = buf.find(b">", at)
    m = _RANGE_REF.search(buf, at, end) if end >= 0 else None
    if m is None:
        return None
    a, b = cell_of(m.group(1)), cell_of(m.group(2) or m.group(1))
    if a is None or b is None:
        return None
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]), max(a[1], b[1]))


def _unescape(text: str) -> str:
    """A formula's text as written in the cell (the five XML entities undone)."""
    if "&" not in text:
        return text
    for entity, ch in (("&lt;", "<"), ("&gt;", ">"), ("&quot;", '"'), ("&apos;", "'")):
        text = text.replace(entity, ch)
    return text.replace("&amp;", "&")
