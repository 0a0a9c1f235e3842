"""Excel reader (.xlsx .xlsm .xlsb .xls .ods) through python-calamine.

Measured for 100,000 rows x 10 columns on a 2-core machine (docs/performance.md):
pandas+openpyxl 12-16 s, pandas+calamine 1.5-2.1 s, calamine rows 0.8 s. So cells are
read with calamine directly, taken into the mapped columns only
(``linksync.sources.excel_rows``), and only those are converted.

Every visible worksheet is read, or the named ones. The header row is found under
any title rows. Dates and datetimes become ISO 8601 UTC (a workbook has no zone, so
its times are wall-clock times in the run's zone, ``--timezone``, UTC by default); a
plain number in the expiry column is an Excel serial day in the workbook's date system
(1900, or 1904 when ``workbookPr date1904`` is set).
Numbers elsewhere are text without a spurious ``.0`` (slug ``2024`` stays ``2024``).

Before calamine reads anything, ``linksync.sources.xlsx_guard`` refuses bombs (a sheet
spanning too many cells, parts inflating too far); what values hide (error cells,
number formats, hyperlinks, formulas without a saved value) and how the sheet looks
(hidden rows and columns, its filter, merged ranges) is noted in a thread while
calamine parses; ``linksync.sources.excel_layout`` reads the cells as the sheet shows
them (a merged range's value on every row it covers, hidden rows skipped unless
``--include-hidden``), and ``linksync.sources.excel_cells`` turns each cell into text
and says so on the row when a cell is not what it shows. A workbook with no sheet to
read (none, only hidden ones, none with a header) is an error, as an empty CSV is.
"""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any

from python_calamine import CalamineWorkbook, SheetTypeEnum, SheetVisibleEnum

from linksync.errors import SourceError
from linksync.model import Problem, Provenance, Severity
from linksync.safe.terminal import printable
from linksync.sources.columns import compile_mapping, match_columns, normalize_header
from linksync.sources.encrypted import decrypt_workbook, is_encrypted_workbook
from linksync.sources.excel_cells import CellReader, cell_text
from linksync.sources.excel_layout import (
    hidden_columns,
    hide_rows,
    skipped_sheet,
    spread_merged,
    unread_links,
)
from linksync.sources.frame import ReadResult, UnknownColumn
from linksync.sources.header import find_header
from linksync.sources.normalize import excel_serial_to_datetime, normalize_expiry
from linksync.sources.options import MAX_WORKBOOK_BYTES, ReadOptions
from linksync.sources.table import build_frame, unknown_column_problem
from linksync.sources.xlsx_guard import Package, PendingNotes, SheetNotes

#: Zip packages whose parts are size-checked; OOXML ones are scanned sheet by sheet.
_ZIPPED = frozenset({".xlsx", ".xlsm", ".ods"})
_OOXML = frozenset({".xlsx", ".xlsm"})
#: Sheets of instructions or notes: skipped without a warning when they hold no web
#: address (with one, ``UNREAD_SHEET`` as any other sheet without a header).
_HELP_SHEETS = frozenset(
    {"instructions", "readme", "help", "notes", "about", "info", "howto", "lists", "lookup"}
)


def typed_sheet(typed: str, names: Sequence[str]) -> str:
    """The sheet ``--sheet typed`` names: the name itself, else the one whose control
    or direction characters are typed as linksync prints them (``Links\\u202e\\u0007``,
    or Python's ``Links\\u202e\\x07``); ``typed`` when none."""
    if typed in names:
        return typed
    for name in names:
        if typed in (printable(name), repr(name)[1:-1]):
            return name
    return typed


def cell_expiry(v: Any, date1904: bool) -> Any:
    """An expiry cell: datetimes/dates kept, serial numbers converted, text kept."""
    if v is None or v == "":
        return None
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, int | float):
        dt = excel_serial_to_datetime(float(v), date1904=date1904)
        # A serial is a wall-clock time too: read in the run's zone, as dates are.
        return dt.replace(tzinfo=None) if dt is not None else cell_text(v)
    if isinstance(v, timedelta):
        return str(v)
    return v


