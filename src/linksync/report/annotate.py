"""The annotated copy of a source spreadsheet: the user's own file with four columns
appended to each sheet that has results (Short link, Status, Error, Expires: the expiry
with the zone it was read in and the instant sent), filled on the row each result came
from. Error holds a row's error, or the warnings of a row done ``ok``. Everything else
is left as it was.

The header goes in the row the reader found the header in: the row above the first data
row reported for that sheet (sample workbooks have a title row above the header).
Columns are appended after the last used column; a file that already has these headers
(an annotated copy run again; Short link, Status, Error found) gets them refilled, not
appended again.

xlsx/xlsm are edited with openpyxl (load, change, save: values, styles, other sheets and
column order are kept; VBA kept for .xlsm). CSV keeps its encoding, delimiter and line
ending; the new cells are neutralised against formulas.

With ``qr`` (``--qr``), an xlsx/xlsm copy gets a fourth column, "QR code", with each
row's code (``linksync.report.qr_sheet``).
"""

from __future__ import annotations

import copy
import csv
import io
from collections.abc import Callable, Iterable, Mapping, Sequence
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from linksync.errors import ConfigError, SourceError
from linksync.model import Action, RowResult, Status
from linksync.model.links import column_letter
from linksync.report.cells import error_text, neutralize, xml_text
from linksync.safe.outputs import Output, atomic_path, check_outputs, protected_inputs

if TYPE_CHECKING:
    from linksync.report.qr import QrCodes

# openpyxl, the sources package (pandas) and the QR codes (zipfile, the drawing) are
# imported where used: a run that annotates nothing does not need them, and every run
# imports this module.

ANNOTATION_HEADERS: tuple[str, ...] = ("Short link", "Status", "Error", "Expires")
#: The headers of copies annotated before the Expires column: found and extended.
_OLD_HEADERS = ANNOTATION_HEADERS[:3]
_N = len(ANNOTATION_HEADERS)
SPREADSHEET_SUFFIXES = (".xlsx", ".xlsm", ".csv")

_DONE = {
    Action.CREATE: "created",
    Action.UPDATE: "updated",
    Action.REPLACE: "replaced",
    Action.DELETE: "deleted",
    Action.RETIRE: "retired",
    Action.UNCHANGED: "unchanged",
}
#: When a row has several results, the one shown is the worst.
_SEVERITY = {
    Status.OK: 0,
    Status.PLANNED: 1,
    Status.SKIPPED: 2,
    Status.FAILED: 3,
    Status.INVALID: 4,
}

RowKey = tuple[str | None, int]


def status_text(result: RowResult) -> str:
    """What the Status column says: 'created', 'unchanged', 'planned: create', 'failed'..."""
    if result.status == Status.OK:
        return _DONE.get(result.action, result.action.value)
    if result.status == Status.PLANNED:
        return f"planned: {result.action.value}"
    return result.status.value


def annotation(result: RowResult) -> tuple[str, str, str, str]:
    """The appended values of one row: short link, status, error, and the expiry with
    its zone (``2027-03-31 23:59 America/New_York = 2027-04-01T03:59:00.000Z``)."""
    if result.status == Status.OK:
        error = "; ".join(result.warnings)  # a row done with warnings says them
    else:
        error = error_text(result)
        expiry = f"expires {result.expires}" if result.expires else None
        if expiry and error == expiry:
            error = ""  # a planned row's message is its expiry: said in its own column
        elif expiry and error.endswith(f"; {expiry}"):
            error = error[: -len(expiry) - 2]
    return (result.short_url or "", status_text(result), error, result.expires or "")


def _same_source(name: str, source: Path, shown: str | None = None) -> bool:
    if shown is not None:  # read under a name of its own (``linksync.sources.named``)
        return name == shown
    given = Path(name)
    if given.name != source.name:
        return False
    try:
        return given.resolve() == source.resolve() or not given.exists()
    except OSError:
        return True


def rows_by_sheet(
    results: Iterable[RowResult], source: Path, shown: str | None = None
) -> dict[str | None, dict[int, RowResult]]:
    """The results of ``source`` (its rows named ``shown``, when it was read under a name
    of its own) that carry a row, by sheet then row (worst one kept)."""
    out: dict[str | None, dict[int, RowResult]] = {}
    for result in results:
        if not result.source or not _same_source(result.source, source, shown):
            continue
        if result.row is None:
            continue
        rows = out.setdefault(result.sheet, {})
        held = rows.get(result.row)
        if held is None or _SEVERITY[result.status] > _SEVERITY[held.status]:
            rows[result.row] = result
    return out


