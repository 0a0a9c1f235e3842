"""Look at a workbook before calamine reads it: refuse bombs, note what values hide.

calamine reads a sheet into one dense grid spanning its used range, and the shared
strings whole, when the workbook is opened. So a sheet with one cell at XFD1048576
asks for 17 billion cells (the process aborts allocating 512 GiB), and a zip bomb
inflates gigabytes. Before calamine sees the file, ``guard_package`` checks the size
every part declares and inflates the XML parts other than sheets counting bytes; ``scan_sheet``
inflates one sheet's XML in chunks (never whole) and refuses it past the limits of
``linksync.sources.options``: its declared ``<dimension>`` or the cells it actually
holds spanning more than ``MAX_SHEET_CELLS``, or more than ``MAX_PART_BYTES`` of XML.
Python's zipfile stops at the size an entry declares and checks its CRC, so a part
lying about its size fails as corrupt instead of inflating.

The same pass notes, for .xlsx/.xlsm, what calamine's values do not say:

- error cells (``t="e"``: ``#N/A``, ``#DIV/0!``...), which calamine reads as empty;
- numbers shown through a number format that changes them (``000`` shows 7 as 007),
  found from the styles whose format is neither General, Text nor a date;
- hyperlink targets of cells (``<hyperlinks>`` and the sheet's relationships).

Costs one inflate of the sheet and a few regex passes: about 0.2 s for 100,000 rows
of 10 columns (docs/performance.md).
"""

from __future__ import annotations

import posixpath
import re
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

from linksync.errors import SourceError
from linksync.sources.options import MAX_PART_BYTES, MAX_SHEET_CELLS, MAX_WORKBOOK_BYTES

_CHUNK = 8 << 20
_CONTEXT = 512
_NS_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
_REF = re.compile(rb"([A-Z]{1,3})(\d{1,7})")
_ROW_TAG = re.compile(rb'<row\b[^>]*?\br="(\d+)"')
_CELL_TAG_REF = re.compile(rb'\br="([A-Z]{1,3}\d{1,7})"')
_TYPE = re.compile(rb'\bt="(\w+)"')
_VALUE = re.compile(rb"<v>([^<]*)</v>")
_DIMENSION = re.compile(rb'<dimension\s+ref="([A-Z]{1,3}\d{1,7})(?::([A-Z]{1,3}\d{1,7}))?"')
_BIG_ROW = re.compile(rb' r="([A-Z]{1,3}1\d{6})"')
_HYPERLINK = re.compile(rb"<hyperlink\b([^>]*?)/?>")
_ATTR = re.compile(rb'([\w:]+)="([^"]*)"')
#: Built-in number formats that are dates or times (calamine turns those into dates).
_DATE_IDS = frozenset({*range(14, 23), *range(27, 37), *range(45, 48), *range(50, 59)})
_DATE_CODE = re.compile(r"[dmyhs]", re.IGNORECASE)
_BUILTIN = {1: "0", 2: "0.00", 3: "#,##0", 4: "#,##0.00", 9: "0%", 10: "0.00%", 11: "0.00E+00"}


def col_index(letters: str | bytes) -> int:
    """'A' -> 0, 'XFD' -> 16383."""
    text = letters.decode("ascii") if isinstance(letters, bytes) else letters
    n = 0
    for ch in text:
        n = n * 26 + ord(ch) - 64
    return n - 1


def _cell(ref: bytes) -> tuple[int, int] | None:
    m = _REF.fullmatch(ref)
    return (int(m.group(2)) - 1, col_index(m.group(1))) if m else None


@dataclass
class SheetNotes:
    """What one sheet's values do not say, by (row, column) from 0."""

    errors: dict[tuple[int, int], str] = field(default_factory=dict)
    formats: dict[tuple[int, int], str] = field(default_factory=dict)
    links: dict[tuple[int, int], str] = field(default_factory=dict)

    def column(self, kind: str, col: int) -> dict[int, str]:
        """row -> note of one column (``kind``: errors, formats or links)."""
        found: dict[tuple[int, int], str] = getattr(self, kind)
        return {r: v for (r, c), v in found.items() if c == col}


