from __future__ import annotations

import csv
import io
from pathlib import Path

import openpyxl
import pytest
from openpyxl.styles import Font, PatternFill

from linksync.errors import ConfigError
from linksync.model import Action, RowResult, Status
from linksync.report import ANNOTATION_HEADERS, write_annotated
from linksync.report.csvformat import decode_csv

HEADER_FILL = PatternFill("solid", fgColor="FFDDEBF7")


def _workbook(path: Path) -> Path:
    wb = openpyxl.Workbook()
    spring = wb.active
    assert spring is not None
    spring.title = "Spring"
    spring["A1"] = "Spring campaign 2026"
    spring["A1"].font = Font(bold=True, size=16)
    spring.merge_cells("A1:C1")
    for col, name in enumerate(("Destination URL", "Slug", "Notes", "Clicks"), start=1):
        cell = spring.cell(2, col, name)
        cell.font = Font(bold=True)
        cell.fill = HEADER_FILL
    spring.append(["https://example.com/a", "a", "first", "=1+1"])
    spring.append(["example.com/b", "b", "second", 42])
    spring.append(["https://example.com/c", "c", None, 7])
    spring.column_dimensions["A"].width = 30
    autumn = wb.create_sheet("Autumn")
    autumn.append(["url", "slug"])
    autumn.append(["", "x"])
    autumn.append(["https://example.com/y", "y"])
    readme = wb.create_sheet("Readme")
    readme["A1"] = "Fill in one link per row."
    wb.save(path)
    return path


def _results(source: str) -> list[RowResult]:
    return [
        RowResult(
            Action.CREATE,
            Status.OK,
            source=source,
            sheet="Spring",
            row=3,
            slug="a",
            short_url="https://go.example.com/a",
        ),
        RowResult(
            Action.CREATE,
            Status.FAILED,
            source=source,
            sheet="Spring",
            row=4,
            slug="b",
            error_constant="INVALID_URL",
            message="Destination URL malformed or without http:// or https://",
        ),
        RowResult(
            Action.INVALID, Status.INVALID, source=source, sheet="Autumn", row=2, message="=1+2"
        ),
        RowResult(
            Action.UNCHANGED,
            Status.OK,
            source=source,
            sheet="Autumn",
            row=3,
            short_url="https://go.example.com/y",
        ),
        RowResult(Action.CREATE, Status.OK, source="other.xlsx", sheet="Spring", row=5),
        RowResult(Action.DELETE, Status.OK, domain="go.example.com", slug="gone"),
    ]


def _cells(ws: openpyxl.worksheet.worksheet.Worksheet) -> dict[str, tuple[object, ...]]:
    return {
        c.coordinate: (c.value, c.font.bold, c.fill.fgColor.rgb, c.number_format)
        for row in ws.iter_rows()
        for c in row
    }


