"""The action's scripts one by one: comment.py against a fake GitHub API on 127.0.0.1,
install.sh's choice of what to install, and run.py's verdict (``finish``)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from action_helpers import (
    ACTION_DIR,
    BIN,
    GH_TOKEN,
    FakeGitHub,
    env_with_linksync,
    fake_github,
    pull_request_env,
)


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"action_{name}", ACTION_DIR / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def comment(
    tmp_path: Path, fake: FakeGitHub, number: int, markdown: str, **env: str
) -> subprocess.CompletedProcess[str]:
    plan = tmp_path / "plan.md"
    plan.write_text(markdown, encoding="utf-8")
    settings = {
        **pull_request_env(tmp_path, fake, number),
        "GITHUB_TOKEN": GH_TOKEN,
        "LINKSYNC_EVENT": "pull_request",
        "LINKSYNC_PLAN_MARKDOWN": str(plan),
        **env,
    }
    return subprocess.run(
        [sys.executable, str(ACTION_DIR / "comment.py")],
        capture_output=True,
        text=True,
        env=env_with_linksync(**settings),
        timeout=60,
        check=False,
    )


def test_one_comment_created_then_edited_in_place(tmp_path: Path) -> None:
    with fake_github() as gh:
        for i in range(130):  # a busy pull request: ours lands on the second page
            gh.add(5, f"review comment {i}")
        gh.add(6, "<!-- linksync-plan:default -->\nanother pull request's plan")
        first = comment(tmp_path, gh, 5, "## linksync plan\n\n**2 create**\n")
        assert first.returncode == 0, first.stderr
        assert "Plan posted on pull request #5" in first.stdout
        ours = [c for c in gh.on(5) if c["body"].startswith("<!-- linksync-plan:default -->")]
        assert len(ours) == 1 and ours[0]["body"].endswith("**2 create**\n")
        assert gh.requests[-1] == ("POST", "/repos/acme/links/issues/5/comments")
        listed = [p for m, p in gh.requests if m == "GET"]
        assert len(listed) == 2  # every page was read before deciding to create

        gh.requests.clear()
        second = comment(tmp_path, gh, 5, "## linksync plan\n\n**No changes:** all 2 links\n")
        assert second.returncode == 0, second.stderr
        assert "Plan comment on pull request #5 updated" in second.stdout
        ours_now = [c for c in gh.on(5) if c["body"].startswith("<!-- linksync-plan:")]
        assert [c["id"] for c in ours_now] == [ours[0]["id"]]
        assert "No changes" in ours_now[0]["body"] and len(gh.on(5)) == 131
        assert ("PATCH", f"/repos/acme/links/issues/comments/{ours[0]['id']}") in gh.requests
        assert not any(m == "POST" for m, _ in gh.requests)
        assert gh.on(6)[0]["body"].endswith("another pull request's plan")

        other = comment(tmp_path, gh, 5, "staging plan\n", LINKSYNC_COMMENT_ID="staging")
        assert other.returncode == 0
        markers = sorted(c["body"].split("\n")[0] for c in gh.on(5) if "linksync-plan" in c["body"])
        assert markers == ["<!-- linksync-plan:default -->", "<!-- linksync-plan:staging -->"]


def test_a_refused_comment_is_a_warning(tmp_path: Path) -> None:
    with fake_github() as gh:
        gh.refuse_writes = True
        run = comment(tmp_path, gh, 9, "## linksync plan\n")
    assert run.returncode == 0
    assert "::warning::could not post the plan on pull request #9 (HTTP 403)" in run.stdout
    assert gh.on(9) == []


@pytest.mark.parametrize(
    ("env", "reason"),
    [
        ({"LINKSYNC_EVENT": "push"}, "not a pull request"),
        ({"LINKSYNC_COMMENT": "false"}, "the comment input is false"),
        ({"LINKSYNC_PLAN_MARKDOWN": ""}, "no plan was made"),
        ({"GITHUB_TOKEN": ""}, "the token is unknown"),
    ],
)
def test_nothing_to_comment(tmp_path: Path, env: dict[str, str], reason: str) -> None:
    with fake_github() as gh:
        run = comment(tmp_path, gh, 3, "plan\n", **env)
    assert run.returncode == 0 and reason in run.stdout
    assert gh.requests == []


def test_a_plan_too_long_for_a_comment_is_cut_at_a_line() -> None:
    mod = load("comment")
    long_plan = "".join(f"| {i} | row |\n" for i in range(10_000))
    body = mod.comment_body("<!-- linksync-plan:default -->", long_plan)
    assert len(body) <= mod.MAX_BODY
    shown = body.count("| row |")
    assert body.endswith(
        f"_The plan is too long for one comment: its last {10_000 - shown} table row(s) and "
        f"{10_000 - shown} line(s) are not shown here; the job summary has the whole plan._\n"
    )
    assert "\n| 1 | row |\n" in body
    assert f"\n| {shown - 1} | row |\n\n_The plan is too long" in body


def test_a_plan_comment_cut_names_what_it_cut_and_keeps_its_marker(tmp_path: Path) -> None:
    """Posted through the comment script: the body GitHub gets stays under its limit,
    says how many rows are not shown, and starts with the marker that later pushes
    find it by, even when one line alone is longer than a comment."""
    head = "## linksync plan\n\n### Changes\n\n| # | link |\n| ---: | --- |\n"
    rows = "".join(f"| {i} | lnk.test/s{i} |\n" for i in range(8_000))
    plan = head + rows + "\n_... and 5 more._\n"
    with fake_github() as gh:
        run = comment(tmp_path, gh, 7, plan)
        assert run.returncode == 0, run.stderr
        one_line = comment(tmp_path, gh, 8, "x" * 70_000 + "\n| 1 | row |\n")
        assert one_line.returncode == 0, one_line.stderr
    (posted,) = gh.on(7)
    body = posted["body"]
    assert len(body) <= 65_536 and body.startswith("<!-- linksync-plan:default -->\n## linksync")
    shown = body.count("| lnk.test/s")
    assert f"its last {8_000 - shown} table row(s) and {8_000 - shown + 2} line(s)" in body
    (long,) = gh.on(8)
    assert long["body"].startswith("<!-- linksync-plan:default -->\nxxx")
    assert len(long["body"]) <= 65_536
    assert "its last 1 table row(s) and 2 line(s) are not shown here" in long["body"]


def install(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(ACTION_DIR / "install.sh")], capture_output=True, text=True, env=env
    )


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("", "pip install {root}"),
        ("action", "pip install {root}"),
        ("0.2.0", "pip install linksync==0.2.0"),
        (
            "git+https://github.com/acme/linksync@v0.2.0",
            "pip install git+https://github.com/acme/linksync@v0.2.0",
        ),
        ("linksync>=0.2,<0.3", "pip install linksync>=0.2,<0.3"),
    ],
)
def test_install_chooses_what_to_install(tmp_path: Path, version: str, expected: str) -> None:
    env = {"LINKSYNC_VERSION": version, "LINKSYNC_DRY_RUN": "1", "RUNNER_TEMP": str(tmp_path)}
    run = install(env_with_linksync(**env))
    assert run.returncode == 0, run.stderr
    root = str(ACTION_DIR.parent)
    assert run.stdout.strip().endswith(expected.format(root=root))
    assert f"{tmp_path}/linksync-venv/bin/python -m pip" in run.stdout


def test_install_preinstalled_needs_linksync_on_path(tmp_path: Path) -> None:
    env = env_with_linksync(LINKSYNC_VERSION="preinstalled")
    found = install(env)
    assert found.returncode == 0 and "linksync, version" in found.stdout
    assert not (Path("/usr/bin/linksync").exists() or Path("/bin/linksync").exists())
    missing = install({**env, "PATH": "/usr/bin:/bin"})
    assert missing.returncode == 2 and "no linksync on PATH" in missing.stderr
    assert BIN.is_dir() and os.access(BIN / "linksync", os.X_OK)


@pytest.mark.parametrize(
    ("exitcode", "has_changes", "fail_on_changes", "verdict"),
    [
        ("0", "false", "true", 0),
        ("0", "true", "false", 0),
        ("0", "true", "true", 3),
        ("1", "true", "false", 1),
        ("2", "", "false", 2),
        ("", "", "false", 2),
    ],
)
def test_finish_gives_the_job_its_verdict(
    exitcode: str, has_changes: str, fail_on_changes: str, verdict: int
) -> None:
    env = {
        "LINKSYNC_EXITCODE": exitcode,
        "LINKSYNC_HAS_CHANGES": has_changes,
        "LINKSYNC_FAIL_ON_CHANGES": fail_on_changes,
    }
    assert load("run").finish(env) == verdict


@pytest.mark.parametrize(
    ("command", "event", "ref", "resolved"),
    [
        ("auto", "push", "refs/heads/main", "apply"),
        ("auto", "push", "refs/heads/feature", "plan"),
        ("auto", "pull_request", "refs/pull/1/merge", "plan"),
        ("auto", "schedule", "refs/heads/main", "plan"),
        ("", "push", "refs/heads/trunk", "apply"),
        ("plan", "push", "refs/heads/main", "plan"),
    ],
)
def test_auto_applies_only_on_a_push_to_the_default_branch(
    command: str, event: str, ref: str, resolved: str
) -> None:
    default = "trunk" if ref.endswith("trunk") else "main"
    env = {
        "LINKSYNC_COMMAND": command,
        "LINKSYNC_EVENT": event,
        "LINKSYNC_REF": ref,
        "LINKSYNC_DEFAULT_BRANCH": default,
    }
    assert load("run").resolve_command(env) == resolved
