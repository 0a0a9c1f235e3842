"""YAML problems name lines and keys, not spreadsheet rows and columns: in
validate, plan and apply output, and in the reports (a report's ``row`` column keeps
the line's number)."""

from __future__ import annotations

import csv
import re
from pathlib import Path

from click.testing import CliRunner, Result

from linksync.cli import cli

LINKS = """\
links:
  - slug: good-alpha
    url: https://example.com/alpha
  - slug: typo-desc
    url: https://example.com/desc
    descripton: Spring sale
  - slug: bad-url
    url: [https://example.com/list]
"""


def _run(*args: str) -> Result:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


def _no_rows_or_columns(text: str) -> None:
    assert not re.search(r"links\.yaml, row \d", text), text
    assert 'column "' not in text, text


def test_validate_and_plan_say_line_and_key(workdir: Path) -> None:
    (workdir / "links.yaml").write_text(LINKS, encoding="utf-8")
    checked = _run("validate", "links.yaml")
    assert checked.exit_code == 1
    assert (
        'UNKNOWN_KEY: links.yaml, line 4: unknown key "descripton" on line 6 '
        '(did you mean "description"?): the link is not sent'
    ) in checked.output
    assert 'INVALID_FIELD: links.yaml, line 7, key "url": url: expected text' in checked.output
    _no_rows_or_columns(checked.output)
    for fmt in ("table", "markdown"):
        planned = _run("plan", "links.yaml", "--format", fmt)
        assert planned.exit_code == 1
        assert "links.yaml, line 4" in planned.output and "links.yaml, line 7" in planned.output
        _no_rows_or_columns(planned.output)


def test_apply_and_its_reports_say_line(workdir: Path) -> None:
    (workdir / "links.yaml").write_text(LINKS, encoding="utf-8")
    reports = ("out/r.md", "out/r.xml", "out/r.csv")
    args = [a for r in reports for a in ("--report", r)]
    applied = _run("apply", "links.yaml", "--yes", "--no-progress", *args)
    assert applied.exit_code == 1
    assert "links.yaml, line 4" in applied.output
    _no_rows_or_columns(applied.output)
    markdown = (workdir / "out/r.md").read_text(encoding="utf-8")
    assert "| links.yaml, line 4 | lnk.test/typo-desc | invalid |" in markdown
    assert 'key "url": url: expected text, got a list' in markdown
    _no_rows_or_columns(markdown)
    junit = (workdir / "out/r.xml").read_text(encoding="utf-8")
    assert 'name="line 4 typo-desc"' in junit and 'name="line 2 good-alpha"' in junit
    with (workdir / "out/r.csv").open(encoding="utf-8-sig", newline="") as fh:
        rows = {r["slug"]: r for r in csv.DictReader(fh)}
    assert rows["typo-desc"]["row"] == "4" and rows["typo-desc"]["error_constant"] == "UNKNOWN_KEY"
    assert rows["bad-url"]["message"].startswith('key "url": ')
    assert rows["good-alpha"]["status"] == "ok"
