"""``linksync template`` writes its workbook with linksync's own writer: no second
workbook library is needed (the command runs with xlsxwriter unimportable), and the
sheet looks as before (a styled, frozen, filtered header, column widths, the expiry a
real Excel date, wrapped instructions); a dropdown whose values Excel's inline list
cannot hold (a comma) points at the hidden Lists sheet instead of splitting them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import openpyxl

BLOCKED = """
import sys
sys.modules["xlsxwriter"] = None  # import xlsxwriter now raises ImportError
sys.argv = ["linksync", *sys.argv[1:]]
from linksync.cli import main
main()
"""


def _template(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", BLOCKED, "template", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_workbook_needs_no_second_writer_and_keeps_its_look(tmp_path: Path) -> None:
    done = _template(tmp_path, "links.xlsx")
    assert done.returncode == 0, done.stderr
    wb = openpyxl.load_workbook(tmp_path / "links.xlsx")
    assert wb.sheetnames == ["Links", "Instructions"]
    links = wb["Links"]
    head = links["A1"]
    assert (head.value, head.font.b, head.fill.fgColor.rgb) == ("Destination URL", True, "FFDDEBF7")
    assert links.freeze_panes == "A2" and links.auto_filter.ref == "A1:L4"
    assert round(links.column_dimensions["A"].width) == 35
    assert round(links.column_dimensions["B"].width) == 17
    expires = links["F2"]
    assert expires.is_date and expires.number_format == "yyyy-mm-dd hh:mm"
    assert expires.value.isoformat() == "2030-12-31T23:59:00"
    info = wb["Instructions"]
    assert info["A1"].font.b and info["A1"].value == "How to fill in the Links sheet"
    rows = {r[0].value: r[1] for r in info.iter_rows(min_row=7) if r[0].value}
    assert rows["Slug"].alignment.wrap_text and rows["Slug"].alignment.vertical == "top"
    res = subprocess.run(  # validate reads it as a user's file
        [sys.executable, "-m", "linksync", "validate", "links.xlsx"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert res.returncode == 0 and "No problems found" in res.stdout, res.stdout + res.stderr


def test_values_with_a_comma_are_listed_on_the_hidden_sheet(tmp_path: Path) -> None:
    (tmp_path / "linksync.yaml").write_text(
        'utm_rules:\n  allowed:\n    utm_source: ["news, letter", facebook]\n'
        "    utm_medium: [email, social]\n",
        encoding="utf-8",
    )
    done = _template(tmp_path, "links.xlsx")
    assert done.returncode == 0, done.stderr
    wb = openpyxl.load_workbook(tmp_path / "links.xlsx")
    assert wb.sheetnames == ["Links", "Instructions", "Lists"]
    assert wb["Lists"].sheet_state == "hidden"
    assert [c.value for c in wb["Lists"]["A"]] == ["utm_source", "news, letter", "facebook"]
    rules = {str(dv.sqref): dv.formula1 for dv in wb["Links"].data_validations.dataValidation}
    assert rules == {"J2:J1001": "Lists!$A$2:$A$3", "K2:K1001": '"email,social"'}
