"""A row's warnings reach its report row: a row without an error of its own
lists them in its ``message``, then its expiry, in every report format and in the
annotated copy; no new column, and ``error_constant`` stays empty (the row succeeded)."""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import openpyxl
from click.testing import CliRunner, Result

from linksync.cli import cli
from linksync.model import Action, RowResult, Status
from linksync.model.links import LinkSpec, Problem, Provenance, Severity
from linksync.model.results import RESULT_COLUMNS
from linksync.report.annotate import ANNOTATION_HEADERS
from linksync.sync.plan import Change

#: Row 2's utm_source column replaces the URL's own value: URL_PARAM_REPLACED, a warning.
CSV = """slug,url,utm_source,expires_at
tagged,https://example.com/a?utm_source=old,news,2027-03-31 23:59
plain,https://example.com/b,,
"""
WARNING = (
    "warning URL_PARAM_REPLACED: column \"utm_source\": the URL's utm_source='old' was "
    "replaced by the column's value 'news'"
)
EXPIRY = "expires 2027-03-31 23:59 UTC = 2027-03-31T23:59:00.000Z"


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def csv_rows(path: Path) -> dict[str, dict[str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as f:
        return {r["slug"]: r for r in csv.DictReader(f)}


def test_apply_lists_a_rows_warning_in_its_message_in_every_report(workdir: Path) -> None:
    (workdir / "links.csv").write_text(CSV, encoding="utf-8")
    reports = ["out.csv", "out.json", "out.jsonl", "out.xlsx", "out.xml", "out.md"]
    args = [a for r in reports for a in ("--report", r)]
    result = run("apply", "links.csv", "--yes", *args, "--annotate", "copy.csv")
    assert result.exit_code == 0, result.output
    expected = f"{WARNING}; {EXPIRY}"

    rows = csv_rows(workdir / "out.csv")
    assert list(rows["tagged"]) == list(RESULT_COLUMNS), "no new column"
    assert (rows["tagged"]["status"], rows["tagged"]["error_constant"]) == ("ok", "")
    assert rows["tagged"]["message"] == expected
    assert rows["plain"]["message"] == "", "a row without warning or expiry says nothing"

    doc = json.loads((workdir / "out.json").read_text(encoding="utf-8"))
    by_slug = {r["slug"]: r for r in doc["results"]}
    assert by_slug["tagged"]["status"] == "ok" and by_slug["tagged"]["error_constant"] is None
    assert by_slug["tagged"]["message"] == expected

    lines = (workdir / "out.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    assert [r["message"] for r in records if r.get("slug") == "tagged"] == [expected]

    sheet = openpyxl.load_workbook(workdir / "out.xlsx")["Results"]
    values = [list(r) for r in sheet.iter_rows(values_only=True)]
    assert tuple(values[0]) == RESULT_COLUMNS
    tagged = dict(zip(RESULT_COLUMNS, next(r for r in values if r[4] == "tagged"), strict=True))
    assert (tagged["status"], tagged["error_constant"]) == ("ok", None)
    assert tagged["message"] == expected

    junit = ET.parse(workdir / "out.xml").getroot()
    case = next(c for c in junit.iter("testcase") if c.get("name", "").endswith("tagged"))
    assert case.find("failure") is None
    assert f"message: {expected}" in (case.findtext("system-out") or "")

    assert "warning URL_PARAM_REPLACED" in (workdir / "out.md").read_text(encoding="utf-8")

    copy = csv_rows(workdir / "copy.csv")
    error, expires = ANNOTATION_HEADERS[2], ANNOTATION_HEADERS[3]
    assert copy["tagged"][ANNOTATION_HEADERS[1]] == "created"
    assert copy["tagged"][error] == WARNING, "the expiry has its own column"
    assert copy["tagged"][expires] == EXPIRY.removeprefix("expires ")
    assert copy["plain"][error] == ""


def test_the_markdown_plan_lists_the_warning_then_the_expiry(workdir: Path) -> None:
    (workdir / "links.csv").write_text(CSV, encoding="utf-8")
    result = run("plan", "links.csv", "--format", "markdown")
    assert result.exit_code == 0, result.output
    line = next(x for x in result.output.splitlines() if "tagged" in x and x.startswith("|"))
    assert "warning URL_PARAM_REPLACED" in line and line.index("URL_PARAM") < line.index(EXPIRY)


def _change(action: Action, *problems: Problem, reason: str | None = None) -> Change:
    prov = Provenance("links.csv", None, 2)
    spec = LinkSpec(
        url="https://example.com/a", slug="a", managed=frozenset({"url"}), provenance=prov
    )
    return Change(action, "lnk.test", "a", 0, spec, problems=problems, reason=reason)


def test_a_row_with_an_error_reports_the_error_alone() -> None:
    warn = Problem("AMBIGUOUS_TIME", "read as UTC", None, None, Severity.WARNING)
    error = Problem("INVALID_URL", "not a URL", None, None, Severity.ERROR)
    row = RowResult.from_change(
        _change(Action.INVALID, warn, error), Status.INVALID, constant="INVALID_URL",
        message="not a URL",
    )  # fmt: skip
    assert (row.error_constant, row.message) == ("INVALID_URL", "not a URL")


def test_a_skip_reason_and_a_later_message_keep_the_warnings() -> None:
    warn = Problem("AMBIGUOUS_TIME", "read as UTC", None, None, Severity.WARNING)
    skipped = RowResult.from_change(
        _change(Action.SKIP, warn, reason="link does not exist (update-only mode)"),
        Status.SKIPPED,
        message="link does not exist (update-only mode)",
    )
    assert skipped.message == (
        "link does not exist (update-only mode); warning AMBIGUOUS_TIME: read as UTC"
    )
    done = RowResult.from_change(_change(Action.CREATE, warn), Status.OK)
    assert done.saying("already deleted").message == (
        "already deleted; warning AMBIGUOUS_TIME: read as UTC"
    )
