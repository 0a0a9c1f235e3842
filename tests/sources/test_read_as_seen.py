"""A campaign sheet read as the person who made it sees it: no column guessed
into the URL, no row state ignored in silence, no short link dropped or overruled, no
invisible character or query string sent inside a UTM value, no second table read with
the first one's header. The same sheet as a CSV exported from a spreadsheet (BOM,
CRLF, a title row with trailing separators) and as an openpyxl workbook."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from hostile_inputs import Expect, digest, remote, run, validate

HEADER = [
    "Destination URL",
    "Back-half",
    "Short link",
    "Campaign",
    "Content",
    "Notes",
    "Status",
    "Owner",
    "Source",
    "Action",
    "Archived",
]
_ = None
#: The sheet, row by row (row 1 is the title): see each row's comment.
ROWS: list[list[Any]] = [
    ["Spring campaign 2026 - short links"],
    HEADER,
    # 3: fine; Campaign, Content and Source are loose words: not read
    ["https://shop.example.com/spring-sale", "spring-sale", _, "spring-2026",
     "Spring is here! 20% off everything", "Main banner", "live", "Ana", "newsletter", _, False],
    # 4: the Campaign cell holds a whole query string
    ["https://shop.example.com/q", "promo-qs", _,
     "utm_source=newsletter&utm_medium=email&utm_campaign=autumn-2026", _, _, _, "Ben", _, _, _],
    # 5: a zero-width space inside the Source cell
    ["https://shop.example.com/zw", "promo-zw", _, _, _, _, _, _, "news\u200bletter", _, _],
    # 6: row states linksync does not act on
    ["https://shop.example.com/cancel", "promo-cancel", _, _, _, _, "cancelled", _, _,
     "delete", True],
    # 7: a short link that cannot be split, no back-half
    ["https://shop.example.com/qr", _, "https://lnk.test/promo-q?ref=qr", _, _, _, _, _, _, _, _],
    # 8: back-half and short link disagree
    ["https://shop.example.com/summer", "spring", "https://lnk.test/summer", _, _, _, _, _, _,
     _, _],
    [],
    # 10, 11, 12: a second table stacked under the first
    ["Summer campaign 2026"],
    HEADER,
    ["https://shop.example.com/beach", "beach", _, _, _, _, _, _, _, _, _],
]  # fmt: skip
#: The rows no error should touch without a mapping.
GOOD_ROWS = [3, 4, 5, 6]


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"  # as a spreadsheet exports a boolean
    return str(v)


def _write(workdir: Path, kind: str) -> Path:
    if kind == "csv":
        path = workdir / "campaign.csv"
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\r\n")
        for row in ROWS:
            writer.writerow([_cell(v) for v in row] + [""] * (len(HEADER) - len(row)))
        path.write_bytes(b"\xef\xbb\xbf" + buf.getvalue().encode("utf-8"))
        return path
    path = workdir / "campaign.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Links"
    for row in ROWS:
        ws.append(row)
    ws.auto_filter.ref = f"A2:K{len(ROWS)}"
    wb.save(path)
    return path


@pytest.fixture(params=["csv", "xlsx"])
def sheet(request: pytest.FixtureRequest, workdir: Path) -> tuple[Path, str | None]:
    return _write(workdir, request.param), ("Links" if request.param == "xlsx" else None)


def _problems(doc: dict[str, Any], constant: str) -> list[tuple[Any, Any, str]]:
    return [
        (p["row"], p["column"], p["severity"]) for p in doc["problems"] if p["constant"] == constant
    ]


def test_validate_names_every_case_on_its_sheet_row_and_column(
    sheet: tuple[Path, str | None],
) -> None:
    path, name = sheet
    checked = validate(
        path,
        code=1,
        sheet=name,
        good_rows=GOOD_ROWS,
        expect=[
            Expect(None, "Campaign", "--map Campaign=utm_campaign", "warning"),
            Expect(None, "Content", "--map Content=utm_content", "warning"),
            Expect(None, "Source", "--map Source=utm_source", "warning"),
            Expect(6, "Status", 'column "Status" holds "cancelled"', "warning"),
            Expect(6, "Action", 'holds "delete"', "warning"),
            Expect(6, "Archived", 'holds "TRUE"', "warning"),
            Expect(6, "Status", "--map Status=ignore to silence this", "warning"),
            Expect(7, "Short link", "cannot be split into a domain and a slug"),
            Expect(7, "Short link", "query string (?ref=qr)"),
            Expect(8, "Short link", "'spring' in \"Back-half\", 'summer' in \"Short link\""),
            Expect(10, None, "two tables on one sheet"),
            Expect(11, None, "two tables on one sheet: row 11 repeats the header; split them"),
            Expect(12, None, "under the header repeated at row 11"),
        ],
    )
    doc = checked.doc
    assert _problems(doc, "GUESSED_COLUMN") == [
        (None, "Campaign", "warning"),
        (None, "Content", "warning"),
        (None, "Source", "warning"),
    ]
    # A value that agrees with sending the row ("live", FALSE) says nothing.
    assert [r for r, *_ in _problems(doc, "ROW_STATE_COLUMN")] == [6, 6, 6]
    assert [r for r, *_ in _problems(doc, "REPEATED_HEADER")] == [10, 11, 12]
    # The repeated header and the rows under it carry nothing else.
    assert not [p for p in doc["problems"] if p["row"] in (10, 11, 12) and
                p["constant"] != "REPEATED_HEADER"]  # fmt: skip
    assert doc["invalid"] == 5  # rows 7, 8, 10, 11, 12
    (columns,) = doc["columns"]
    used = {c["header"]: (c["field"], c["how"], c["read"]) for c in columns["columns"]}
    assert used["Notes"] == ("description", "guess", True)
    assert used["Content"] == ("utm_content", "guess", False)
    assert used["Status"] == (None, "row state", False)
    assert used["Owner"] == (None, "ignored", False)
    assert used["Destination URL"] == ("url", "alias", True)


def test_the_text_output_prints_the_column_mapping(sheet: tuple[Path, str | None]) -> None:
    path, name = sheet
    result = run("validate", str(path))
    assert result.exit_code == 1
    where = f'{path}, sheet "{name}"' if name else str(path)
    assert (
        f'{where}: "Destination URL" -> url, "Back-half" -> slug, "Short link" -> short_url, '
        '"Notes" -> description (guess), not read: "Campaign" (guess: utm_campaign; --map '
        'Campaign=utm_campaign), "Content" (guess: utm_content; --map Content=utm_content), '
        '"Status" (row state), "Owner", "Source" (guess: utm_source; --map Source=utm_source), '
        '"Action" (row state), "Archived" (row state)'
    ) in result.stdout
    assert "No problems found" not in result.output


def test_plan_prints_the_column_mapping(sheet: tuple[Path, str | None]) -> None:
    path, _name = sheet
    result = run("plan", str(path))
    assert result.exit_code == 1, result.output
    assert '"Notes" -> description (guess), not read: "Campaign" (guess: ' in result.output


def test_apply_sends_nothing_guessed(workdir: Path, sheet: tuple[Path, str | None]) -> None:
    path, _name = sheet
    before = digest(path)
    result = run("apply", str(path), "--yes", "--no-progress")
    assert result.exit_code == 1, result.output
    assert digest(path) == before
    links = remote(workdir)
    assert {slug: link.url for slug, link in links.items()} == {
        "spring-sale": "https://shop.example.com/spring-sale",
        "promo-qs": "https://shop.example.com/q",
        "promo-zw": "https://shop.example.com/zw",
        "promo-cancel": "https://shop.example.com/cancel",
    }
    assert links["spring-sale"].description == "Main banner"


def test_a_query_string_in_a_mapped_utm_column_is_an_error(
    sheet: tuple[Path, str | None],
) -> None:
    path, name = sheet
    checked = validate(
        path,
        "--map",
        "Campaign=utm_campaign",
        "--map",
        "Source=utm_source",
        code=1,
        sheet=name,
        good_rows=[3, 6],
        expect=[
            Expect(4, "Campaign", "is a query string, not one utm_campaign value"),
            Expect(4, "Campaign", "--map Campaign=query"),
            Expect(5, "Source", "'news\\u200bletter' contains invisible character(s): U+200B"),
        ],
    )
    assert [(p["constant"], p["field"]) for p in checked.problems if p["row"] in (4, 5)] == [
        ("UTM_QUERY_VALUE", "utm_campaign"),
        ("INVALID_URL", "utm_source"),
    ]


def test_mapped_columns_are_sent_and_the_query_is_merged(
    workdir: Path, sheet: tuple[Path, str | None]
) -> None:
    path, _name = sheet
    maps = ["--map", "Campaign=query", "--map", "Source=utm_source", "--map", "Content=ignore"]
    result = run("apply", str(path), "--yes", "--no-progress", "--fix-invisible", *maps)
    assert result.exit_code == 1, result.output
    assert "added to the destination URL from the query: utm_source=newsletter" in result.output
    urls = {slug: link.url for slug, link in remote(workdir).items()}
    assert urls["promo-qs"] == (
        "https://shop.example.com/q?utm_source=newsletter&utm_medium=email&utm_campaign=autumn-2026"
    )
    # the zero-width space was removed (--fix-invisible), never percent-encoded
    assert urls["promo-zw"] == "https://shop.example.com/zw?utm_source=newsletter"
    # "spring-2026" is not a query string: an error on row 3, which is not sent
    assert "spring-sale" not in urls


def test_the_invisible_character_is_refused_without_fix_invisible(
    workdir: Path, sheet: tuple[Path, str | None]
) -> None:
    path, _name = sheet
    result = run("apply", str(path), "--yes", "--no-progress", "--map", "Source=utm_source")
    assert result.exit_code == 1
    assert "U+200B ZERO WIDTH SPACE" in result.output
    urls = {slug: link.url for slug, link in remote(workdir).items()}
    assert "promo-zw" not in urls
    assert urls["spring-sale"] == "https://shop.example.com/spring-sale?utm_source=newsletter"
    assert not any("%E2%80%8B" in u for u in urls.values())


def test_mapping_a_state_column_silences_it(sheet: tuple[Path, str | None]) -> None:
    path, name = sheet
    checked = validate(path, "--map", "Status=ignore", code=1, sheet=name)
    assert [c for _, c, _ in _problems(checked.doc, "ROW_STATE_COLUMN")] == ["Action", "Archived"]
    (columns,) = checked.doc["columns"]
    status = next(c for c in columns["columns"] if c["header"] == "Status")
    assert (status["read"], status["how"]) == (False, "ignored")


def test_a_profile_maps_the_columns_too(workdir: Path, sheet: tuple[Path, str | None]) -> None:
    path, _name = sheet
    (workdir / "linksync.yaml").write_text(
        "default_profile: team\nprofiles:\n  team:\n"
        "    columns:\n      Content: utm_content\n      Status: ignore\n",
        encoding="utf-8",
    )
    result = run("validate", str(path), "--json")
    doc = json.loads(result.stdout)
    (columns,) = doc["columns"]
    content = next(c for c in columns["columns"] if c["header"] == "Content")
    assert (content["field"], content["how"], content["read"]) == ("utm_content", "chosen", True)
    assert [c for _, c, _ in _problems(doc, "GUESSED_COLUMN")] == ["Campaign", "Source"]
    assert [c for _, c, _ in _problems(doc, "ROW_STATE_COLUMN")] == ["Action", "Archived"]