def annotation_pairs(
    sources: Sequence[str | PathLike[str]], outs: Sequence[str | PathLike[str]]
) -> list[tuple[Path, Path]]:
    """Each annotated copy with the source it copies: the first ``--annotate`` goes with
    the first spreadsheet source (.xlsx .xlsm .csv), the second with the second..."""
    sheets = [
        Path(s)
        for s in sources
        if Path(s).suffix.lower() in SPREADSHEET_SUFFIXES and not Path(s).is_dir()
    ]
    if outs and not sheets:
        raise ConfigError(
            "--annotate copies a spreadsheet source (.xlsx, .xlsm or .csv), and this run has none"
        )
    if len(outs) > len(sheets):
        raise ConfigError(
            f"--annotate given {len(outs)} times, but the run has {len(sheets)} spreadsheet "
            "source(s): one annotated copy per spreadsheet source, in order (nothing was done)"
        )
    return list(zip(sheets, (Path(o) for o in outs), strict=False))


def annotate_outputs(source: Path, out: Path, *, qr: bool = False) -> list[Output]:
    """Every output an annotated copy of ``source`` at ``out`` writes: the copy (same
    extension), and with ``qr`` for a workbook the folder of QR images a large sheet
    links to."""
    suffix = source.suffix.lower()
    if suffix not in SPREADSHEET_SUFFIXES or source.is_dir():
        raise ConfigError(f"cannot annotate {source}: only .xlsx, .xlsm and .csv sources")
    from linksync.sources.encrypted import is_encrypted_workbook  # light: no pandas

    if suffix != ".csv" and is_encrypted_workbook(source):
        # The copy would hold the workbook's contents decrypted, beside the encrypted one.
        raise ConfigError(
            f"cannot annotate {source}: the workbook is encrypted, and linksync does not "
            "write a decrypted copy of it; use --report for the results (nothing was done)"
        )
    outputs = [Output(out, f"--annotate (copy of {source})", (suffix,))]
    if qr and suffix != ".csv":
        from linksync.report.qr_sheet import qr_folder_output

        outputs.append(qr_folder_output(out))
    return outputs


def write_annotated(
    source_path: str | Path,
    results: Iterable[RowResult],
    out_path: str | Path,
    *,
    qr: QrCodes | None = None,
    shown: str | None = None,
) -> Path:
    """Write a copy of the spreadsheet ``source_path`` annotated with ``results`` to
    ``out_path`` (written atomically; never over the source itself). ``qr``: add the
    QR column to a workbook copy, drawing codes through this cache; ``shown``: the name
    the source's rows give, when it was read under a name of its own."""
    source, out = Path(source_path), Path(out_path)
    check_outputs(annotate_outputs(source, out, qr=qr is not None), protected_inputs([source]))
    suffix = source.suffix.lower()
    if not source.is_file():
        raise SourceError(f"cannot annotate {source}: file not found", path=str(source))
    by_sheet = rows_by_sheet(results, source, shown)
    with atomic_path(out) as tmp:
        if suffix == ".csv":
            _annotate_csv(source, by_sheet, tmp)
        else:
            _annotate_xlsx(source, by_sheet, tmp, keep_vba=suffix == ".xlsm", qr=qr, out=out)
    return out


# --- xlsx ---------------------------------------------------------------------------------


def _annotation_start(values: Sequence[object]) -> int | None:
    """0-based column of existing annotation headers in a header row, if present."""
    for i in range(len(values) - 2):
        if tuple(values[i : i + 3]) == _OLD_HEADERS:
            return i
    return None


def _header_above(rows: Sequence[Sequence[object]], first_data: int) -> int | None:
    """0-based index of the header row for data starting at index ``first_data``: the
    reader's own header detection, else the nearest non-blank row above the data."""
    # Imported here: the sources package loads pandas, which writing reports never needs.
    from linksync.sources.columns import find_header_row

    found = find_header_row(rows[:first_data])
    if found is not None:
        return found
    for index in range(first_data - 1, -1, -1):
        if any(v not in (None, "") for v in rows[index]):
            return index
    return None


def _set_text(cell: Any, text: str) -> None:
    """Store ``text`` as a string cell (openpyxl would store '=...' as a formula)."""
    cell.value = xml_text(text) if text else None
    if text:
        cell.data_type = "s"


def _annotate_sheet(ws: Any, rows: dict[int, RowResult], qr: QrCodes | None, out: Path) -> None:
    from linksync.report.qr_sheet import QR_HEADER, clear_qr_column, fill_qr_column

    first = min(rows)
    # (iter_rows reads max_row=0 as "to the end": no rows above row 1 to look at.)
    above = ws.iter_rows(min_row=1, max_row=first - 1, values_only=True) if first > 1 else ()
    top = [list(r) for r in above]
    found = _header_above(top, first - 1)
    header_row = found + 1 if found is not None else 0  # 1-based; 0: no header row
    existing = _annotation_start(top[found]) if found is not None else None
    start = existing + 1 if existing is not None else ws.max_column + 1
    header_values = top[found] if found is not None else []
    qr_at = existing + _N if existing is not None else len(header_values)
    had_qr = qr_at < len(header_values) and header_values[qr_at] == QR_HEADER
    headers = (*ANNOTATION_HEADERS, QR_HEADER) if qr is not None else ANNOTATION_HEADERS
    if header_row >= 1:
        model = ws.cell(header_row, start - 1) if start > 1 else None
        for i, name in enumerate(headers):
            cell = ws.cell(header_row, start + i)
            _set_text(cell, name)
            if model is not None and model.has_style:
                cell.font = copy.copy(model.font)
                cell.fill = copy.copy(model.fill)
                cell.border = copy.copy(model.border)
                cell.alignment = copy.copy(model.alignment)
    widths = [len(h) for h in ANNOTATION_HEADERS]
    for row, result in rows.items():
        for i, value in enumerate(annotation(result)):
            cell = ws.cell(row, start + i)
            _set_text(cell, value)
            widths[i] = max(widths[i], len(value))
            if i == 0 and value.startswith(("https://", "http://")):
                cell.hyperlink = value
                cell.style = "Hyperlink"
    for i, width in enumerate(widths):
        ws.column_dimensions[column_letter(start + i - 1)].width = min(width + 2, 60)
    if qr is not None:
        fill_qr_column(ws, rows, start + _N, qr, out)
    elif had_qr:
        clear_qr_column(ws, start + _N, max(header_row, 1))


