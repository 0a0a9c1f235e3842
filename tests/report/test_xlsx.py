from __future__ import annotations

import shutil
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from linksync.model import RESULT_COLUMNS, Action, RowResult, RunInfo, Status
from linksync.report import open_writer, report_row
from linksync.report.cells import FORMULA_PREFIXES
from linksync.report.xlsx import FAILED_FILL, SKIPPED_FILL, XlsxWriter

from .conftest import write_reports


def _write(path: Path, results: list[RowResult], info: RunInfo) -> Path:
    writer = open_writer(path)
    for r in results:
        writer.write(r)
    return writer.close(info)


def _rows(ws: Any) -> list[list[Any]]:
    return [list(r) for r in ws.iter_rows(values_only=True)]


def _summary_facts(ws: Any) -> dict[str, Any]:
    return {r[0]: r[1] for r in _rows(ws) if r[0] is not None}


def test_xlsx_round_trip(tmp_path: Path, results: list[RowResult], info: RunInfo) -> None:
    path = _write(tmp_path / "out.xlsx", results, info)
    wb = openpyxl.load_workbook(path)
    assert wb.sheetnames == ["Summary", "Results"]
    assert wb.active is not None and wb.active.title == "Summary"
    ws = wb["Results"]
    rows = _rows(ws)
    assert tuple(rows[0]) == RESULT_COLUMNS
    expected = [[None if v == "" else v for v in report_row(r).values()] for r in results]
    # Control characters are kept as Excel escapes them; compare the rest exactly.
    expected[5][RESULT_COLUMNS.index("message")] = rows[6][RESULT_COLUMNS.index("message")]
    assert rows[1:] == expected
    assert str(rows[6][RESULT_COLUMNS.index("message")]).startswith("\tstopped after FORBIDDEN")


def test_xlsx_styles_panes_filter_links_and_widths(
    tmp_path: Path, results: list[RowResult], info: RunInfo
) -> None:
    path = _write(tmp_path / "out.xlsx", results, info)
    ws = openpyxl.load_workbook(path)["Results"]
    assert ws.freeze_panes == "A2"
    assert ws.auto_filter.ref == f"A1:P{len(results) + 1}"
    header = ws.cell(1, 1)
    assert header.font.bold
    assert header.fill.fgColor.rgb == "FF1F4E78"
    short_url_col = RESULT_COLUMNS.index("short_url") + 1
    link = ws.cell(2, short_url_col)
    assert link.hyperlink is not None
    assert link.hyperlink.target == "https://go.example.com/spring-sale"
    assert link.font.underline == "single"
    assert ws.cell(4, short_url_col).hyperlink is None  # failed row without short URL
    # Failed and invalid rows are red across the row, skipped rows amber, ok rows plain.
    for col in (1, 5, 14, 16):
        assert ws.cell(4, col).fill.fgColor.rgb == "FF" + FAILED_FILL[1:]
        assert ws.cell(5, col).fill.fgColor.rgb == "FF" + FAILED_FILL[1:]
        assert ws.cell(7, col).fill.fgColor.rgb == "FF" + SKIPPED_FILL[1:]
        assert ws.cell(2, col).fill.fill_type is None
    # Widths fit the widest value (url column) and the header (attempts column).
    url_col = openpyxl.utils.get_column_letter(RESULT_COLUMNS.index("url") + 1)
    longest_url = max(len(r.url or "") for r in results)
    assert ws.column_dimensions[url_col].width >= longest_url
    assert ws.column_dimensions["P"].width >= len("attempts")


def test_xlsx_summary_sheet(tmp_path: Path, results: list[RowResult], info: RunInfo) -> None:
    path = tmp_path / "out.xlsx"
    write_reports([path], results, info, refused_reason="too many deletes")
    ws = openpyxl.load_workbook(path)["Summary"]
    rows = _rows(ws)
    assert rows[0][0] == "linksync apply"
    assert rows[2][0] == "This plan would be refused: too many deletes"
    facts = _summary_facts(ws)
    assert facts["Target"] == "https://api.example.com/v1"
    assert facts["Mode"] == "upsert"
    assert facts["Duration (s)"] == 12.5
    assert facts["Requests made"] == 9
    assert facts["  update"] == 4
    assert facts["429 waits"] == 1
    assert facts["Rows"] == len(results)
    head = next(r for r in rows if r[0] == "Action")
    assert head[1:6] == ["ok", "failed", "skipped", "invalid", "total"]
    create = next(r for r in rows if r[0] == "create")
    assert create[1:6] == [1, 2, 0, 0, 3]
    total = next(r for r in rows if r[0] == "total")
    assert total[1:6] == [3, 2, 1, 1, 7]
    errors = next(i for i, r in enumerate(rows) if r[0] == "Error constant")
    assert rows[errors + 1][:3] == ["INVALID_URL", 1, "campaign.xlsx, sheet Spring, row 5"]