def _expiry_column(values: Sequence[Any], date1904: bool) -> list[Any]:
    """The expiry cells as text for ``build_frame`` ("" for empty cells).

    Text cells are passed as they are (``build_frame`` trims and normalises them);
    every other cell becomes its wall-clock text (``_wall_clock``), which
    ``normalize_expiry`` reads as ``cell_expiry(v)``. Each distinct cell is converted
    once, keyed by type as well, so ``1``, ``1.0`` and ``True`` stay apart."""
    if set(map(type, values)) <= {str}:
        return list(values)
    keys = list(zip(map(type, values), values, strict=True))
    texts = {key: _expiry_text(key[1], date1904) for key in dict.fromkeys(keys)}
    return list(map(texts.__getitem__, keys))


def _expiry_text(v: Any, date1904: bool) -> str:
    if type(v) is str:
        return v
    cell = cell_expiry(v, date1904)
    return "" if cell is None else _wall_clock(cell)


def _wall_clock(cell: Any) -> str:
    """A date or naive date-time cell as ISO text without a zone, to the millisecond
    (the run's zone applies when the column is normalised); anything else as
    ``normalize_expiry`` writes it."""
    if isinstance(cell, datetime) and cell.tzinfo is None:
        return cell.isoformat(timespec="milliseconds")
    if isinstance(cell, date) and not isinstance(cell, datetime):
        return datetime.combine(cell, time()).isoformat(timespec="milliseconds")
    return normalize_expiry(cell)


def read_excel_file(path: Path, display: str, *, options: ReadOptions) -> ReadResult:
    wanted = list(options.sheets or ())
    suffix = path.suffix.lower()
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise SourceError(f"{display}: cannot read: {exc.strerror or exc}", path=display) from exc
    if size > MAX_WORKBOOK_BYTES:
        raise SourceError(
            f"{display}: {size:,} bytes, more than {MAX_WORKBOOK_BYTES:,}: refused", path=display
        )
    # An encrypted workbook is decrypted in memory; its bytes pass the same guards.
    data = (
        decrypt_workbook(path, display, options.workbook_password)
        if is_encrypted_workbook(path)
        else None
    )
    pkg = Package(path, display, data) if suffix in _ZIPPED else None
    try:
        if pkg is not None:
            pkg.check_sizes()
        return _read_book(path, display, wanted, options, pkg, data)
    finally:
        if pkg is not None:
            pkg.close()


def _read_book(
    path: Path,
    display: str,
    wanted: list[str],
    opts: ReadOptions,
    pkg: Package | None,
    data: bytes | None,
) -> ReadResult:
    try:
        if data is None:
            wb = CalamineWorkbook.from_path(str(path))
        else:
            wb = CalamineWorkbook.from_filelike(io.BytesIO(data))
    except Exception as exc:  # calamine raises its own error types
        raise SourceError(f"{display}: not a readable workbook: {exc}", path=display) from exc
    result = ReadResult()
    ooxml = path.suffix.lower() in _OOXML
    date1904 = pkg is not None and ooxml and pkg.date1904()
    if wanted:
        wanted = [typed_sheet(w, wb.sheet_names) for w in wanted]
        missing = [s for s in wanted if s not in wb.sheet_names]
        if missing:
            raise SourceError(
                f"{display}: no sheet named {', '.join(repr(m) for m in missing)} "
                f"(sheets: {', '.join(repr(s) for s in wb.sheet_names)})",
                path=display,
                sheet=missing[0],
            )
        names = wanted
    else:
        names = [m.name for m in wb.sheets_metadata if m.typ == SheetTypeEnum.WorkSheet]
    scan = _notes(pkg) if pkg is not None and ooxml else None
    hidden = [] if wanted else _hidden_with_links(display, wb, names, opts, scan, result)
    if not wanted:  # the visible worksheets, and the hidden ones --include-hidden reads
        shown = {m.name for m in wb.sheets_metadata if m.visible == SheetVisibleEnum.Visible}
        names = [n for n in names if n in shown or (opts.include_hidden and n in hidden)]
    notes_for = scan
    if notes_for is None and names and not ooxml:
        result.problems.append(
            Problem(
                "UNCHECKED_FORMAT",
                f"{path.suffix.lower()} workbooks do not let linksync tell error cells (#N/A) "
                "from empty cells, nor see number formats, hyperlinks, formulas without a "
                "saved value, hidden rows, merged cells and struck-through cells: save as "
                ".xlsx to have them checked",
                Provenance(display),
                None,
                Severity.WARNING,
            )
        )
    for name in names:
        # The sheet is checked (and refused past the limits) before calamine reads it;
        # its notes are searched in a thread meanwhile.
        pending = notes_for(name) if notes_for is not None else None
        try:
            rows = wb.get_sheet_by_name(name).to_python(skip_empty_area=False)
        except BaseException as exc:
            # calamine's own exceptions, and its panics (pyo3 raises those as
            # ``PanicException``, a ``BaseException``: a malformed sheet must not end the
            # run with a traceback)
            if not (isinstance(exc, Exception) or type(exc).__name__ == "PanicException"):
                raise
            if pending is not None:
                pending.result()
            raise SourceError(
                f"{display}: sheet {name!r}: {exc}", path=display, sheet=name
            ) from exc
        notes = pending.result() if pending is not None else SheetNotes()
        _read_sheet(display, name, rows, bool(wanted), date1904, opts, notes, result)
    if not any(len(f) for f in result.frames) and not any(
        p.severity is Severity.ERROR for p in result.problems
    ):
        result.problems.append(_nothing_to_read(display, wb, names))
    return result


