"""The GitHub Action (action.yml) run locally, step by step, as action/local.py runs it:
against ``linksync sandbox serve`` on 127.0.0.1 and a fake GitHub API for the comment.
What GitHub alone does (actions/setup-python, masking secrets, the real REST API) is
not exercised here."""

from __future__ import annotations

import shutil
from pathlib import Path

import httpx
import pytest
from action_helpers import (
    KEY,
    ROOT,
    FakeGitHub,
    fake_github,
    pull_request_env,
    run_action,
    served_sandbox,
)

MARKER = "<!-- linksync-plan:default -->"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A links-as-code repository: the CI sample's links/ folder."""
    work = tmp_path / "repo"
    shutil.copytree(ROOT / "samples" / "ci" / "links", work / "links")
    return work


def seed_hand_made_link(base_url: str) -> None:
    """A workspace is never empty: one link made by hand in the dashboard."""
    r = httpx.post(
        f"{base_url}/api/v1/links",
        json={"slug": "welcome", "url": "https://example.com/welcome"},
        headers={"Authorization": f"Bearer {KEY}"},
    )
    assert r.status_code == 201


def assert_no_key(*texts: str) -> None:
    for text in texts:
        assert KEY not in text


def test_pull_request_comment_then_apply_on_main(repo: Path, tmp_path: Path) -> None:
    with served_sandbox(tmp_path) as base_url, fake_github() as gh:
        seed_hand_made_link(base_url)
        target = ("files=links/", f"base-url={base_url}", "env:api-key=LINKSYNC_TEST_KEY")
        pr = {**pull_request_env(tmp_path, gh, 7), "LINKSYNC_TEST_KEY": KEY}

        first = run_action(repo, *target, event="pull_request", ref="refs/pull/7/merge", **pr)
        assert first.code == 0, first.stderr
        assert first.outputs["command"] == "plan"
        assert (first.outputs["has_changes"], first.outputs["creates"]) == ("true", "4")
        assert (first.outputs["updates"], first.outputs["deletes"]) == ("0", "0")
        assert first.outputs["invalid"] == "0" and first.outputs["exitcode"] == "0"
        (comment,) = gh.on(7)
        assert comment["body"].startswith(MARKER + "\n## linksync plan")
        assert "**4 create** (4 rows planned)." in comment["body"]
        assert "**4 create**" in first.summary  # the job summary holds the plan too
        assert gh.requests == [
            ("GET", "/repos/acme/links/issues/7/comments"),
            ("POST", "/repos/acme/links/issues/7/comments"),
        ]

        # a later push to the pull request: one link fewer; the same comment is edited
        text = (repo / "links" / "campaigns.yaml").read_text()
        (repo / "links" / "campaigns.yaml").write_text(text.split("  help-center:")[0])
        second = run_action(repo, *target, event="pull_request", ref="refs/pull/7/merge", **pr)
        assert second.code == 0, second.stderr
        assert second.outputs["creates"] == "3"
        (edited,) = gh.on(7)
        assert edited["id"] == comment["id"]
        assert "**3 create** (3 rows planned)." in edited["body"]
        assert [m for m, _ in gh.requests].count("POST") == 1
        assert gh.requests[-1] == ("PATCH", f"/repos/acme/links/issues/comments/{comment['id']}")

        # merged: `command: auto` applies on a push to the default branch
        merged = run_action(repo, *target, event="push", ref="refs/heads/main", **pr)
        assert merged.code == 0, merged.stderr
        assert merged.outputs["command"] == "apply" and merged.outputs["creates"] == "3"
        assert "No plan comment: not a pull request." in merged.stdout
        links = httpx.get(
            f"{base_url}/api/v1/links", headers={"Authorization": f"Bearer {KEY}"}
        ).json()["data"]
        assert sorted(x["slug"] for x in links) == ["007", "get-app", "spring-sale", "welcome"]
        report = Path(merged.outputs["report-dir"]) / "report.json"
        assert report.is_file()

        # the next push to a pull request: nothing left to do, said in the same comment
        again = run_action(repo, *target, event="pull_request", ref="refs/pull/7/merge", **pr)
        assert again.code == 0
        assert again.outputs["has_changes"] == "false" and again.outputs["creates"] == "0"
        (last,) = gh.on(7)
        assert "**No changes:** all 3 links match the workspace." in last["body"]
        assert "> Unmanaged: 1 link in no file and outside the scope" in last["body"]
        assert "| action |" not in last["body"]

        runs = (first, second, merged, again)
        assert_no_key(*(r.stdout + r.stderr + r.summary for r in runs), last["body"])
        assert_no_key(report.read_text())


