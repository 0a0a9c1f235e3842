"""Excel cells that are not what they show: each is a problem on its cell, named with
file, sheet, row and column; the other rows are still read; the workbook untouched."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from hostile_inputs import GOOD, Expect, rezip, validate, xlsx

from linksync.sources import read_sources


def _book(path: Path, fill: Any, header: tuple[str, ...] = ("slug", "url", "description")) -> Path:
    def build(ws: Any) -> None:
        ws.append(list(header))
        ws.append([GOOD[0], GOOD[1], "fine"])
        fill(ws)

    path.write_bytes(xlsx(build))
    return path


def _slugs(path: Path, *args: str) -> dict[int, str | None]:
    batch = read_sources([path])
    return {s.provenance.row: s.slug for s in batch.specs if s.provenance and s.provenance.row}


def test_zero_padded_number_is_read_as_shown(workdir: Path) -> None:
    def fill(ws: Any) -> None:
        ws.append([7, "https://example.com/seven", "x"])
        ws["A3"].number_format = "000"

    path = _book(workdir / "pad.xlsx", fill)
    validate(
        path,
        code=0,
        sheet="Links",
        expect=[Expect(3, "slug", "shown as 007", "warning")],
        good_rows=[2, 3],
    )
    assert _slugs(path)[3] == "007"
    validate(path, "--strict", code=1, expect=[Expect(3, "slug", "--strict")], good_rows=[2])


def test_slug_turned_into_a_date_is_an_error(workdir: Path) -> None:
    def fill(ws: Any) -> None:
        ws.append([datetime(2026, 3, 26), "https://example.com/march", "x"])
        ws["A3"].number_format = "mmm-yy"

    path = _book(workdir / "date.xlsx", fill)
    validate(path, code=1, sheet="Links", expect=[Expect(3, "slug", "not text")], good_rows=[2])


def test_boolean_is_read_as_its_text_with_a_warning(workdir: Path) -> None:
    path = _book(workdir / "bool.xlsx", lambda ws: ws.append(["yes-no", "https://e.com/b", True]))
    validate(path, code=0, expect=[Expect(3, "description", "boolean TRUE", "warning")])


@pytest.mark.parametrize(
    "column,error",
    [("A", "#N/A"), ("B", "#REF!"), ("C", "#DIV/0!")],
    ids=["slug-NA", "url-REF", "description-DIV0"],
)
def test_error_cells_are_errors_not_empty(workdir: Path, column: str, error: str) -> None:
    def fill(ws: Any) -> None:
        ws.append(["err-row", "https://example.com/err", "x"])
        cell = ws[f"{column}3"]
        cell.value = error
        cell.data_type = "e"

    path = _book(workdir / f"err{column}.xlsx", fill)
    header = {"A": "slug", "B": "url", "C": "description"}[column]
    checked = validate(
        path, code=1, sheet="Links", expect=[Expect(3, header, error)], good_rows=[2]
    )
    # One problem for the cell: a #N/A url is not also reported "missing".
    assert [p["constant"] for p in checked.problems if p["row"] == 3] == ["INVALID_FIELD"]


def test_hyperlink_text_is_replaced_by_its_target(workdir: Path) -> None:
    def fill(ws: Any) -> None:
        ws.append(["click", "Click here", "x"])
        ws["B3"].hyperlink = "https://example.com/real-target"
        ws.append(["other", "https://example.com/shown", "x"])
        ws["B4"].hyperlink = "https://example.com/elsewhere"

    path = _book(workdir / "link.xlsx", fill)
    validate(
        path,
        code=0,
        expect=[
            Expect(3, "url", "link target is read", "warning"),
            Expect(4, "url", "the text shown is read", "warning"),
        ],
    )
    urls = {s.slug: s.url for s in read_sources([path]).specs}
    assert urls["click"] == "https://example.com/real-target"
    assert urls["other"] == "https://example.com/shown"


def test_number_format_that_changes_the_value_is_an_error(workdir: Path) -> None:
    def fill(ws: Any) -> None:
        ws.append(["money", "https://example.com/m", 1234.5])
        ws["C3"].number_format = "#,##0.00"

    path = _book(workdir / "fmt.xlsx", fill)
    validate(path, code=1, expect=[Expect(3, "description", "'#,##0.00'")], good_rows=[2])


def test_plain_number_in_the_expiry_column_is_warned(workdir: Path) -> None:
    def build(ws: Any) -> None:
        ws.append(["slug", "url", "expires"])
        ws.append([GOOD[0], GOOD[1], datetime(2031, 1, 1)])
        ws.append(["serial", "https://example.com/s", 55000])

    path = workdir / "serial.xlsx"
    path.write_bytes(xlsx(build))
    validate(path, code=0, expect=[Expect(3, "expires", "not a date", "warning")], good_rows=[2])


def test_only_hidden_sheets_is_nothing_to_read(workdir: Path) -> None:
    def build(ws: Any) -> None:
        ws.append(["slug", "url"])
        ws.append(list(GOOD))

    def hide(name: str, data: bytes) -> bytes:
        # Excel itself refuses to hide the last sheet; a generator does not.
        hidden = data.replace(b'state="visible"', b'state="hidden"')
        return hidden if name == "xl/workbook.xml" else data

    path = workdir / "hidden.xlsx"
    path.write_bytes(rezip(xlsx(build), hide))
    validate(path, code=1, expect=[Expect(None, None, "every sheet is hidden")])
    validate(path, "--sheet", "Links", code=0, good_rows=[2])


def test_workbook_without_sheets_is_nothing_to_read(workdir: Path) -> None:
    def drop(name: str, data: bytes) -> bytes | None:
        if name == "xl/workbook.xml":
            start, end = data.index(b"<sheets>"), data.index(b"</sheets>")
            return data[:start] + b"<sheets/>" + data[end + len(b"</sheets>") :]
        return None if name.startswith("xl/worksheets/") else data

    path = workdir / "nosheet.xlsx"
    path.write_bytes(rezip(xlsx(lambda ws: ws.append(list(GOOD))), drop))
    validate(path, code=1, expect=[Expect(None, None, "no sheet")])


def test_no_usable_sheet_is_nothing_to_read(workdir: Path) -> None:
    path = workdir / "prose.xlsx"
    path.write_bytes(xlsx(lambda ws: ws.append(["just some notes", "and more"])))
    validate(path, code=1, expect=[Expect(None, None, "nothing to read")])


def test_empty_csv_and_empty_xlsx_agree(workdir: Path) -> None:
    (workdir / "empty.csv").write_bytes(b"")
    (workdir / "empty.xlsx").write_bytes(xlsx(lambda ws: None))
    csv_run = validate(workdir / "empty.csv", code=1)
    xlsx_run = validate(workdir / "empty.xlsx", code=1)
    assert csv_run.doc["rows"] == xlsx_run.doc["rows"] == 0


def test_header_only_csv_and_xlsx_agree(workdir: Path) -> None:
    (workdir / "head.csv").write_text("slug,url\n", encoding="utf-8")
    (workdir / "head.xlsx").write_bytes(xlsx(lambda ws: ws.append(["slug", "url"])))
    validate(workdir / "head.csv", code=1, expect=[Expect(None, None, "nothing to read")])
    validate(workdir / "head.xlsx", code=1, expect=[Expect(None, None, "nothing to read")])


def test_map_works_for_xlsx_headers_nobody_knows(workdir: Path) -> None:
    def build(ws: Any) -> None:
        ws.append(["Kürzel", "Ziel"])
        ws.append(["de-link", "https://example.de/ziel"])

    path = workdir / "de.xlsx"
    path.write_bytes(xlsx(build))
    validate(path, code=1, expect=[Expect(None, None, "nothing to read")])
    checked = validate(path, "--map", "Ziel=url", "--map", "Kürzel=slug", code=0, good_rows=[2])
    assert checked.doc["valid"] == 1


def test_two_row_header_with_a_merged_group_cell(workdir: Path) -> None:
    def build(ws: Any) -> None:
        ws.append(["Destination URL", "Slug", "UTM", None, None])
        ws.append([None, None, "Source", "Medium", "Campaign"])
        ws.merge_cells("A1:A2")
        ws.merge_cells("B1:B2")
        ws.merge_cells("C1:E1")
        ws.append(["https://example.com/spring", "spring", "news", "email", "spring26"])

    path = workdir / "two.xlsx"
    path.write_bytes(xlsx(build))
    checked = validate(path, code=0, good_rows=[3])
    assert checked.doc["rows"] == 1
    [spec] = read_sources([path]).specs
    assert spec.url == (
        "https://example.com/spring?utm_source=news&utm_medium=email&utm_campaign=spring26"
    )
    assert spec.provenance is not None and spec.provenance.row == 3