def _notes(pkg: Package) -> Callable[[str], PendingNotes]:
    """The scan of one sheet by name, the workbook's parts and styles read once."""
    parts = pkg.sheet_parts()
    formats = pkg.display_formats()
    recalculate = pkg.recalculates()
    struck = pkg.struck_styles()

    def scan(name: str) -> PendingNotes:
        if name not in parts:
            raise pkg.fail("cannot find this sheet's part in the workbook", name)
        return pkg.scan_sheet(name, parts[name], formats, recalculate, struck)

    return scan


def _hidden_with_links(
    display: str,
    wb: CalamineWorkbook,
    sheets: list[str],
    opts: ReadOptions,
    scan: Callable[[str], PendingNotes] | None,
    result: ReadResult,
) -> list[str]:
    """The hidden worksheets (hidden or very hidden) of ``sheets`` that hold links: a
    header naming a destination URL or slug column and a row under it. Unless
    ``--include-hidden`` reads them, each gets a HIDDEN_SHEET warning, which a mirror
    takes as "do not delete" (``sync.ownership.hidden_refusal``): the sheet may name
    the link. A hidden sheet of lists or notes (no such header) is passed over."""
    shown = {m.name for m in wb.sheets_metadata if m.visible == SheetVisibleEnum.Visible}
    out: list[str] = []
    for name in (s for s in sheets if s not in shown):
        why = ""
        try:
            pending = scan(name) if scan is not None else None
            rows = wb.get_sheet_by_name(name).to_python(skip_empty_area=False)
            if pending is not None:
                pending.result()
        except Exception as exc:  # past the guard's limits, or unreadable: may hold links
            why = f"could not be checked ({exc}), so it may hold links"
        else:
            head = find_header(rows, explicit=compile_mapping(opts.mapping))
            if head is None or not {"url", "slug"} & set(
                match_columns(list(head.cells), opts.mapping).fields
            ):
                continue
            count = sum(1 for row in rows[head.data_start :] if not _is_blank([row]))
            if not count:
                continue
            why = f"{count} row{'' if count == 1 else 's'} under a header naming links"
        out.append(name)
        if opts.include_hidden:
            continue
        result.problems.append(
            Problem(
                "HIDDEN_SHEET",
                f"the sheet is hidden and was not read: {why}; --include-hidden reads it "
                "(or name the sheets to read with --sheet)",
                Provenance(display, name),
                None,
                Severity.WARNING,
            )
        )
    return out