def test_invalid_rows_are_commented_then_fail_the_job(repo: Path, tmp_path: Path) -> None:
    (repo / "links" / "campaigns.yaml").write_text(
        "links:\n  fine: https://example.com/fine\n  admin: https://example.com/admin\n"
    )
    with served_sandbox(tmp_path) as base_url, fake_github() as gh:
        seed_hand_made_link(base_url)
        run = run_action(
            repo,
            "files=links/campaigns.yaml",
            f"base-url={base_url}",
            "env:api-key=LINKSYNC_TEST_KEY",
            "command=plan",
            event="pull_request",
            **pull_request_env(tmp_path, gh, 8),
            LINKSYNC_TEST_KEY=KEY,
        )
    assert run.code == 1
    assert run.outputs["invalid"] == "1" and run.outputs["exitcode"] == "1"
    assert run.outputs["creates"] == "1" and run.outputs["has_changes"] == "true"
    assert "::error file=links/campaigns.yaml,line=3::RESERVED_SLUG: " in run.stdout
    assert "::error::linksync exited with code 1" in run.stdout
    (comment,) = gh.on(8)
    assert "RESERVED_SLUG" in comment["body"]  # the reviewer sees why before the job fails


def test_plan_without_a_key_validates_only(repo: Path) -> None:
    (repo / "links" / "bad.csv").write_text("slug,url\nadmin,https://example.com\n")
    run = run_action(repo, "files=links/ links/bad.csv", "command=plan", event="pull_request")
    assert run.code == 1
    assert run.outputs["command"] == "validate" and run.outputs["invalid"] == "1"
    assert "::notice::no API key" in run.stdout
    assert "::error file=links/bad.csv,line=2::RESERVED_SLUG" in run.stdout
    assert "5 rows: 4 valid, 1 invalid" in run.summary


def test_apply_without_a_base_url_stops_before_linksync(repo: Path) -> None:
    run = run_action(
        repo, "files=links/", "command=apply", "env:api-key=LINKSYNC_TEST_KEY",
        LINKSYNC_TEST_KEY=KEY,
    )  # fmt: skip
    assert run.code == 2
    assert "::error::apply needs the `base-url` input" in run.stdout
    assert run.outputs["exitcode"] == "2" and "$ linksync" not in run.stderr


def test_unknown_input_is_refused(repo: Path) -> None:
    run = run_action(repo, "file=links/")
    assert run.code == 2 and "unknown input(s): file" in run.stderr


def test_fake_github_refuses_a_bad_token() -> None:
    with fake_github() as gh:
        r = httpx.get(f"{gh.base_url}/repos/a/b/issues/1/comments")
    assert r.status_code == 401 and isinstance(gh, FakeGitHub)


def test_a_password_from_a_ci_secret_is_sent_and_shown_nowhere(repo: Path, tmp_path: Path) -> None:
    """The workflow gives the step ``env: VIP_PASSWORD: ${{ secrets.VIP_PASSWORD }}``;
    the link file says ``password: {env: VIP_PASSWORD}``: the plan comment says where the
    password comes from, the apply sends it, and no output holds its value."""
    secret = "vip-Secret-from-CI-77"
    (repo / "links" / "vip.yaml").write_text(
        "defaults:\n  domain: lnk.test\nlinks:\n  vip:\n"
        "    url: https://example.com/vip\n    password: {env: VIP_PASSWORD}\n"
    )
    with served_sandbox(tmp_path) as base_url, fake_github() as gh:
        seed_hand_made_link(base_url)
        target = ("files=links/", f"base-url={base_url}", "env:api-key=LINKSYNC_TEST_KEY")
        env = {**pull_request_env(tmp_path, gh, 9), "LINKSYNC_TEST_KEY": KEY}
        env["VIP_PASSWORD"] = secret
        planned = run_action(repo, *target, event="pull_request", ref="refs/pull/9/merge", **env)
        assert planned.code == 0, planned.stderr
        (comment,) = gh.on(9)
        assert "password: (set from env VIP_PASSWORD)" in comment["body"]
        merged = run_action(repo, *target, event="push", ref="refs/heads/main", **env)
        assert merged.code == 0, merged.stderr
        assert merged.outputs["creates"] == "5"
        opened = httpx.get(f"{base_url}/r/lnk.test/vip", params={"password": secret})
        refused = httpx.get(f"{base_url}/r/lnk.test/vip", params={"password": "guess"})
    assert opened.status_code == 302 and refused.status_code != 302
    report_dir = Path(merged.outputs["report-dir"])
    written = [p.read_text(errors="replace") for p in report_dir.rglob("*") if p.is_file()]
    for text in (planned.stdout, planned.stderr, planned.summary, comment["body"], *written):
        assert secret not in text
    assert secret not in merged.stdout + merged.stderr + merged.summary