class Package:
    """The parts of an .xlsx/.xlsm a reader needs: sheet paths, number formats."""

    def __init__(self, path: Path, display: str):
        self.path, self.display = path, display
        try:
            self.zf = zipfile.ZipFile(path)
        except (OSError, zipfile.BadZipFile) as exc:
            raise SourceError(f"{display}: not a readable workbook: {exc}", path=display) from exc

    def close(self) -> None:
        self.zf.close()

    def fail(self, message: str, sheet: str | None = None) -> SourceError:
        where = f"{self.display}, sheet {sheet}" if sheet else self.display
        return SourceError(f"{where}: {message}", path=self.display, sheet=sheet)

    def check_sizes(self) -> None:
        """Refuse parts (and a whole) declared past the limits; inflate the shared
        strings counting bytes (calamine reads them whole when it opens the file)."""
        total = 0
        for info in self.zf.infolist():
            total += info.file_size
            if info.file_size > MAX_PART_BYTES:
                raise self.fail(
                    f"part {info.filename} declares {info.file_size:,} bytes uncompressed "
                    f"(limit {MAX_PART_BYTES:,}): refused before reading (a zip bomb?)"
                )
        if total > MAX_WORKBOOK_BYTES:
            raise self.fail(
                f"the workbook declares {total:,} bytes uncompressed (limit "
                f"{MAX_WORKBOOK_BYTES:,}): refused before reading (a zip bomb?)"
            )
        for name in self.zf.namelist():
            # Every XML part calamine may read whole (shared strings, styles, an ods
            # content.xml) is inflated here; sheets are inflated by ``scan_sheet``.
            if name.endswith((".xml", ".rels")) and "worksheets/" not in name:
                for _ in self._inflate(name, None):
                    pass

    def _xml(self, name: str) -> ElementTree.Element | None:
        try:
            data = self.zf.read(name)
        except (KeyError, zipfile.BadZipFile, OSError):
            return None
        try:
            return ElementTree.fromstring(data)
        except ElementTree.ParseError:
            return None

    def _rels(self, name: str) -> dict[str, str]:
        folder, base = posixpath.split(name)
        root = self._xml(posixpath.join(folder, "_rels", base + ".rels"))
        out: dict[str, str] = {}
        for rel in root if root is not None else ():
            target = rel.get("Target", "")
            if rel.get("TargetMode") != "External":
                target = posixpath.normpath(
                    target.lstrip("/") if target.startswith("/") else posixpath.join(folder, target)
                )
            out[rel.get("Id", "")] = target
        return out

    def sheet_parts(self) -> dict[str, str]:
        """Sheet name -> XML part."""
        root = self._xml("xl/workbook.xml")
        rels = self._rels("xl/workbook.xml")
        out: dict[str, str] = {}
        for el in root.iter() if root is not None else ():
            if el.tag.endswith("}sheet") and el.get(_NS_REL) in rels:
                out[el.get("name", "")] = rels[el.get(_NS_REL, "")]
        return out

    def display_formats(self) -> dict[bytes, str]:
        """Style index -> number format code, for styles that change how a number
        shows (not General, not Text, not a date)."""
        root = self._xml("xl/styles.xml")
        if root is None:
            return {}
        codes = dict(_BUILTIN)
        xfs: list[int] = []
        for el in root:
            tag = el.tag.rsplit("}", 1)[-1]
            if tag == "numFmts":
                for fmt in el:
                    codes[int(fmt.get("numFmtId", "0"))] = fmt.get("formatCode", "")
            elif tag == "cellXfs":
                xfs = [int(xf.get("numFmtId", "0")) for xf in el]
        out: dict[bytes, str] = {}
        for i, fid in enumerate(xfs):
            code = codes.get(fid)
            if fid in (0, 49) or fid in _DATE_IDS or code is None:
                continue
            if fid >= 164 and (code in ("General", "@") or _is_date_code(code)):
                continue
            out[str(i).encode()] = code
        return out

    def _inflate(self, name: str, sheet: str | None) -> Iterator[bytes]:
        read = 0
        try:
            with self.zf.open(name) as fh:
                while chunk := fh.read(_CHUNK):
                    read += len(chunk)
                    if read > MAX_PART_BYTES:
                        raise self.fail(
                            f"part {name} inflates past {MAX_PART_BYTES:,} bytes: refused",
                            sheet,
                        )
                    yield chunk
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            raise self.fail(f"part {name} is corrupt: {exc}", sheet) from exc

    def scan_sheet(self, sheet: str, part: str, formats: dict[bytes, str]) -> SheetNotes:
        """Check one sheet against the limits and note what its values hide."""
        scan = _SheetScan(formats)
        carry, done = b"", 0
        for chunk in self._inflate(part, sheet):
            buf = carry + chunk
            limit = max(len(buf) - _CONTEXT, done)
            scan.feed(buf, done, limit)
            keep = max(0, limit - _CONTEXT)
            carry, done = buf[keep:], limit - keep
            self._check_area(scan, sheet)
        scan.feed(carry, done, len(carry))
        self._check_area(scan, sheet)
        scan.notes.links = self._links(part, scan.hyperlinks)
        return scan.notes

    def _check_area(self, scan: _SheetScan, sheet: str) -> None:
        for what, (rows, cols) in (("declares", scan.declared), ("holds", scan.extent())):
            if rows * cols > MAX_SHEET_CELLS:
                raise self.fail(
                    f"the sheet {what} a used range of {rows:,} rows x {cols:,} columns, "
                    f"more than {MAX_SHEET_CELLS:,} cells: refused before reading (delete "
                    "the stray cells far from the data, or save the links to a new sheet)",
                    sheet,
                )

    def _links(self, part: str, found: list[dict[bytes, bytes]]) -> dict[tuple[int, int], str]:
        if not found:
            return {}
        rels = self._rels(part)
        out: dict[tuple[int, int], str] = {}
        for attrs in found:
            target = rels.get(attrs.get(b"r:id", b"").decode("utf-8", "replace"))
            if target is None:
                continue
            ref = attrs.get(b"ref", b"").split(b":")[0]
            cell = _cell(ref)
            if cell is not None:
                out[cell] = target
        return out


