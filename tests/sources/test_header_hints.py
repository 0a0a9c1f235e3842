"""A header with a hint in brackets is read as its field.

Templates say how to fill a column in its header: "Destination URL (required)",
"Slug (optional)", "Expires (MM/DD/YYYY)". Such a header was not known: an
``UNKNOWN_COLUMN`` warning, and the links were created without their expiry (or the
file was refused for want of a URL column), exit 0. Now a header closing with a hint
in brackets is read as what is left when that is a known header. A hint naming the
order of dates reads the column's dates in that order (a warning naming the header and
the order, ``DATE_ORDER``) when no date format is given; a date format reading
another order refuses the file, naming both."""

from __future__ import annotations

from pathlib import Path

import openpyxl
from hostile_inputs import Expect, remote, run, validate


def _template(path: Path, expires: str, dates: tuple[str, str]) -> Path:
    """A campaign template as a marketing team fills it in Excel: the dates typed as
    text the way the header asks."""
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = "Links"
    ws.append(["Slug (optional)", "Destination URL (required)", expires, "Notes"])
    ws.append(["spring", "https://example.com/spring", dates[0], "Spring sale"])
    ws.append(["summer", "https://example.com/summer", dates[1], "Summer sale"])
    wb.save(path)
    return path


def test_hinted_headers_are_read_with_their_dates(workdir: Path) -> None:
    path = _template(
        workdir / "template.xlsx", "Expires (MM/DD/YYYY)", ("12/31/2030", "06/01/2031")
    )
    checked = validate(
        path,
        code=0,
        sheet="Links",
        expect=[
            Expect(
                None,
                "Expires (MM/DD/YYYY)",
                'the dates of column "Expires (MM/DD/YYYY)" are read month first '
                "(12/31/2026), as its header says; pass --date-format mdy",
                "warning",
            )
        ],
    )
    assert [p["constant"] for p in checked.problems] == ["DATE_ORDER"], checked.problems
    fields = {c["header"]: c["field"] for c in checked.doc["columns"][0]["columns"]}
    assert fields["Slug (optional)"] == "slug", fields
    assert fields["Destination URL (required)"] == "url", fields
    assert fields["Expires (MM/DD/YYYY)"] == "expires_at", fields
    result = run("apply", "template.xlsx", "--yes", "--no-progress")
    assert result.exit_code == 0, result.output
    assert "DATE_ORDER" in result.output or "read month first" in result.output, result.output
    links = remote(workdir)
    assert sorted(links) == ["spring", "summer"]
    assert str(links["spring"].expires_at).startswith("2030-12-31"), links["spring"]
    assert str(links["summer"].expires_at).startswith("2031-06-01"), links["summer"]


def test_a_date_format_that_agrees_says_nothing(workdir: Path) -> None:
    path = _template(workdir / "template.xlsx", "Expiry (dd/mm/yyyy)", ("31/12/2030", "01/06/2031"))
    checked = validate(path, "--date-format", "dmy", code=0)
    assert not checked.problems, checked.problems


def test_a_date_format_that_disagrees_refuses_the_file(workdir: Path) -> None:
    path = workdir / "export.csv"
    # As Excel saves "CSV UTF-8": a BOM, CRLF line ends.
    path.write_bytes(
        "\ufeffSlug (optional),Destination URL (required),Expiry (dd/mm/yyyy)\r\n"
        "spring,https://example.com/spring,01/06/2031\r\n"
        "summer,https://example.com/summer,05/07/2031\r\n".encode()
    )
    validate(
        path,
        "--date-format",
        "mdy",
        code=1,
        expect=[
            Expect(
                None,
                "Expiry (dd/mm/yyyy)",
                'column "Expiry (dd/mm/yyyy)" says its dates are written day first '
                "(31/12/2026), but --date-format (or the profile's date_format:) reads them "
                "month first (12/31/2026)",
            )
        ],
    )
    result = run("apply", "export.csv", "--date-format", "mdy", "--yes", "--no-progress")
    assert result.exit_code == 1, result.output
    assert "DATE_ORDER" in result.output or "says its dates are written" in result.output
    assert remote(workdir) == {}


def test_a_hint_on_no_known_header_is_still_unknown(workdir: Path) -> None:
    path = workdir / "export.csv"
    path.write_text(
        "Slug,Destination URL (required),Budget (EUR)\nspring,https://example.com/spring,1200\n",
        encoding="utf-8",
    )
    checked = validate(
        path, code=0, expect=[Expect(None, "Budget (EUR)", "unknown column(s) ignored", "warning")]
    )
    assert [p["constant"] for p in checked.problems] == ["UNKNOWN_COLUMN"], checked.problems


def test_a_hint_saying_old_is_not_read_as_the_field(workdir: Path) -> None:
    """ "URL (old)" beside "Destination URL" is not read as a second URL column: the old
    address never fills a row whose destination was left empty."""
    path = workdir / "export.csv"
    path.write_text(
        "Slug (optional),Destination URL,URL (old),Status (live/cancelled)\n"
        "spring,https://example.com/spring,https://example.com/spring-2025,live\n"
        "summer,,https://example.com/summer-2025,cancelled\n",
        encoding="utf-8",
    )
    checked = validate(
        path,
        code=1,
        expect=[
            Expect(None, "URL (old)", "unknown column(s) ignored", "warning"),
            Expect(3, "Destination URL", "no destination URL"),
        ],
        good_rows=[2],
    )
    states = [p for p in checked.problems if p["constant"] == "ROW_STATE_COLUMN"]
    assert [p["row"] for p in states] == [3], checked.problems
