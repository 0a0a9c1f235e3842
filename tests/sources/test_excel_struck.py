"""A struck-through cell is not read as if it were plain.

A shared campaign sheet marks a cancelled row by striking it through (Ctrl+5): the
user sees it crossed out. Its value was read as any other and the link created. Now a
struck cell in a column linksync reads makes its row invalid (STRUCK_THROUGH, one error
a row, naming the cell): the row is not sent, and its link is kept by a mirror as any
invalid row's is. A struck cell in a column not read, an empty struck cell, and a font
whose strike is switched off (``val="0"``) say nothing."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import xlsxwriter
from hostile_inputs import remote, run
from openpyxl.styles import Font

HEADER = ["Destination URL", "Back-half", "Owner"]


def _openpyxl_book(path: Path) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = "Links"
    ws.append(HEADER)
    ws.append(["https://example.com/a", "live-a", "ann"])
    ws.append(["https://example.com/b", "gone-b", "bob"])
    for cell in ws[3]:
        cell.font = Font(strike=True)  # the whole row crossed out
    ws.append(["https://example.com/c", "live-c", "cy"])
    ws["C4"].font = Font(strike=True)  # a column linksync does not read
    ws.append(["https://example.com/d", "live-d", "di"])
    ws["B5"].font = Font(strike=False, bold=True)  # <strike val="0"/>: not struck
    ws["A7"].font = Font(strike=True)  # an empty struck cell below the rows
    wb.save(path)
    return path


def test_a_struck_row_is_invalid_and_the_others_are_created(workdir: Path) -> None:
    path = _openpyxl_book(workdir / "campaign.xlsx")
    args = ["--map", "Owner=ignore", "--yes", "--no-progress"]
    result = run("apply", str(path), *args, "--report", "out/r.json")
    assert result.exit_code == 1, result.output
    assert sorted(remote(workdir)) == ["live-a", "live-c", "live-d"]
    rows = {r["row"]: r for r in json.loads((workdir / "out/r.json").read_text())["results"]}
    assert rows[3]["status"] == "invalid" and rows[3]["error_constant"] == "STRUCK_THROUGH"
    assert 'column "Destination URL": the cell is struck through' in rows[3]["message"]
    assert {rows[n]["status"] for n in (2, 4, 5)} == {"ok"}
    checked = run("validate", str(path), "--map", "Owner=ignore")
    assert checked.output.count("STRUCK_THROUGH") == 1, checked.output


def test_a_mirror_keeps_the_link_of_a_struck_row(workdir: Path) -> None:
    path = _openpyxl_book(workdir / "campaign.xlsx")
    (workdir / "all.csv").write_text(
        "slug,url\nlive-a,https://example.com/a\ngone-b,https://example.com/b\n",
        encoding="utf-8",
    )
    assert run("apply", "all.csv", "--yes", "--no-progress").exit_code == 0
    mirror = run(
        "apply", str(path), "--map", "Owner=ignore", "--yes", "--no-progress",
        "--mode", "mirror", "--domain", "lnk.test",
    )  # fmt: skip
    assert mirror.exit_code == 1, mirror.output
    assert "gone-b" in remote(workdir), "the struck row's link was deleted"


def test_a_strikeout_format_written_by_xlsxwriter_is_seen(workdir: Path) -> None:
    path = workdir / "made.xlsx"
    wb = xlsxwriter.Workbook(str(path))
    ws = wb.add_worksheet("Links")
    struck = wb.add_format({"font_strikeout": True})
    ws.write_row(0, 0, ["URL", "Slug"])
    ws.write_row(1, 0, ["https://example.com/x", "x-1"])
    ws.write_row(2, 0, ["https://example.com/y", "y-1"])
    ws.write(2, 1, "y-1", struck)
    wb.close()
    result = run("validate", str(path))
    assert result.exit_code == 1, result.output
    assert f'STRUCK_THROUGH: {path}, sheet Links, row 3, column "Slug"' in result.output
