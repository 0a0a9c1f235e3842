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
- hyperlink targets of cells (``<hyperlinks>`` and the sheet's relationships);
- formulas without a saved value (a workbook written by a script, never opened and
  saved in Excel), which calamine reads as empty; in a workbook that asks to be
  recalculated when opened (``fullCalcOnLoad``, as XlsxWriter writes it with a 0 saved
  for every formula) every formula, its saved value being a placeholder;
- hidden rows and columns, the autoFilter and the merged ranges: how the sheet looks.

The limits are checked before calamine reads the sheet; the notes are searched in a
thread while it does (calamine lets go of the GIL while it parses): ``scan_sheet``
returns ``PendingNotes``. The byte searches are in ``linksync.sources.xlsx_scan``;
their cost is in docs/performance.md.
"""

from __future__ import annotations

import io
import posixpath
import re
import threading
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from xml.etree import ElementTree

from linksync.errors import SourceError
from linksync.safe.terminal import printable
from linksync.sources.options import MAX_PART_BYTES, MAX_SHEET_CELLS, MAX_WORKBOOK_BYTES
from linksync.sources.xlsx_scan import _CONTEXT, SheetNotes, SheetScan, cell_of, col_index

__all__ = ["Package", "PendingNotes", "SheetNotes", "col_index"]

_CHUNK = 8 << 20
_NS_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
#: Built-in number formats that are dates or times (calamine turns those into dates).
_DATE_IDS = frozenset({*range(14, 23), *range(27, 37), *range(45, 48), *range(50, 59)})
_DATE_CODE = re.compile(r"[dmyhs]", re.IGNORECASE)
#: Characters XML 1.0 forbids (C0 controls but tab, line feed and carriage return), raw
#: or as a character reference: Excel and calamine accept them in a sheet name
#: (``Links&#x7;``), Python's XML parser does not.
_FORBIDDEN_XML = re.compile(rb"&#(x[0-9A-Fa-f]{1,6}|[0-9]{1,7});|[\x00-\x08\x0b\x0c\x0e-\x1f]")
#: Where a forbidden character waits while the XML is parsed: the same code point in
#: plane 15 (private use), put back in the names read (``_restore``).
_PARKED = 0xF0000
_RESTORE = {_PARKED + i: i for i in range(0x20)}
_DATE1904_RE = re.compile(rb"<(?:\w+:)?workbookPr\b[^>]*\bdate1904=\"(?:1|true)\"")
_FULL_CALC_RE = re.compile(rb"<(?:\w+:)?calcPr\b[^>]*\bfullCalcOnLoad=\"(?:1|true)\"")
_BUILTIN = {1: "0", 2: "0.00", 3: "#,##0", 4: "#,##0.00", 9: "0%", 10: "0.00%", 11: "0.00E+00"}


class PendingNotes:
    """A sheet's notes, searched in a thread; ``result`` waits for them."""

    def __init__(self, work: Callable[[], SheetNotes]):
        self._notes: SheetNotes | None = None
        self._error: BaseException | None = None
        self._work = work
        self._thread = threading.Thread(target=self._run, name="linksync-sheet-notes", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._notes = self._work()
        except BaseException as exc:  # handed to the thread that waits
            self._error = exc

    def result(self) -> SheetNotes:
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._notes is not None
        return self._notes


class Package:
    """The parts of an .xlsx/.xlsm a reader needs: sheet paths, number formats."""

    def __init__(self, path: Path, display: str, data: bytes | None = None):
        """``data``: the workbook's bytes when they are not the file's (decrypted)."""
        self.path, self.display = path, display
        try:
            self.zf = zipfile.ZipFile(path if data is None else io.BytesIO(data))
        except (OSError, zipfile.BadZipFile) as exc:
            raise SourceError(f"{display}: not a readable workbook: {exc}", path=display) from exc

    def close(self) -> None:
        self.zf.close()

    def fail(self, message: str, sheet: str | None = None) -> SourceError:
        where = f"{self.display}, sheet {printable(sheet)}" if sheet else self.display
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
            return ElementTree.fromstring(_park_forbidden(data))
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
                out[el.get("name", "").translate(_RESTORE)] = rels[el.get(_NS_REL, "")]
        return out

    def date1904(self) -> bool:
        """True when the workbook counts dates from 1904 (old Mac Excel)."""
        return self._workbook_says(_DATE1904_RE)

    def recalculates(self) -> bool:
        """True when the workbook asks to be recalculated when opened
        (``fullCalcOnLoad``): the values saved with its formulas are placeholders."""
        return self._workbook_says(_FULL_CALC_RE)

    def _workbook_says(self, pattern: re.Pattern[bytes]) -> bool:
        try:
            xml = self.zf.read("xl/workbook.xml")
        except (KeyError, zipfile.BadZipFile, OSError):
            return False
        return pattern.search(xml) is not None

    def struck_styles(self) -> frozenset[bytes]:
        """The style indexes whose font is struck through (``<strike/>``; not
        ``val="0"``)."""
        root = self._xml("xl/styles.xml")
        if root is None:
            return frozenset()
        struck: list[bool] = []
        fonts: list[int] = []
        for el in root:
            tag = el.tag.rsplit("}", 1)[-1]
            if tag == "fonts":
                struck = [
                    any(
                        part.tag.rsplit("}", 1)[-1] == "strike"
                        and part.get("val", "1").lower() not in ("0", "false")
                        for part in font
                    )
                    for font in el
                ]
            elif tag == "cellXfs":
                fonts = [int(xf.get("fontId", "0") or 0) for xf in el]
        return frozenset(
            str(i).encode() for i, f in enumerate(fonts) if 0 <= f < len(struck) and struck[f]
        )

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

    def scan_sheet(
        self,
        sheet: str,
        part: str,
        formats: dict[bytes, str],
        recalculate: bool = False,
        struck: frozenset[bytes] = frozenset(),
    ) -> PendingNotes:
        """Check one sheet against the limits (raises past them); its notes are
        searched in a thread from the same bytes (``PendingNotes.result``).
        ``recalculate``: the workbook's ``recalculates()``; ``struck``: its
        ``struck_styles()``."""
        scan = SheetScan(formats, recalculate, struck)
        pieces: list[tuple[bytes, int, int]] = []
        carry, done = b"", 0
        for chunk in self._inflate(part, sheet):
            buf = carry + chunk
            limit = max(len(buf) - _CONTEXT, done)
            scan.extent(buf, done, limit)
            pieces.append((buf, done, limit))
            keep = max(0, limit - _CONTEXT)
            carry, done = buf[keep:], limit - keep
            self._check_area(scan, sheet)
        scan.extent(carry, done, len(carry))
        pieces.append((carry, done, len(carry)))
        self._check_area(scan, sheet)
        if scan.cells_without_r():
            raise self.fail(
                f"{scan.cells_without_r():,} of its cells have no reference (r attribute), "
                "so how far they reach cannot be checked: refused before reading; open "
                "and save the workbook in Excel or LibreOffice",
                sheet,
            )

        def notes() -> SheetNotes:
            while pieces:
                scan.notes_of(*pieces.pop(0))
            scan.notes.links = self._links(part, scan.hyperlinks)
            return scan.notes

        return PendingNotes(notes)

    def _check_area(self, scan: SheetScan, sheet: str) -> None:
        if scan.odd_r:
            raise self.fail(
                "its cell references are written in a form linksync does not check "
                "(r = '...', a line break or tab before r): refused before reading; "
                "open and save the workbook in Excel or LibreOffice",
                sheet,
            )
        for what, (rows, cols) in (("declares", scan.declared), ("holds", scan.area())):
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
            cell = cell_of(ref)
            if cell is not None:
                out[cell] = target
        return out


def parked_package(path: Path) -> bytes | None:
    """A copy of the workbook ``path`` whose XML parts hold no character XML 1.0
    forbids (each moved to plane 15, as ``_park_forbidden`` does), for a reader that
    refuses them (openpyxl, for the annotated copy); None when the file needs none.
    ``unpark_package`` puts them back in a copy written from it; ``unpark`` in a name."""
    try:
        with zipfile.ZipFile(path) as zf:
            parts = [(info, zf.read(info)) for info in zf.infolist()]
    except (OSError, zipfile.BadZipFile, KeyError):
        return None
    parked = [(info, _park_forbidden(data) if _is_xml(info) else data) for info, data in parts]
    if all(new is old for (_, new), (_, old) in zip(parked, parts, strict=True)):
        return None
    return _zip(parked)


def unpark(name: str) -> str:
    """A name read from a ``parked_package``, with its characters put back."""
    return name.translate(_RESTORE)


def unpark_package(path: Path) -> None:
    """Rewrite the workbook ``path`` (written from a ``parked_package``) with each
    parked character as the character reference Excel and calamine read."""
    with zipfile.ZipFile(path) as zf:
        parts = [(info, zf.read(info)) for info in zf.infolist()]
    path.write_bytes(
        _zip([(info, _unpark_xml(data) if _is_xml(info) else data) for info, data in parts])
    )


def _is_xml(info: zipfile.ZipInfo) -> bool:
    return info.filename.endswith((".xml", ".rels", ".vml"))


def _unpark_xml(data: bytes) -> bytes:
    for code in range(0x20):
        data = data.replace(chr(_PARKED + code).encode("utf-8"), f"&#x{code:x};".encode())
    return data


def _zip(parts: list[tuple[zipfile.ZipInfo, bytes]]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for info, data in parts:
            zf.writestr(info, data)
    return out.getvalue()


def _park_forbidden(data: bytes) -> bytes:
    """``data`` with each character XML 1.0 forbids (raw, or a ``&#7;`` reference) moved
    to plane 15, so the parser reads the rest; ``_RESTORE`` puts it back."""

    def park(m: re.Match[bytes]) -> bytes:
        ref = m.group(1)
        if ref is None:
            code = m.group(0)[0]
        else:
            code = int(ref[1:], 16) if ref[:1] in (b"x", b"X") else int(ref)
        if code >= 0x20 or code in (0x9, 0xA, 0xD):
            return m.group(0)
        return chr(_PARKED + code).encode("utf-8")

    if _FORBIDDEN_XML.search(data) is None:
        return data
    return _FORBIDDEN_XML.sub(park, data)


def _is_date_code(code: str) -> bool:
    bare = re.sub(r'"[^"]*"|\[[^\]]*\]|\\.', "", code)
    return _DATE_CODE.search(bare) is not None
