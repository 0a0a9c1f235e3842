"""``linksync plan`` / ``apply`` through click's CliRunner, and the Python API, against
the built-in sandbox (its state file in a temporary directory)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import linksync
from linksync.cli import cli
from linksync.config import resolve
from linksync.model import Action, Status
from support.journals import read_journal

CSV = """slug,url,tags,description
spring-sale,https://example.com/sale,"sale,spring",Spring sale
docs,https://example.com/docs,,reserved slug
,https://example.com/generated,,
summer,https://example.com/summer,summer,
"""


@pytest.fixture
def workdir(workdir: Path) -> Path:
    """The shared working directory (``tests/conftest.py``) with this module's CSV."""
    (workdir / "links.csv").write_text(CSV, encoding="utf-8")
    return workdir


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def remote_slugs(workdir: Path) -> list[str]:
    settings = resolve(cwd=workdir, env={}, sandbox=True)

    async def go() -> list[str]:
        async with settings.open_client() as client:
            return sorted(link.slug for link in await client.list_links())

    return asyncio.run(go())


def test_apply_then_nothing_to_do(workdir: Path) -> None:
    first = run("plan", "links.csv", "--detailed-exitcode")
    assert first.exit_code == 1  # the reserved slug row is invalid
    assert "RESERVED_SLUG" in first.output and "3 create" in first.output
    applied = run("apply", "links.csv", "--yes", "--report", "out/r.json")
    assert applied.exit_code == 1, applied.output
    assert "Exit code 1" in applied.output
    report = json.loads((workdir / "out/r.json").read_text())
    rows = report["results"]
    assert sorted(r["status"] for r in rows) == ["invalid", "ok", "ok", "ok"]
    generated = next(r for r in rows if r["url"] == "https://example.com/generated")
    assert generated["short_url"] == f"https://lnk.test/{generated['slug']}"
    assert len(remote_slugs(workdir)) == 3
    journals = list((workdir / ".linksync/runs").glob("*.jsonl"))
    assert len(journals) == 1
    assert sum(e["event"] == "request" for e in read_journal(journals[0])) == 3
    (workdir / "links.csv").write_text(CSV.replace("docs,", "guide,"), encoding="utf-8")
    run("apply", "links.csv", "--yes")
    again = run("plan", "links.csv", "--detailed-exitcode", "--format", "json")
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["counts"]["unchanged"] == 4


def test_detailed_exitcode_and_markdown(workdir: Path) -> None:
    (workdir / "ok.csv").write_text("slug,url\na1,https://e.com/1\n", encoding="utf-8")
    pending = run("plan", "ok.csv", "--detailed-exitcode", "--format", "markdown")
    assert pending.exit_code == 3
    assert "| action |" in pending.output


def test_plan_printed_as_json_is_the_plan_saved(workdir: Path) -> None:
    (workdir / "p.csv").write_text("slug,url\na,https://e.com/a\n")
    shown = run("plan", "p.csv", "--format", "json", "--out", "plan.json")
    assert shown.exit_code == 0
    saved = (workdir / "plan.json").read_text(encoding="utf-8")
    assert json.loads(saved)["counts"]["create"] == 1
    assert shown.stdout == saved


def test_apply_needs_yes_without_terminal(workdir: Path) -> None:
    result = CliRunner().invoke(cli, ["apply", "links.csv"], input="")
    assert result.exit_code == 2
    assert "--yes" in result.output
    assert remote_slugs(workdir) == []


def test_saved_plan_with_a_stale_row(workdir: Path) -> None:
    (workdir / "v1.csv").write_text("slug,url\na,https://e.com/a\nb,https://e.com/b\n")
    assert run("apply", "v1.csv", "--yes").exit_code == 0
    (workdir / "v2.csv").write_text("slug,url\na,https://e.com/a2\nb,https://e.com/b2\n")
    assert run("plan", "v2.csv", "--out", "plan.json").exit_code == 0
    settings = resolve(cwd=workdir, env={}, sandbox=True)

    async def edit() -> None:
        async with settings.open_client() as client:
            await client.update_link("b", {"description": "edited by hand"})

    asyncio.run(edit())
    applied = run("apply", "--plan", "plan.json", "--yes", "--report", "r.json")
    assert applied.exit_code == 1
    data = json.loads((workdir / "r.json").read_text())
    rows = {r["slug"]: r for r in data["results"]}
    assert rows["a"]["status"] == "ok"
    assert rows["b"]["status"] == "failed" and rows["b"]["error_constant"] == "STALE_PLAN"


def test_mirror_refused_without_force(workdir: Path) -> None:
    rows = "".join(f"k{i},https://e.com/{i}\n" for i in range(12))
    (workdir / "all.csv").write_text("slug,url\n" + rows)
    assert run("apply", "all.csv", "--yes").exit_code == 0
    (workdir / "few.csv").write_text("slug,url\n" + rows.split("\n", 4)[4])
    args = ["apply", "few.csv", "--yes", "--mode", "mirror", "--domain", "lnk.test"]
    refused = run(*args)
    assert refused.exit_code == 2 and "--force" in refused.output
    assert len(remote_slugs(workdir)) == 12
    forced = run(*args, "--force")
    assert forced.exit_code == 0, forced.output
    assert len(remote_slugs(workdir)) == 8


def test_python_api(workdir: Path) -> None:
    plan = linksync.plan(["links.csv"])
    assert plan.counts["create"] == 3 and plan.counts["invalid"] == 1
    results = linksync.apply(["links.csv"], outputs=linksync.Outputs(journal=False))
    assert [r.status for r in results.rows].count(Status.OK) == 3
    assert not linksync.plan(["links.csv"]).has_changes
    again = linksync.apply(["links.csv"], outputs=linksync.Outputs(journal=False))
    assert {r.action for r in again.rows} == {Action.UNCHANGED, Action.INVALID}


def test_json_log_events_for_scheduled_runs(workdir: Path) -> None:
    """--log-format json: only JSON objects on stderr, one per line (the console's own
    messages as "message" events), run_start .. run_end, each failed row with its
    constant, and no API key anywhere."""
    applied = run("apply", "links.csv", "--yes", "--log-format", "json", "--no-progress")
    assert applied.exit_code == 1
    lines = applied.stderr.splitlines()
    every = [json.loads(line) for line in lines]
    messages = [e["message"] for e in every if e["event"] == "message"]
    assert messages[0].startswith("target: built-in sandbox")
    assert messages[-1].startswith("journal: .linksync/runs/")
    events = [e for e in every if e["event"] != "message"]
    names = [e["event"] for e in events]
    assert names[0] == "run_start" and names[-1] == "run_end"
    assert "plan_counts" in names
    failed = [e for e in events if e["event"] == "row_failed"]
    assert [(e["slug"], e["error_constant"]) for e in failed] == [("docs", "RESERVED_SLUG")]
    end = events[-1]
    assert end["exit_code"] == 1 and end["counts"]["ok"] == 3 and end["requests"] >= 3
    from linksync.sandbox import SandboxSettings

    assert SandboxSettings().full_key not in applied.output + applied.stderr


def test_second_run_names_repeated_failures(workdir: Path) -> None:
    run("apply", "links.csv", "--yes", "--no-progress")
    again = run("apply", "links.csv", "--yes", "--no-progress", "--log-format", "json")
    assert again.exit_code == 1
    assert "Repeats: 1 of 1 failed rows also failed in the last run" in again.stdout
    failed = [
        json.loads(line)
        for line in again.stderr.splitlines()
        if line.startswith("{") and '"row_failed"' in line
    ]
    assert [(e["slug"], e["repeat"]) for e in failed] == [("docs", True)]
