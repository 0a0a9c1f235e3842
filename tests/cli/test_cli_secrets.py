"""Link passwords kept out of git, as a team meets it: a repository (``git init``) whose
YAML says ``password: {env: VIP_PASSWORD}`` and ``{file: ../secrets/club.txt}``;
``linksync validate/plan/apply`` on the built-in sandbox, whose short links then open
with the passwords read; and every file the run wrote (reports, saved plan, journal,
the JSON log) grepped for them: absent, the plan saying where each came from."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import linksync
from linksync.config import resolve
from support.cli_runs import opens, run

SECRET = "s3cret-VIP-2026"
FILE_SECRET = "club-Pa55-from-file"
LINKS = """\
# yaml-language-server: $schema=links.schema.json
defaults:
  domain: lnk.test
links:
  vip:
    url: https://example.com/vip
    password: {env: VIP_PASSWORD}
  club:
    url: https://example.com/club
    password: {file: ../secrets/club.txt}
  open:
    url: https://example.com/open
"""


@pytest.fixture
def repo(workdir: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(workdir)], check=True)
    (workdir / ".gitignore").write_text("secrets/\n.linksync/\n", encoding="utf-8")
    (workdir / "secrets").mkdir()
    (workdir / "secrets" / "club.txt").write_text(FILE_SECRET + "\n", encoding="utf-8")
    (workdir / "links").mkdir()
    (workdir / "links" / "go.yaml").write_text(LINKS, encoding="utf-8")
    return workdir


def written(root: Path) -> dict[str, str]:
    """Every file a run wrote under ``root`` (its outputs, the journal), but the
    sandbox's own database (the service keeps the password) and the password file."""
    return {
        str(p.relative_to(root)): p.read_text(encoding="utf-8", errors="replace")
        for p in sorted(root.rglob("*"))
        if p.is_file()
        and ".git" not in p.relative_to(root).parts
        and "sandbox.db" not in p.name
        and p.parent.name != "secrets"
    }


