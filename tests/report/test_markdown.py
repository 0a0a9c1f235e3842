from __future__ import annotations

from pathlib import Path

from linksync.model import Action, RowResult, RunInfo, Status
from linksync.report import ReportOptions
from linksync.report.markdown import md_cell

from .conftest import make_info, write_reports


def _table_rows(text: str) -> list[str]:
    after = text.split("### Changes", 1)[1]
    rows = [ln for ln in after.splitlines() if ln.startswith("| ")]
    return [ln for ln in rows if not ln.startswith("| ---")][1:]


def _cells(line: str) -> list[str]:
    """Split a table row on unescaped pipes, as GitHub does."""
    cells, cur, i = [], "", 0
    body = line.strip()[1:-1]
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            cur += body[i : i + 2]
            i += 2
            continue
        if body[i] == "|":
            cells.append(cur.strip())
            cur = ""
        else:
            cur += body[i]
        i += 1
    cells.append(cur.strip())
    return cells


def test_md_cell_escapes_pipes_newlines_and_html() -> None:
    assert md_cell("a|b\nc\r\nd<e>&") == "a\\|b<br>c<br>d&lt;e&gt;&amp;"


def test_markdown_results_table_with_pipes_and_newlines(
    tmp_path: Path, results: list[RowResult], info: RunInfo
) -> None:
    path = tmp_path / "out.md"
    write_reports([path], results, info)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("## linksync apply")
    rows = _table_rows(text)
    # Unchanged rows are counted, not listed.
    assert len(rows) == len(results) - 1
    for row in rows:
        assert len(_cells(row)) == 8, row
    failed = _cells(rows[2])
    assert failed[2] == "go.example.com/bad\\|slug"
    assert failed[4] == "**failed**"
    assert failed[7] == "INVALID_URL: Destination URL malformed \\| line one<br>line two"
    assert "| `INVALID_URL` | 1 |" in text
    assert "... and" not in text


def test_markdown_plan_is_capped_and_warns_when_refused(tmp_path: Path) -> None:
    planned = [
        RowResult(Action.CREATE, Status.PLANNED, source="a.csv", row=i + 2, slug=f"s{i}")
        for i in range(60)
    ]
    planned.append(RowResult(Action.UNCHANGED, Status.PLANNED, source="a.csv", row=99))
    path = tmp_path / "plan.md"
    write_reports(
        [path],
        planned,
        make_info(dry_run=True, requests=0, rate_limit_waits=0),
        options=ReportOptions(md_max_rows=50),
        refused_reason="would delete 40% of links (limit 10%); use --force",
        notes=["scope: tag managed-by-linksync"],
    )
    text = path.read_text(encoding="utf-8")
    assert text.startswith("## linksync plan")
    assert "> :warning: **This plan would be refused:** would delete 40% of links" in text
    assert "> scope: tag managed-by-linksync" in text
    assert "**60 create, 1 unchanged** (61 rows planned)." in text
    assert len(_table_rows(text)) == 50
    assert text.rstrip().endswith("_... and 10 more._")


def test_markdown_without_changes(tmp_path: Path, info: RunInfo) -> None:
    path = tmp_path / "plan.md"
    write_reports([path], [RowResult(Action.UNCHANGED, Status.PLANNED, slug="a")], info)
    text = path.read_text(encoding="utf-8")
    assert "**No changes:** all 1 links match the workspace." in text
    assert "### Changes" not in text and "| action |" not in text
    assert text.endswith("\n") and not text.endswith("\n\n")


def test_markdown_apply_without_changes(tmp_path: Path) -> None:
    path = tmp_path / "out.md"
    done = [RowResult(Action.UNCHANGED, Status.OK, slug="a")]
    write_reports([path], done, make_info(requests=0, rate_limit_waits=0))
    text = path.read_text(encoding="utf-8")
    assert text.startswith("## linksync apply") and text.endswith("No changes.\n")


def test_markdown_table_turned_off(tmp_path: Path, results: list[RowResult], info: RunInfo) -> None:
    path = tmp_path / "out.md"
    write_reports([path], results, info, options=ReportOptions(md_max_rows=0))
    text = path.read_text(encoding="utf-8")
    assert "### Changes" not in text
    assert text.rstrip().endswith("_6 rows not listed._")