def test_annotated_workbook(tmp_path: Path) -> None:
    source = _workbook(tmp_path / "campaign.xlsx")
    before = source.read_bytes()
    original = openpyxl.load_workbook(source)
    out = write_annotated(source, _results(str(source)), tmp_path / "campaign.annotated.xlsx")
    assert source.read_bytes() == before
    wb = openpyxl.load_workbook(out)
    assert wb.sheetnames == ["Spring", "Autumn", "Readme"]
    # Every original cell keeps its value and style.
    for name in ("Spring", "Autumn", "Readme"):
        new_cells = _cells(wb[name])
        for coord, value in _cells(original[name]).items():
            assert new_cells[coord] == value, (name, coord)
    spring = wb["Spring"]
    assert [str(r) for r in spring.merged_cells.ranges] == ["A1:C1"]
    assert spring.column_dimensions["A"].width == 30
    # Header in the header row (row 2, below the title), right of the last column.
    assert tuple(c.value for c in spring[2][4:8]) == ANNOTATION_HEADERS
    assert spring["E2"].font.bold and spring["E2"].fill.fgColor.rgb == "FFDDEBF7"
    assert spring["E1"].value is None
    assert [spring.cell(3, c).value for c in (5, 6, 7)] == [
        "https://go.example.com/a",
        "created",
        None,
    ]
    assert spring["E3"].hyperlink is not None
    assert spring["E3"].hyperlink.target == "https://go.example.com/a"
    assert [spring.cell(4, c).value for c in (5, 6, 7)] == [
        None,
        "failed",
        "INVALID_URL: Destination URL malformed or without http:// or https://",
    ]
    assert all(spring.cell(5, c).value is None for c in (5, 6, 7))  # no result for row 5
    assert spring["D3"].value == "=1+1"  # the user's own formula is still a formula
    autumn = wb["Autumn"]
    assert tuple(c.value for c in autumn[1][2:6]) == ANNOTATION_HEADERS
    assert autumn["D2"].value == "invalid"
    assert autumn["E2"].value == "=1+2" and autumn["E2"].data_type == "s"
    assert autumn["D3"].value == "unchanged"
    assert wb["Readme"].max_column == 1


def test_annotating_an_annotated_copy_reuses_its_columns(tmp_path: Path) -> None:
    source = _workbook(tmp_path / "campaign.xlsx")
    first = write_annotated(source, _results(str(source)), tmp_path / "once.xlsx")
    again = [
        RowResult(Action.UNCHANGED, Status.OK, source="once.xlsx", sheet="Spring", row=3),
        RowResult(Action.UPDATE, Status.PLANNED, source="once.xlsx", sheet="Spring", row=4),
    ]
    second = write_annotated(first, again, tmp_path / "twice.xlsx")
    spring = openpyxl.load_workbook(second)["Spring"]
    assert spring.max_column == 8
    assert spring["F3"].value == "unchanged"
    assert spring["F4"].value == "planned: update"
    assert spring["G4"].value is None


def test_worst_result_of_a_row_is_shown(tmp_path: Path) -> None:
    source = _workbook(tmp_path / "c.xlsx")
    rows = [
        RowResult(Action.CREATE, Status.OK, source="c.xlsx", sheet="Spring", row=3),
        RowResult(
            Action.CREATE,
            Status.INVALID,
            source="c.xlsx",
            sheet="Spring",
            row=3,
            error_constant="DUPLICATE_IN_SOURCE",
        ),
    ]
    spring = openpyxl.load_workbook(write_annotated(source, rows, tmp_path / "o.xlsx"))["Spring"]
    assert (spring["F3"].value, spring["G3"].value) == ("invalid", "DUPLICATE_IN_SOURCE")


@pytest.mark.parametrize(
    ("encoding", "delimiter", "newline"),
    [
        ("cp1252", ";", "\r\n"),
        ("utf-8-sig", ",", "\n"),
        ("utf-16", "\t", "\r\n"),
        ("utf-8", ",", "\r\n"),
    ],
)
def test_annotated_csv_keeps_encoding_delimiter_and_line_ending(
    tmp_path: Path, encoding: str, delimiter: str, newline: str
) -> None:
    lines = [
        ["Frühjahr campaign", "", ""],
        ["Destination URL", "Slug", "Notiz für Team"],
        ["https://example.com/ä", "a", 'says "hi"; ok'],
        ["bad", "b", ""],
        ["https://example.com/c", "c", "no result"],
    ]
    buf = io.StringIO()
    csv.writer(buf, delimiter=delimiter, lineterminator=newline).writerows(lines)
    source = tmp_path / "campaign.csv"
    source.write_bytes(buf.getvalue().encode(encoding))
    results = [
        RowResult(
            Action.CREATE, Status.OK, source="campaign.csv", row=3, short_url="https://l.t/a"
        ),
        RowResult(Action.INVALID, Status.INVALID, source="campaign.csv", row=4, message="-oops"),
    ]
    out = write_annotated(source, results, tmp_path / "campaign.annotated.csv")
    text, fmt = decode_csv(out.read_bytes(), "out")
    assert fmt.encoding == encoding
    assert (fmt.delimiter, fmt.lineterminator, fmt.header_record) == (delimiter, newline, 1)
    rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))
    assert rows[0] == lines[0]  # the title row is left alone
    assert rows[1] == [*lines[1], *ANNOTATION_HEADERS]
    assert rows[2] == [*lines[2], "https://l.t/a", "created", "", ""]
    assert rows[3] == [*lines[3], "", "invalid", "'-oops", ""]
    assert rows[4] == [*lines[4], "", "", "", ""]


