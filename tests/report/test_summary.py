from __future__ import annotations

from linksync.model import Action, RowResult, RunInfo, Status
from linksync.report import count_results, render_summary
from linksync.report.summary import Tally, safe_target

from .conftest import make_info


def test_counts_by_action_status_and_errors(results: list[RowResult]) -> None:
    counts = count_results(results)
    assert counts.total == 7
    assert dict(counts.by_action) == {
        "create": 3,
        "update": 1,
        "delete": 1,
        "unchanged": 1,
        "invalid": 1,
    }
    assert list(counts.by_status) == ["ok", "failed", "skipped", "invalid"]
    assert counts.by_action_status[("create", "failed")] == 2
    assert counts.failed == 3
    first = counts.errors[0]
    assert (first.constant, first.count, first.example.row) == ("INVALID_URL", 1, 5)


def test_top_errors_by_count_then_name_with_first_example() -> None:
    tally = Tally()
    for row in (2, 3, 4):
        tally.add(RowResult(Action.CREATE, Status.FAILED, row=row, error_constant="SLUG_EXISTS"))
    tally.add(RowResult(Action.CREATE, Status.FAILED, row=9, error_constant="INVALID_URL"))
    tally.add(RowResult(Action.CREATE, Status.FAILED, row=8, error_constant="FORBIDDEN"))
    errors = tally.counts().errors
    assert [(e.constant, e.count) for e in errors] == [
        ("SLUG_EXISTS", 3),
        ("FORBIDDEN", 1),
        ("INVALID_URL", 1),
    ]
    assert errors[0].example.row == 2


def test_render_summary(results: list[RowResult], info: RunInfo) -> None:
    text = render_summary(
        count_results(results), info, ["out.xlsx", "out.json"], 1, "some rows invalid or failed"
    )
    lines = text.splitlines()
    assert lines[0] == "linksync apply: https://api.example.com/v1 (mode upsert)"
    assert "Rows: 7" in lines
    assert any(line.split()[:2] == ["create", "3"] and "failed 2" in line for line in lines)
    assert "Status: ok 3, failed 2, skipped 1, invalid 1" in lines
    assert "Requests: 9 (create 3, list 2, update 4); 429 waits: 1; duration 12.5 s" in lines
    errors = lines.index("Top errors:")
    assert lines[errors + 1].split()[:2] == ["INVALID_URL", "x1"]
    assert "campaign.xlsx, sheet Spring, row 5 [go.example.com/bad|slug]" in lines[errors + 1]
    assert lines[-3:] == ["  out.xlsx", "  out.json", "Exit code 1: some rows invalid or failed"]
    # Deterministic: same input, same text.
    assert text == render_summary(
        count_results(results), info, ["out.xlsx", "out.json"], 1, "some rows invalid or failed"
    )


def test_render_summary_strips_control_characters_and_credentials() -> None:
    info = make_info(target="https://me:sk_1@api.example.com/v1?api_key=sk_1")
    r = RowResult(
        Action.CREATE, Status.FAILED, row=2, error_constant="X", message="\x1b[2Jboom\nagain"
    )
    text = render_summary(count_results([r]), info)
    assert "\x1b" not in text
    assert "sk_1" not in text
    assert "\\u001b[2Jboom again" in text


def test_render_summary_plan_without_rows() -> None:
    info = RunInfo(target="sandbox", dry_run=True)
    text = render_summary(count_results([]), info, exit_code=0, exit_meaning="all rows fine")
    assert text.splitlines() == [
        "linksync plan: sandbox (mode upsert, dry run)",
        "Rows: none",
        "Exit code 0: all rows fine",
    ]


def test_safe_target_keeps_plain_targets() -> None:
    assert safe_target("sandbox (in-process)") == "sandbox (in-process)"
    assert safe_target("http://127.0.0.1:8080/api") == "http://127.0.0.1:8080/api"
