"""``linksync plan --all`` / ``apply --all`` / ``--target NAME`` through click's
CliRunner on two workspaces (two built-in sandboxes): exit code, files, output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from linksync.cli import cli
from support.two_workspaces import A_SLUGS, B_SLUGS, remote_slugs, report_rows


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_plan_all_then_apply_all(config: Path) -> None:
    planned = run("plan", "--all", "--detailed-exitcode")
    assert planned.exit_code == 3, planned.output
    assert "== brand-a: built-in sandbox" in planned.stdout
    assert "Plan: 3 create" in planned.stdout and "Plan: 2 create" in planned.stdout
    assert "pending changes: brand-a, brand-b" in planned.stdout
    assert "targets: brand-a, brand-b" in planned.stderr

    applied = run("apply", "--all", "--yes", "--report", "out/{target}.csv")
    assert applied.exit_code == 0, applied.output
    assert [r["slug"] for r in report_rows(Path("out/brand-a.csv"))] == A_SLUGS
    assert [r["slug"] for r in report_rows(Path("out/brand-b.csv"))] == B_SLUGS
    assert remote_slugs(config, "brand-a") == A_SLUGS
    assert remote_slugs(config, "brand-b") == B_SLUGS
    lines = applied.stdout.splitlines()
    row_a = next(line for line in lines if "brand-a" in line and "ok" in line)
    assert "3" in row_a and "out/brand-a.csv" in row_a
    assert "Exit 0: all rows fine; written: brand-a (3 created), brand-b (2 created)." in (
        applied.stdout
    )
    assert "== brand-b ==\nPlan: 2 create" in applied.stderr  # each plan, named

    again = run("plan", "--target", "brand-b", "--format", "json", "--detailed-exitcode")
    assert again.exit_code == 0, again.output
    data = json.loads(again.stdout)
    assert [t["name"] for t in data["targets"]] == ["brand-b"]
    assert data["targets"][0]["plan"]["counts"]["unchanged"] == len(B_SLUGS)


def test_a_refused_key_fails_its_target_and_the_run_says_what_was_written(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BRAND_B_KEY", "not-a-key")
    result = run("apply", "--all", "--yes", "--json", "--report", "out/{target}.csv")
    assert result.exit_code == 1, result.output
    summary = json.loads(result.stdout)
    by_name = {t["name"]: t for t in summary["targets"]}
    assert by_name["brand-a"]["status"] == "ok" and by_name["brand-a"]["writes"]["created"] == 3
    assert by_name["brand-b"]["error_constant"] == "UNAUTHORIZED"
    assert by_name["brand-b"]["exit_code"] == 2
    assert summary["exit_code"] == 1 and "exits 2 only when no target wrote" in summary["verdict"]
    assert Path("out/brand-a.csv").is_file() and not Path("out/brand-b.csv").exists()
    assert "not-a-key" not in result.output

    # nothing left for brand-a to write: the run wrote nothing, and says 2
    table = run("apply", "--all", "--yes")
    assert table.exit_code == 2, table.output
    assert "UNAUTHORIZED" in table.stdout and "nothing written" in table.stdout


def test_a_markdown_plan_of_every_target(config: Path) -> None:
    result = run("plan", "--all", "--format", "markdown")
    assert result.exit_code == 0, result.output
    assert "## linksync plan: brand-a" in result.stdout
    assert "## linksync plan: brand-b" in result.stdout
    assert result.stdout.endswith(".**\n")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["plan", "--all", "links/a.csv"], "not both"),
        (["plan", "--all", "--profile", "x"], "--profile cannot be used with --all"),
        (["apply", "--all", "--yes", "--lock", "l.lock"], "--lock cannot be used"),
        (["apply", "--all", "--yes", "--annotate", "c.xlsx"], "--annotate cannot be used"),
        (["apply", "--all"], "pass --yes"),
        (["apply", "links/a.csv", "--yes", "--json"], "use it with --all"),
        (["plan"], "give SOURCE files, or --all"),
        (["plan", "--target", "brand-c"], "no target 'brand-c'"),
        (["apply", "--all", "--yes", "--report", "out/{target}.txt"], "brand-b: --report"),
    ],
)
def test_refused_before_anything_is_done(config: Path, args: list[str], message: str) -> None:
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert not Path("a.db").exists() and not Path("b.db").exists()


def test_a_retire_has_a_column_of_its_own(config: Path) -> None:
    assert run("apply", "--all", "--yes").exit_code == 0
    (config.parent / "links" / "b.yaml").write_text(
        "links:\n  b1: https://example.com/b1\n", encoding="utf-8"
    )
    planned = run("plan", "--all", "--retire-to", "https://example.com/ended")
    assert planned.exit_code == 0, planned.output
    cells = [
        [c.strip() for c in line.strip("┃│").split("┃" if "┃" in line else "│")]
        for line in planned.stdout.splitlines()
        if line.startswith(("┃", "│"))
    ]
    assert cells[0][:9] == [
        "target", "status", "exit", "create", "update", "replace", "delete", "retire", "invalid",
    ]  # fmt: skip
    assert cells[2][:9] == ["brand-b", "ok", "0", "0", "0", "0", "0", "1", "0"]


def test_json_log_lines_of_a_run_over_targets_name_their_target(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """apply --all --log-format json: the targets' lines interleave, and two targets on
    one service log the same target label: each line a target logs names it
    (target_name), so a log collector can tell brand-a's run_end from brand-b's."""
    monkeypatch.setenv("BRAND_B_KEY", "not-a-key")
    result = CliRunner().invoke(cli, ["apply", "--all", "--yes", "--log-format", "json"])
    assert result.exit_code == 1, result.output
    lines = [json.loads(line) for line in result.stderr.splitlines()]
    of_runs = [e for e in lines if e["event"] in ("run_start", "plan_counts", "run_end")]
    assert of_runs and all(e.get("target_name") in ("brand-a", "brand-b") for e in of_runs)
    ends = {e["target_name"]: e for e in lines if e["event"] == "run_end"}
    assert ends["brand-a"]["exit_code"] == 0 and ends["brand-a"]["counts"]["ok"] == 3
    assert next(e["event"] for e in lines if e.get("target_name") == "brand-a") == "run_start"
    refused = ends["brand-b"]  # its key refused: stopped, nothing written, at level error
    assert (refused["exit_code"], refused["error_constant"]) == (2, "UNAUTHORIZED")
    assert refused["level"] == "error" and refused["counts"] == {}
    assert lines[0]["message"] == "targets: brand-a, brand-b" and "target_name" not in lines[0]


def test_a_target_that_cannot_start_is_in_the_json_log(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """apply --all --log-format json where one target's key variable is unset: that
    target never starts, and its run_end (level error, exit code 2, CONFIG_ERROR, the
    reason) is in the log; before, only the table on stdout named it."""
    monkeypatch.delenv("BRAND_B_KEY")
    result = CliRunner().invoke(cli, ["apply", "--all", "--yes", "--log-format", "json"])
    assert result.exit_code == 1, result.output
    lines = [json.loads(line) for line in result.stderr.splitlines()]
    ends = {e["target_name"]: e for e in lines if e["event"] == "run_end"}
    assert sorted(ends) == ["brand-a", "brand-b"]
    refused = ends["brand-b"]
    assert (refused["level"], refused["exit_code"]) == ("error", 2)
    assert refused["error_constant"] == "CONFIG_ERROR" and "BRAND_B_KEY" in refused["reason"]
    assert "BRAND_B_KEY" in refused["message"] and ends["brand-a"]["exit_code"] == 0
