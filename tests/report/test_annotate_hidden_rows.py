"""The annotated copy of a filtered workbook: the rows the filter hides are
marked skipped, never created, and stay as the user left them (hidden, the filter
kept); with ``--include-hidden`` they are read and marked as what was done."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openpyxl
from click.testing import CliRunner, Result

from linksync.cli import cli

ROWS = [
    ["https://example.com/a", "live-a", "A", "live"],
    ["https://example.com/b", "gone-b", "B", "cancelled"],
    ["https://example.com/c", "live-c", "Spring", "live"],
    ["https://example.com/d", "live-d", None, "live"],
]


def _filtered(path: Path) -> Path:
    """Status = live filtered, as Excel saves it; Title merged over rows 4-5."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Links"
    ws.append(["Destination URL", "Back-half", "Title", "Status"])
    for row in ROWS:
        ws.append(row)
    ws.auto_filter.ref = "A1:D5"
    ws.auto_filter.add_filter_column(3, ["live"])
    ws.row_dimensions[3].hidden = True
    ws.merge_cells("C4:C5")
    wb.save(path)
    return path


def _apply(*args: str) -> Result:
    return CliRunner().invoke(
        cli, ["apply", "--yes", "--no-progress", *args], catch_exceptions=False
    )


def _annotated(path: Path) -> tuple[dict[int, dict[str, Any]], Any]:
    ws = openpyxl.load_workbook(path)["Links"]
    header = [c.value for c in ws[1]]
    status, error = header.index("Status", 4), header.index("Error")
    rows = {
        n: {"status": ws.cell(n, status + 1).value, "error": ws.cell(n, error + 1).value or ""}
        for n in range(2, ws.max_row + 1)
    }
    return rows, ws


def test_hidden_rows_are_marked_skipped_and_stay_hidden(workdir: Path) -> None:
    source = _filtered(workdir / "campaign.xlsx")
    result = _apply(str(source), "--annotate", "annotated.xlsx")
    assert result.exit_code == 0, result.output
    rows, ws = _annotated(workdir / "annotated.xlsx")
    assert rows[3]["status"] == "skipped"
    assert rows[3]["error"].startswith("hidden row (filtered out by the sheet's filter")
    assert {rows[n]["status"] for n in (2, 4, 5)} == {"created"}
    assert 'C4:C5 is merged: its value "Spring" is read for rows 4-5' in rows[5]["error"]
    assert ws.row_dimensions[3].hidden and not ws.row_dimensions[4].hidden
    assert ws.auto_filter.ref == "A1:D5"


def test_with_include_hidden_they_are_created_and_marked_so(workdir: Path) -> None:
    source = _filtered(workdir / "campaign.xlsx")
    result = _apply(str(source), "--annotate", "annotated.xlsx", "--include-hidden")
    assert result.exit_code == 0, result.output
    rows, _ = _annotated(workdir / "annotated.xlsx")
    assert {rows[n]["status"] for n in (2, 3, 4, 5)} == {"created"}
