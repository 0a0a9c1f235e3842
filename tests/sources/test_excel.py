"""Excel: sheets, header under title rows, dates (1900 and 1904), numeric slugs."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import pytest
import xlsxwriter  # type: ignore[import-untyped]

from linksync.errors import SourceError
from linksync.model import Severity
from linksync.sources import read_sources
from linksync.sources.excel import _columns
from linksync.sources.normalize import excel_serial_to_datetime


def _book(path: Path, *, date_1904: bool = False) -> Path:
    wb = xlsxwriter.Workbook(str(path), {"date_1904": date_1904, "strings_to_urls": False})
    dt = wb.add_format({"num_format": "dd/mm/yyyy hh:mm"})
    ws = wb.add_worksheet("Links")
    ws.write(0, 0, "Quarterly links")
    ws.write_row(2, 0, ["Destination URL", "Short code", "Expiration", "Tags"])
    ws.write_row(3, 0, ["https://example.com/a", "a"])
    ws.write_datetime(3, 2, datetime(2030, 6, 30, 23, 59), dt)
    ws.write_row(4, 0, ["https://example.com/b"])
    ws.write_number(4, 1, 2024)  # a slug typed as a number
    ws.write_number(4, 2, 47483.5)  # a bare serial number in the expiry column
    ws.write_number(4, 3, 7)
    ws.write_row(5, 0, ["https://example.com/c", "c", "soon", True])
    other = wb.add_worksheet("Other")
    other.write_row(0, 0, ["URL", "Slug"])
    other.write_row(1, 0, ["https://example.com/o", "o"])
    hidden = wb.add_worksheet("Hidden")
    hidden.write_row(0, 0, ["URL", "Slug"])
    hidden.write_row(1, 0, ["https://example.com/h", "h"])
    hidden.hide()
    wb.add_worksheet("Notes").write(0, 0, "Only prose here, no links.")
    wb.add_worksheet("Scratch").write(0, 0, "Some other table")
    wb.close()
    return path


@pytest.mark.parametrize("date_1904", [False, True], ids=["1900", "1904"])
def test_dates_numbers_and_rows(tmp_path: Path, date_1904: bool) -> None:
    path = _book(tmp_path / "b.xlsx", date_1904=date_1904)
    batch = read_sources([path])
    got = [
        (s.provenance.sheet, s.provenance.row, s.slug, s.expires_at, s.tags)
        for s in batch.specs
        if s.provenance
    ]
    serial = "2029-12-31T12:00:00.000Z" if not date_1904 else "2034-01-01T12:00:00.000Z"
    assert got == [
        ("Links", 4, "a", "2030-06-30T23:59:00.000Z", None),
        ("Links", 5, "2024", serial, ("7",)),
        ("Links", 6, "c", "soon", ("TRUE",)),
        ("Other", 2, "o", None, None),
    ]
    # Prose-only "Notes" is skipped silently; "Scratch" gets one warning, and so does
    # the hidden sheet of links, which is not read.
    assert [
        (p.constant, p.severity, p.provenance.sheet if p.provenance else None)
        for p in batch.problems
    ] == [
        ("HIDDEN_SHEET", Severity.WARNING, "Hidden"),
        ("MISSING_URL_COLUMN", Severity.WARNING, "Scratch"),
    ]


def test_named_sheets(tmp_path: Path) -> None:
    path = _book(tmp_path / "b.xlsx")
    batch = read_sources([path], sheets=["Other", "Hidden"])
    assert [s.slug for s in batch.specs] == ["o", "h"]
    with pytest.raises(SourceError, match="no sheet named 'Nope'"):
        read_sources([path], sheets=["Nope"])
    batch = read_sources([path], sheets=["Notes"])
    assert [(p.constant, p.severity) for p in batch.problems] == [
        ("MISSING_URL_COLUMN", Severity.ERROR)
    ]


def test_not_a_workbook(tmp_path: Path) -> None:
    bad = tmp_path / "x.xlsx"
    bad.write_bytes(b"not a zip")
    with pytest.raises(SourceError, match="not a readable workbook"):
        read_sources([bad])


@pytest.mark.parametrize(
    "serial,date1904,expected",
    [
        (1, False, date(1900, 1, 1)),
        (59, False, date(1900, 2, 28)),
        (61, False, date(1900, 3, 1)),
        (45658, False, date(2025, 1, 1)),
        (0, True, date(1904, 1, 1)),
        (44196, True, date(2025, 1, 1)),
    ],
)
def test_excel_serials(serial: float, date1904: bool, expected: date) -> None:
    dt = excel_serial_to_datetime(serial, date1904=date1904)
    assert dt is not None and dt.date() == expected
    assert excel_serial_to_datetime(-1) is None


def test_expiry_column_matches_cell_by_cell_conversion() -> None:
    """The per-distinct expiry column names the instant of converting
    each cell."""
    from datetime import datetime, time, timedelta

    from linksync.sources.excel import _expiry_column, cell_expiry
    from linksync.sources.normalize import normalize_expiry

    cells = [
        datetime(2030, 1, 1, 5, 6, 7, 999_999),
        datetime(1960, 3, 4, 0, 0, 0, 500),
        datetime(9999, 12, 31, 23, 59, 59, 999_999),
        datetime(999, 1, 1, 12),
        date(2031, 2, 3),
        datetime(2031, 2, 3),
        1,
        1.0,
        True,
        45000.5,
        -3.0,
        float("nan"),
        None,
        "",
        " 2030-01-01 ",
        time(12, 30),
        timedelta(days=1),
        datetime(2030, 1, 1, 5, 6, 7, 999_999),
    ]
    for date1904 in (False, True):
        for column in (cells, [c for c in cells if isinstance(c, date | str) or c is None]):
            got = _expiry_column(column, date1904)
            for cell, text in zip(column, got, strict=True):
                if isinstance(cell, str):
                    assert text == cell
                    continue
                # Wall-clock text (the run's zone applies when the column is
                # normalised): the same instant as converting the cell itself.
                value = cell_expiry(cell, date1904)
                want = "" if value is None else normalize_expiry(value)
                assert (normalize_expiry(text) if text else "") == want, cell


def test_a_column_beyond_the_shortest_row_reads_as_empty() -> None:
    """calamine's rows are all as wide as the sheet; rows of other widths read as
    ``zip`` over them would: a column past the shortest row is empty throughout, also
    when the short row comes after the first rows."""
    rows: list[list[object]] = [["a", "b", "c"], ["d", "e"], ["f", "g", "h"]]
    cols = _columns(rows, 0, [1, 2, 3])
    assert cols == {1: ["b", "e", "g"], 2: ["", "", ""], 3: ["", "", ""]}
    long = [["h1", "h2", "h3"]] + [[f"a{i}", f"b{i}", f"c{i}"] for i in range(700)]
    long[500] = ["short", "row"]
    cols = _columns(long, 1, [0, 1, 2])
    assert cols[0] == [r[0] for r in long[1:]] and cols[2] == [""] * 700


def test_rows_stream_as_calamine_reads_the_whole_sheet(tmp_path: Path) -> None:
    """Whatever the used range (from A1, past column A, past row 1, empty), the
    columns equal those of ``to_python(skip_empty_area=False)``, row for row."""
    from python_calamine import CalamineWorkbook

    path = tmp_path / "shapes.xlsx"
    wb = xlsxwriter.Workbook(str(path))
    for name, row0, col0 in (("A1", 0, 0), ("C1", 0, 2), ("B5", 4, 1)):
        ws = wb.add_worksheet(name)
        for r in range(900):
            ws.write_row(row0 + r, col0, [f"u{r}", r, "" if r % 7 else f"t{r}"])
    wb.add_worksheet("Empty")
    wb.close()
    book = CalamineWorkbook.from_path(str(path))
    for name in ("A1", "C1", "B5", "Empty"):
        whole = book.get_sheet_by_name(name).to_python(skip_empty_area=False)
        width = len(whole[0]) if whole else 0
        for start in (0, 3, 70, 400):
            got = _columns(whole, start, list(range(width + 1)))
            for c in range(width + 1):
                want = [r[c] if c < width else "" for r in whole[start:]]
                assert got[c] == want, (name, start, c)