def _annotate_xlsx(
    source: Path,
    by_sheet: dict[str | None, dict[int, RowResult]],
    tmp: Path,
    *,
    keep_vba: bool,
    qr: QrCodes | None,
    out: Path,
) -> None:
    import openpyxl  # type: ignore[import-untyped]  # only needed to annotate

    from linksync.sources.xlsx_guard import parked_package, unpark, unpark_package

    # Sheet names with characters XML 1.0 forbids (Links&#x7;): openpyxl reads a copy
    # with them parked, and they are put back in the annotated copy.
    parked = parked_package(source)
    try:
        wb = openpyxl.load_workbook(
            source if parked is None else io.BytesIO(parked), keep_vba=keep_vba, rich_text=True
        )
    except Exception as exc:  # openpyxl raises many kinds on a damaged file
        raise SourceError(f"cannot open {source} to annotate: {exc}", path=str(source)) from exc
    titles = {unpark(title): title for title in wb.sheetnames}
    for sheet, rows in by_sheet.items():
        if sheet is None:
            ws = wb.worksheets[0]
        elif sheet in titles:
            ws = wb[titles[sheet]]
        else:
            raise SourceError(
                f"cannot annotate {source}: no sheet {sheet!r} (did the file change?)",
                path=str(source),
                sheet=sheet,
            )
        _annotate_sheet(ws, rows, qr, out)
    wb.save(tmp)
    if parked is not None:
        unpark_package(tmp)


# --- csv ----------------------------------------------------------------------------------


def _annotate_csv(
    source: Path, by_sheet: dict[str | None, dict[int, RowResult]], out: Path
) -> None:
    from linksync.report.csvformat import decode_csv  # loads the sources package (pandas)

    text, fmt = decode_csv(source.read_bytes(), str(source))
    records = list(csv.reader(io.StringIO(text, newline=""), delimiter=fmt.delimiter))
    # Spreadsheet row n is record n - 1 (+1 below an Excel "sep=" line).
    results: dict[int, RowResult] = {}
    for sheet_rows in by_sheet.values():
        for row, result in sheet_rows.items():
            results[row - 1 + fmt.skip_records] = result
    if not results:
        header = None
    elif fmt.header_record < min(results):
        header = fmt.header_record
    else:
        header = _header_above([[c.strip() for c in r] for r in records], min(results))
    first = header if header is not None else fmt.skip_records
    width = max((len(r) for r in records[first:]), default=0)
    start = _annotation_start(records[header]) if header is not None else None
    if start is None:
        start = width
    for index in range(first, len(records)):
        record = records[index]
        if len(record) < start + _N:
            record.extend([""] * (start + _N - len(record)))
        if index == header:
            record[start : start + _N] = ANNOTATION_HEADERS
        elif index in results:
            record[start : start + _N] = [neutralize(v) for v in annotation(results[index])]
    with open(out, "w", encoding=fmt.encoding, newline="") as f:
        writer = csv.writer(f, delimiter=fmt.delimiter, lineterminator=fmt.lineterminator)
        writer.writerows(records)


def write_copies(
    annotate: Iterable[tuple[Path, Path]],
    qr: Path | None,
    rows: Sequence[RowResult],
    warn: Callable[[str], None],
    names: Mapping[Path, str] | None = None,
) -> list[Path]:
    """A run's annotated copies (``(source, copy)`` pairs) and its QR zip (``qr``); a
    link without a short URL is a warning (``warn``); ``names``: the sources read under
    a name of their own (``linksync.sources.named.shown_names``). Returns the files
    written."""
    written: list[Path] = []
    if qr is None and not annotate:
        return written
    from linksync.report.qr import QrCodes, links_of_results, write_qr_zip

    codes = QrCodes() if qr is not None else None
    for source, copy_path in annotate:
        shown = (names or {}).get(source)
        written.append(write_annotated(source, rows, copy_path, qr=codes, shown=shown))
    if qr is not None:
        links, missing = links_of_results(rows)
        drawn = write_qr_zip(links, qr, codes=codes, left_out=missing)
        written.append(drawn.path)
        for why in drawn.left_out:
            warn(f"no QR code for {why}")
    return written