@pytest.mark.parametrize("prefix", FORMULA_PREFIXES)
def test_xlsx_writes_formula_like_text_as_text(tmp_path: Path, info: RunInfo, prefix: str) -> None:
    evil = f'{prefix}HYPERLINK("http://evil","x")'
    r = RowResult(Action.CREATE, Status.FAILED, slug=evil, url=evil, message=evil)
    path = _write(tmp_path / "out.xlsx", [r], info)
    ws = openpyxl.load_workbook(path)["Results"]
    for name in ("slug", "url", "message"):
        cell = ws.cell(2, RESULT_COLUMNS.index(name) + 1)
        assert cell.data_type == "s"
        # A carriage return is stored as Excel's escape _x000D_; openpyxl reads it raw.
        assert cell.value == evil.replace("\r", "_x000D_")
    with zipfile.ZipFile(path) as z:
        for name in z.namelist():
            if name.startswith("xl/worksheets/"):
                assert b"<f>" not in z.read(name)


def test_xlsx_links_stop_at_the_sheet_limit(tmp_path: Path, info: RunInfo) -> None:
    writer = XlsxWriter(tmp_path / "out.xlsx", max_links=2)
    for i in range(3):
        writer.write(RowResult(Action.CREATE, Status.OK, short_url=f"https://l.test/{i}"))
    writer.write(RowResult(Action.CREATE, Status.OK, short_url="javascript:alert(1)"))
    ws = openpyxl.load_workbook(writer.close(info))["Results"]
    col = RESULT_COLUMNS.index("short_url") + 1
    assert [ws.cell(r, col).hyperlink is not None for r in range(2, 6)] == [
        True,
        True,
        False,
        False,
    ]
    assert ws.cell(4, col).value == "https://l.test/2"


def test_xlsx_abort_leaves_nothing(tmp_path: Path, results: list[RowResult]) -> None:
    writer = open_writer(tmp_path / "out.xlsx")
    writer.write(results[0])
    writer.abort()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(
    not (shutil.which("libreoffice") or shutil.which("soffice")), reason="no LibreOffice"
)
def test_xlsx_opens_in_libreoffice(tmp_path: Path, results: list[RowResult], info: RunInfo) -> None:
    path = _write(tmp_path / "out.xlsx", results, info)
    office = shutil.which("libreoffice") or shutil.which("soffice")
    assert office is not None
    subprocess.run(
        [office, "--headless", "--convert-to", "csv", "--outdir", str(tmp_path / "lo"), str(path)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    converted = (tmp_path / "lo" / "out.csv").read_text(encoding="utf-8", errors="replace")
    assert "linksync apply" in converted  # the active sheet is Summary


def test_xlsx_cuts_text_longer_than_a_cell_holds(tmp_path: Path, info: RunInfo) -> None:
    r = RowResult(Action.CREATE, Status.FAILED, message="x" * 40_000)
    path = _write(tmp_path / "out.xlsx", [r], info)
    cell = openpyxl.load_workbook(path)["Results"].cell(2, RESULT_COLUMNS.index("message") + 1)
    assert len(cell.value) == 32767
    assert cell.value.endswith("\u2026")


def test_xlsx_rows_past_excels_limit_are_counted_not_lost_silently(
    tmp_path: Path, results: list[RowResult], info: RunInfo
) -> None:
    writer = XlsxWriter(tmp_path / "out.xlsx", max_rows=3)
    for r in results:
        writer.write(r)
    wb = openpyxl.load_workbook(writer.close(info))
    assert wb["Results"].max_row == 4
    summary = _rows(wb["Summary"])
    assert summary[2][0] == (
        "Results sheet holds the first 3 rows (Excel's limit); 4 more are counted here: "
        "write a .csv or .jsonl report for all"
    )
    assert _summary_facts(wb["Summary"])["Rows"] == len(results)