def test_annotate_refuses_what_it_cannot_do(tmp_path: Path) -> None:
    source = _workbook(tmp_path / "c.xlsx")
    with pytest.raises(ConfigError, match=r"only \.xlsx"):
        write_annotated(tmp_path / "links.yaml", [], tmp_path / "links.annotated.yaml")
    before = source.read_bytes()
    with pytest.raises(ConfigError, match="would replace the source"):
        write_annotated(source, [], source)
    assert source.read_bytes() == before
    with pytest.raises(ConfigError, match=r"use a file name ending in \.xlsx"):
        write_annotated(source, [], tmp_path / "c.csv")


def test_annotated_csv_below_an_excel_sep_line_and_blank_rows(tmp_path: Path) -> None:
    source = tmp_path / "c.csv"
    source.write_text(
        "sep=;\nurl;slug\n;\nhttps://example.com/a;a\nhttps://example.com/b;b\n",
        encoding="utf-8",
    )
    # As a spreadsheet shows it (sep= line hidden): header row 1, blank row 2, data 3-4.
    results = [
        RowResult(Action.CREATE, Status.OK, source="c.csv", row=3, short_url="https://l.t/a"),
        RowResult(Action.CREATE, Status.SKIPPED, source="c.csv", row=4),
    ]
    out = write_annotated(source, results, tmp_path / "c.annotated.csv")
    assert out.read_text(encoding="utf-8").splitlines() == [
        "sep=;",
        "url;slug;Short link;Status;Error;Expires",
        ";;;;;",
        "https://example.com/a;a;https://l.t/a;created;;",
        "https://example.com/b;b;;skipped;;",
    ]


def test_annotated_workbook_header_found_above_blank_rows(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = "Links"
    ws.append(["Campaign links"])
    ws.append(["Destination URL", "Slug"])
    ws.append([None, None])
    ws.append(["https://example.com/a", "a"])
    wb.save(tmp_path / "w.xlsx")
    rows = [RowResult(Action.CREATE, Status.OK, source="w.xlsx", sheet="Links", row=4)]
    out = write_annotated(tmp_path / "w.xlsx", rows, tmp_path / "w.annotated.xlsx")
    ws = openpyxl.load_workbook(out)["Links"]
    assert [c.value for c in ws[2]] == ["Destination URL", "Slug", *ANNOTATION_HEADERS]
    assert [c.value for c in ws[3]][2:] == [None, None, None, None]
    assert [c.value for c in ws[4]][2:] == [None, "created", None, None]


def test_annotated_workbook_without_header_row(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.append(["https://example.com/a", "a"])
    ws.append(["https://example.com/b", "b"])
    wb.save(tmp_path / "n.xlsx")
    rows = [RowResult(Action.CREATE, Status.OK, source="n.xlsx", row=1, short_url="https://l/a")]
    ws = openpyxl.load_workbook(
        write_annotated(tmp_path / "n.xlsx", rows, tmp_path / "o.xlsx")
    ).active
    assert [c.value for c in ws[1]] == [
        "https://example.com/a",
        "a",
        "https://l/a",
        "created",
    ]
    assert [c.value for c in ws[2]] == ["https://example.com/b", "b", None, None]