def _nothing_to_read(display: str, wb: CalamineWorkbook, names: list[str]) -> Problem:
    meta = list(wb.sheets_metadata)
    if not meta:
        why = "the workbook has no sheet"
    elif not names:
        hidden = ", ".join(repr(m.name) for m in meta)
        why = (
            f"every sheet is hidden or not a worksheet ({hidden}); name one with --sheet, "
            "or read hidden sheets with --include-hidden"
        )
    else:
        why = (
            f"no sheet holds links: {', '.join(repr(n) for n in names)} "
            'has no header row naming a destination URL (e.g. "Destination URL") or no rows'
        )
    return Problem("EMPTY_SOURCE", f"nothing to read: {why}", Provenance(display))


def _read_sheet(
    display: str,
    sheet: str,
    rows: list[list[Any]],
    named: bool,
    date1904: bool,
    opts: ReadOptions,
    notes: SheetNotes,
    result: ReadResult,
) -> None:
    explicit = compile_mapping(opts.mapping)
    head = find_header(rows, explicit=explicit)
    if head is None:
        if named or not (_is_blank(rows) or normalize_header(sheet) in _HELP_SHEETS):
            result.problems.append(skipped_sheet(display, sheet, rows, named))
        elif (pasted := unread_links(display, sheet, rows)) is not None:
            result.problems.append(pasted)  # links pasted on a sheet named "Notes"
        return
    header = list(head.cells)
    match = match_columns(header, opts.mapping)
    if "url" not in match.fields and "slug" not in match.fields:
        result.problems.append(
            Problem(
                "MISSING_URL_COLUMN",
                "no column of destination URLs found among the headers",
                Provenance(display, sheet),
            )
        )
        return
    result.unknown.extend(UnknownColumn(display, sheet, h) for h in match.unknown)
    if match.unknown:
        result.problems.append(unknown_column_problem(display, sheet, match.unknown))
    # The cells as the sheet shows them (``linksync.sources.excel_layout``).
    where = Provenance(display, sheet)
    shown = spread_merged(rows, notes, head.data_start, match) if notes.merged else []
    skipped: set[int] = set()
    if notes.hidden_rows and not opts.include_hidden:
        skipped, hidden, summary = hide_rows(rows, notes, head.data_start, match, where)
        shown += hidden
        result.problems.extend([summary] if summary is not None else [])
    if notes.hidden_cols:
        read = hidden_columns(notes, match, where)
        result.problems.extend([read] if read is not None else [])
    # Cells of the mapped columns only, one list per column (``_columns``).
    # A column feeding two fields is copied for each: the cell checks change their list.
    cells_by_col = _columns(rows, head.data_start, match.used)
    uses = Counter(col for fname in match.fields for col in match.columns_of(fname))
    cells_of = CellReader(notes, head.data_start, skipped)
    cells_of.issues.extend(shown)
    columns: dict[str, list[list[Any]]] = {}
    for fname in match.fields:
        columns[fname] = []
        for col in match.columns_of(fname):
            cells = cells_by_col[col] if uses[col] == 1 else list(cells_by_col[col])
            if fname == "expires_at":
                texts = _expiry_column(cells, date1904)
                columns[fname].append(cells_of.expiry(cells, texts, col, date1904))
            else:
                columns[fname].append(cells_of.text(cells, fname, col))
    frame, problems = build_frame(
        display, sheet, columns, head.data_start + 1, match, issues=cells_of.issues, options=opts
    )
    result.frames.append(frame)
    result.problems.extend(problems)
    if not len(frame):
        result.problems.append(
            Problem(
                "EMPTY_SOURCE",
                f"the sheet has a header (row {head.last + 1}) but no rows under it",
                Provenance(display, sheet),
                None,
                Severity.WARNING,
            )
        )


def _is_blank(rows: list[list[Any]]) -> bool:
    return all(v in ("", None) for row in rows for v in row)


def _columns(rows: list[list[Any]], start: int, cols: list[int]) -> dict[int, list[Any]]:
    """The cells of ``cols`` (sheet column indexes from 0) in the rows from index
    ``start`` on, one list per column. A column beyond the shortest row reads as
    empty, as ``zip`` over the rows would have it (calamine's rows all have the
    sheet's width)."""
    data = rows[start:]
    width = min(map(len, data), default=0)
    return {c: [row[c] for row in data] if c < width else [""] * len(data) for c in cols}