def _is_date_code(code: str) -> bool:
    bare = re.sub(r'"[^"]*"|\[[^\]]*\]|\\.', "", code)
    return _DATE_CODE.search(bare) is not None


class _SheetScan:
    """State of one sheet's chunked scan."""

    def __init__(self, formats: dict[bytes, str]):
        self.formats = formats
        self.notes = SheetNotes()
        self.declared = (0, 0)
        self.max_row = 0
        self.max_col = 0
        self.row_tags = 0
        self.hyperlinks: list[dict[bytes, bytes]] = []
        self._wide = self._wide_re()

    def extent(self) -> tuple[int, int]:
        return self.max_row + self.row_tags, self.max_col + 1

    def _wide_re(self) -> re.Pattern[bytes]:
        """Cell refs in a column right of the widest seen (A-Z by one letter class)."""
        if self.max_col >= 25:
            return re.compile(rb'<c r="([A-Z]{2,3})\d')
        letters = "".join(chr(65 + i) for i in range(self.max_col + 1, 26))
        return re.compile(rb'<c r="([A-Z]{2,3}|[' + letters.encode() + rb"])\d")

    def feed(self, buf: bytes, lo: int, hi: int) -> None:
        if not self.declared[0]:
            m = _DIMENSION.search(buf, 0, min(len(buf), 4096))
            if m:
                a, b = _cell(m.group(1)), _cell(m.group(2) or m.group(1))
                if a and b:
                    self.declared = (b[0] - a[0] + 1, b[1] - a[1] + 1)
        self.row_tags += buf.count(b"<row>", lo, hi)  # rows without a number: counted
        while True:
            m = self._wide.search(buf, lo, hi + 16)
            if m is None:
                break
            self.max_col = max(self.max_col, col_index(m.group(1)))
            self._wide = self._wide_re()
            lo = m.start() + 1
        last = buf.rfind(b'<c r="', 0, hi)
        if last >= 0:
            m = _REF.match(buf, last + 6)
            if m:
                self.max_row = max(self.max_row, int(m.group(2)))
        for m in _BIG_ROW.finditer(buf, 0, hi + 64):
            cell = _cell(m.group(1))
            if cell and buf.rfind(b"<c", max(0, m.start() - _CONTEXT), m.start()) >= 0:
                self.max_row = max(self.max_row, cell[0] + 1)
        self._tagged(buf, lo, hi, b't="e"', self._error)
        for style, code in self.formats.items():

            def take(tag: bytes, _buf: bytes, _end: int, code: str = code) -> None:
                self._fmt(tag, code)

            self._tagged(buf, lo, hi, b' s="' + style + b'"', take)
        start = buf.find(b"<hyperlink ", lo, hi)
        while start >= 0:
            m = _HYPERLINK.match(buf, start)
            if m:
                self.hyperlinks.append(dict(_ATTR.findall(m.group(1))))
            start = buf.find(b"<hyperlink ", start + 1, hi)

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
        cell = _cell(m.group(1)) if m else None
        if cell is None:
            return
        stop = buf.find(b"</c>", end, end + _CONTEXT)
        value = _VALUE.search(buf, end, stop if stop >= 0 else end + _CONTEXT)
        text = value.group(1).decode("utf-8", "replace") if value else "#ERROR"
        self.notes.errors[cell] = text

    def _fmt(self, tag: bytes, code: str) -> None:
        t = _TYPE.search(tag)
        if t is not None and t.group(1) != b"n":
            return
        m = _CELL_TAG_REF.search(tag)
        cell = _cell(m.group(1)) if m else None
        if cell is not None:
            self.notes.formats[cell] = code
