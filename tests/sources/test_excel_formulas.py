"""Formula cells as a workbook written by a script holds them.

openpyxl, like most programs that write workbooks, saves a formula without its value:
only Excel (or LibreOffice) calculates it when the file is opened and saved. Read as
calamine reads it, such a cell is empty, and a ``=LOWER("Summer-Sale")`` back-half
became a generated slug. Now it is an error on its cell saying how to get its value,
and the row is not sent; a formula saved with its value is read as that value."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from hostile_inputs import GOOD, Expect, remote, rezip, run, validate, xlsx

HEADER = ["Destination URL", "Back-half", "Title", "Tags", "Expiry", "utm_campaign"]
FORMULA_ROW = [
    "https://example.com/summer",
    '=LOWER("Summer-Sale")',
    "Summer sale",
    "summer, sale",
    "2031-06-30",
    "summer-26",
]


def _campaign(ws: Any) -> None:
    ws.append(HEADER)
    ws.append(FORMULA_ROW)
    ws.append([GOOD[1], GOOD[0], "Alpha", "alpha", "2031-01-31", "alpha-26"])


def _saved_by_excel(data: bytes, value: bytes = b"summer-sale", recalc: bool = False) -> bytes:
    """The workbook as Excel saves it after calculating: the formula cell keeps its
    value (``t="str"`` and ``<v>``), and the workbook no longer asks to be recalculated
    (``recalc``: it still does, as XlsxWriter writes it)."""

    def edit(name: str, part: bytes) -> bytes:
        if name == "xl/worksheets/sheet1.xml":
            cell = re.search(rb'<c r="B2"[^>]*><f>[^<]*</f><v\s*/>', part)
            assert cell is not None, part
            saved = cell.group(0)
            if not value.isdigit():  # a text result; a number (0) has no type
                saved = saved.replace(b'<c r="B2"', b'<c r="B2" t="str"')
            saved = re.sub(rb"<v\s*/>$", b"<v>" + value + b"</v>", saved)
            return part.replace(cell.group(0), saved)
        if name == "xl/workbook.xml":
            assert b'fullCalcOnLoad="1"' in part  # as openpyxl writes it
            return part if recalc else re.sub(rb'\sfullCalcOnLoad="1"', b"", part)
        return part

    return rezip(data, edit)


def test_a_formula_without_a_saved_value_is_an_error_on_its_cell(workdir: Path) -> None:
    path = workdir / "campaign.xlsx"
    path.write_bytes(xlsx(_campaign))
    checked = validate(
        path,
        code=1,
        sheet="Links",
        expect=[Expect(2, "Back-half", '=LOWER("Summer-Sale") and no saved value')],
        good_rows=[3],
    )
    [problem] = [p for p in checked.problems if p["severity"] == "error"]
    assert problem["constant"] == "FORMULA_WITHOUT_VALUE"
    assert "open and save the workbook in Excel or LibreOffice" in problem["message"]
    assert "paste the column as values" in problem["message"]
    text = run("validate", str(path))
    assert text.exit_code == 1
    assert 'row 2, column "Back-half": the cell holds the formula' in text.output


def test_apply_sends_the_other_rows_and_not_a_generated_slug(workdir: Path) -> None:
    path = workdir / "campaign.xlsx"
    path.write_bytes(xlsx(_campaign))
    result = run("apply", str(path), "--yes", "--no-progress", "--report", "out/r.json")
    assert result.exit_code == 1, result.output
    assert "FORMULA_WITHOUT_VALUE" in result.output
    links = remote(workdir)
    assert list(links) == [GOOD[0]], "the formula row must not be created under a random slug"
    rows = {r["row"]: r for r in json.loads((workdir / "out/r.json").read_text())["results"]}
    assert rows[2]["status"] == "invalid"
    assert rows[2]["error_constant"] == "FORMULA_WITHOUT_VALUE"
    assert rows[2]["message"].startswith('column "Back-half": ')
    assert rows[3]["status"] == "ok"


def test_a_formula_saved_with_its_value_is_read_as_that_value(workdir: Path) -> None:
    path = workdir / "saved.xlsx"
    path.write_bytes(_saved_by_excel(xlsx(_campaign)))
    validate(path, code=0, good_rows=[2, 3])
    result = run("apply", str(path), "--yes", "--no-progress")
    assert result.exit_code == 0, result.output
    link = remote(workdir)["summer-sale"]
    assert link.url == "https://example.com/summer?utm_campaign=summer-26"
    assert link.description == "Summer sale"
    assert set(link.tags) == {"summer", "sale"}
    assert link.expires_at is not None and link.expires_at.startswith("2031-06-30")


def test_a_placeholder_value_of_a_workbook_to_recalculate_is_not_read(workdir: Path) -> None:
    # XlsxWriter saves 0 as every formula's value and asks Excel to recalculate on opening
    # (fullCalcOnLoad): the 0 is not the formula's result.
    path = workdir / "script.xlsx"
    path.write_bytes(_saved_by_excel(xlsx(_campaign), value=b"0", recalc=True))
    validate(
        path,
        code=1,
        expect=[Expect(2, "Back-half", "asks to be recalculated when opened")],
        good_rows=[3],
    )


def test_a_formula_in_the_expiry_column_names_that_column(workdir: Path) -> None:
    def build(ws: Any) -> None:
        ws.append(["slug", "url", "Expiry"])
        ws.append(["later", "https://example.com/later", "=TODAY()+30"])
        ws.append([GOOD[0], GOOD[1], None])

    path = workdir / "expiry.xlsx"
    path.write_bytes(xlsx(build))
    validate(path, code=1, expect=[Expect(2, "Expiry", "=TODAY()+30")], good_rows=[3])


def test_shared_formulas_without_values_are_each_named(workdir: Path) -> None:
    # Excel writes a formula filled down as one shared formula: the first cell holds its
    # text, the others only point at it (<f t="shared" si="0"/>).
    def build(ws: Any) -> None:
        ws.append(["Title", "Destination URL", "slug"])
        ws.append(["Spring", "https://example.com/spring", "=LOWER(A2)"])
        ws.append(["Autumn", "https://example.com/autumn", "=LOWER(A3)"])

    def edit(name: str, part: bytes) -> bytes:
        if name != "xl/worksheets/sheet1.xml":
            return part
        part = part.replace(b"<f>LOWER(A2)</f>", b'<f t="shared" ref="C2:C3" si="0">LOWER(A2)</f>')
        return part.replace(b"<f>LOWER(A3)</f>", b'<f t="shared" si="0"/>')

    path = workdir / "shared.xlsx"
    path.write_bytes(rezip(xlsx(build), edit))
    validate(
        path,
        code=1,
        expect=[Expect(2, "slug", "=LOWER(A2)"), Expect(3, "slug", "holds a formula and no")],
    )