def test_passwords_from_a_variable_and_a_file_are_sent_and_written_nowhere(
    repo: Path, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    monkeypatch.setenv("VIP_PASSWORD", SECRET)
    state = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("LINKSYNC_STATE_DIR", str(state))
    plan = run("plan", "links/", "--out", "plan.json", "--log-format", "json")
    assert plan.exit_code == 0, plan.output
    assert "password: (set from env VIP_PASSWORD)" in plan.stdout
    assert "password: (set from file ../secrets/club.txt)" in plan.stdout
    markdown = run("plan", "links/", "--format", "markdown")
    assert "password: (set from env VIP_PASSWORD)" in markdown.stdout
    saved = json.loads((repo / "plan.json").read_text(encoding="utf-8"))
    vip = next(c for c in saved["changes"] if c["slug"] == "vip")
    assert vip["payload"]["password"] == "***"
    assert vip["spec"]["provenance"]["declared"]["password_from"] == "env VIP_PASSWORD"

    applied = run(
        "apply", "--plan", "plan.json", "links/", "--yes", "--log-format", "json",
        "--report", "out/report.csv", "--report", "out/report.json",
        "--report", "out/report.md", "--report", "out/report.xml",
    )  # fmt: skip
    assert applied.exit_code == 0, applied.output
    assert "Done: 3 created" in applied.stdout
    assert opens(repo, "vip", SECRET) == 302
    assert opens(repo, "club", FILE_SECRET) == 302
    assert opens(repo, "club", "wrong") == 401

    files = written(repo)
    assert {"plan.json", "out/report.csv", "out/report.json", "out/report.md"} <= set(files)
    assert any(name.startswith(".linksync/runs/") for name in files), files  # the journal
    events = [json.loads(line)["event"] for line in applied.stderr.splitlines()]
    assert "run_start" in events and "run_end" in events  # the JSON log
    outputs = {**files, **written(state), "plan": plan.output, "markdown": markdown.output,
               "apply": applied.output}  # fmt: skip
    for name, text in outputs.items():
        assert SECRET not in text and FILE_SECRET not in text, name


def test_a_password_changed_in_the_variable_is_sent_from_the_machine_that_sent_it(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VIP_PASSWORD", SECRET)
    assert run("apply", "links/", "--yes").exit_code == 0
    monkeypatch.setenv("VIP_PASSWORD", "rotated-Pa55-2027")
    plan = run("plan", "links/", "--detailed-exitcode")
    assert plan.exit_code == 3, plan.output
    assert "update    lnk.test/vip" in plan.stdout
    assert "password: (set from env VIP_PASSWORD)" in plan.stdout
    assert "note: password changed since the last run from this machine" in plan.stdout
    assert "rotated" not in plan.output
    assert run("apply", "links/", "--yes").exit_code == 0
    assert opens(repo, "vip", "rotated-Pa55-2027") == 302
    assert opens(repo, "vip", SECRET) == 401
    assert "No changes" in run("plan", "links/").stdout


def test_a_variable_not_set_fails_its_link_and_validate_only_warns(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VIP_PASSWORD", raising=False)
    checked = run("validate", "links/")
    assert checked.exit_code == 0, checked.output  # the pre-commit hook, a fork's CI
    assert "WARNING MISSING_SECRET: links/go.yaml, line 5" in checked.stdout
    assert "the variable VIP_PASSWORD is not set here (plan and apply need it)" in checked.stdout

    plan = run("plan", "links/")
    assert plan.exit_code == 1, plan.output
    assert "invalid   lnk.test/vip" in plan.stdout
    assert "error MISSING_SECRET" in plan.stdout and "VIP_PASSWORD is not set" in plan.stdout

    applied = run("apply", "links/", "--yes")
    assert applied.exit_code == 1, applied.output
    assert "Done: 2 created" in applied.stdout  # the others go on
    assert opens(repo, "club", FILE_SECRET) == 302
    assert run("validate", "links/", "--strict").exit_code == 1  # every warning an error


def test_a_password_file_out_of_the_repository_is_refused_by_validate_too(
    repo: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("elsewhere") / "pw.txt"
    outside.write_text("elsewhere-Pa55\n", encoding="utf-8")
    (repo / "secrets" / "link.txt").symlink_to(outside)
    text = LINKS.replace("../secrets/club.txt", "../secrets/link.txt")
    (repo / "links" / "go.yaml").write_text(text, encoding="utf-8")
    checked = run("validate", "links/")
    assert checked.exit_code == 1, checked.output
    assert 'INVALID_FIELD: links/go.yaml, line 8, key "password"' in checked.stdout
    assert "leads out of the repository's tree (the git work tree" in checked.stdout
    assert "elsewhere-Pa55" not in checked.output


def test_a_password_in_clear_is_warned_and_refused_under_strict(repo: Path) -> None:
    (repo / "links" / "go.yaml").write_text(
        "links:\n  vip:\n    url: https://example.com/vip\n    password: hunter2\n",
        encoding="utf-8",
    )
    plan = run("plan", "links/")
    assert plan.exit_code == 0, plan.output
    assert "warning SECRET_IN_SOURCE" in plan.stdout
    assert "password written in clear (line 4)" in plan.stdout
    assert "password: {env: VIP_PASSWORD}" in plan.stdout
    strict = run("plan", "links/", "--strict")
    assert strict.exit_code == 1 and "error SECRET_IN_SOURCE" in strict.stdout
    checked = run("validate", "links/", "--json")
    (problem,) = json.loads(checked.stdout)["problems"]
    assert (problem["constant"], problem["row"]) == ("SECRET_IN_SOURCE", 2)


def test_the_library_plans_with_the_resolved_password(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VIP_PASSWORD", SECRET)
    planned = linksync.plan(["links/"], resolve(cwd=repo, env={}, sandbox=True))
    vip = next(c for c in planned.plan.changes if c.slug == "vip")
    assert vip.payload["password"] == SECRET  # what the apply sends
    assert vip.spec is not None and vip.spec.declared.password_from == "env VIP_PASSWORD"
    assert SECRET not in planned.to_json()
