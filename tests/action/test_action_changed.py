"""The action reads only what changed (input ``changed-only``, on by default): a pull
request's plan ``--changed-since`` its base, a push's apply ``--changed-since`` the
commit before the push, in a shallow checkout that lacks that commit (fetched alone
from ``origin``); every file, the log saying why, on the first push of a branch, after
a force push, or with ``changed-only: false``. Real git repositories (an ``origin``
and a ``--depth 1`` clone of it, as actions/checkout makes) against ``linksync sandbox
serve``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import httpx
import pytest
from action_helpers import KEY, fake_github, pull_request_env, run_action, served_sandbox

FILES = {
    f"team{n}": {f"t{n}-{i}": f"https://example.com/{n}/{i}" for i in range(4)} for n in range(5)
}
ZERO = "0" * 40


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def write(root: Path, name: str, links: dict[str, str]) -> None:
    path = root / "links" / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("links:\n" + "".join(f"  {s}: {u}\n" for s, u in links.items()))


def commit(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", message)
    return git(root, "rev-parse", "HEAD")


@pytest.fixture
def origin(tmp_path: Path) -> tuple[Path, Path]:
    """(the bare ``origin``, a developer's clone of it with FILES pushed on main)."""
    bare, dev = tmp_path / "origin.git", tmp_path / "dev"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    git(tmp_path, "clone", "-q", str(bare), str(dev))
    git(dev, "checkout", "-q", "-b", "main")
    for name, links in FILES.items():
        write(dev, name, links)
    commit(dev, "links")
    git(dev, "push", "-q", "origin", "main")
    return bare, dev


def checkout(tmp_path: Path, bare: Path, branch: str, name: str) -> Path:
    """What actions/checkout leaves: a clone of one commit (``--depth 1``)."""
    work = tmp_path / name
    git(tmp_path, "clone", "-q", "--depth", "1", "--branch", branch, f"file://{bare}", str(work))
    return work


def event(tmp_path: Path, name: str, payload: dict[str, object]) -> dict[str, str]:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(payload))
    return {"GITHUB_EVENT_PATH": str(path)}


def workspace(base_url: str) -> dict[str, str]:
    got = httpx.get(
        f"{base_url}/api/v1/links?limit=100", headers={"Authorization": f"Bearer {KEY}"}
    )
    return {x["slug"]: x["url"] for x in got.json()["data"]}


def test_pull_request_plans_and_push_applies_only_the_changed_files(
    origin: tuple[Path, Path], tmp_path: Path
) -> None:
    bare, dev = origin
    base = git(dev, "rev-parse", "HEAD")
    with served_sandbox(tmp_path) as base_url, fake_github() as gh:
        target = ("files=links/", f"base-url={base_url}", "env:api-key=LINKSYNC_TEST_KEY")
        secret = {"LINKSYNC_TEST_KEY": KEY}

        # the branch's first push: no commit before it, every file read
        first_ci = checkout(tmp_path, bare, "main", "ci-first")
        push = event(tmp_path, "first", {"before": ZERO, "after": base})
        first = run_action(first_ci, *target, event="push", **push, **secret)
        assert first.code == 0, first.stderr
        assert first.outputs["command"] == "apply" and first.outputs["creates"] == "20"
        assert first.outputs["changed-since"] == ""
        said = "::notice::full run: every file is read (the commit before the push is not given"
        assert said in first.stdout

        # a pull request: one URL changed in team1, a link added in team3
        git(dev, "checkout", "-q", "-b", "feature")
        write(dev, "team1", {**FILES["team1"], "t1-0": "https://example.com/new"})
        write(dev, "team3", {**FILES["team3"], "t3-new": "https://example.com/3/new"})
        commit(dev, "two links")
        git(dev, "push", "-q", "origin", "feature")
        pr_ci = checkout(tmp_path, bare, "feature", "ci-pr")
        with pytest.raises(subprocess.CalledProcessError):
            git(pr_ci, "cat-file", "-e", f"{base}^{{commit}}")  # not in the shallow clone
        pr = {**pull_request_env(tmp_path, gh, 5), **secret}
        pr.update(event(tmp_path, "pr", {"number": 5, "pull_request": {"number": 5,
                                          "base": {"sha": base, "ref": "main"}}}))  # fmt: skip
        plan = run_action(pr_ci, *target, event="pull_request", ref="refs/pull/5/merge", **pr)
        assert plan.code == 0, plan.stderr
        assert "the clone is shallow" not in plan.stderr  # base: the merge commit's parent
        assert plan.outputs["command"] == "plan" and plan.outputs["changed-since"] == base
        assert (plan.outputs["creates"], plan.outputs["updates"]) == ("1", "1")
        assert f"only the files changed since the pull request's base ({base[:12]})" in plan.stdout
        (comment,) = gh.on(5)
        body = comment["body"]
        assert f"Partial plan of the links changed since {base[:12]}: 2 file(s) changed: " in body
        assert "links/team1.yaml (modified), links/team3.yaml (modified)" in body
        assert "a full run (without --changed-since) reconciles them" in body

        # merged: the push's apply reads the same two files, since the commit before it
        git(dev, "checkout", "-q", "main")
        git(dev, "merge", "-q", "--ff-only", "feature")
        git(dev, "push", "-q", "origin", "main")
        merge_ci = checkout(tmp_path, bare, "main", "ci-merge")
        merged_push = event(tmp_path, "merge", {"before": base, "after": "x"})
        merged = run_action(merge_ci, *target, event="push", **merged_push, **secret)
        assert merged.code == 0, merged.stderr
        assert merged.outputs["command"] == "apply" and merged.outputs["changed-since"] == base
        assert (merged.outputs["creates"], merged.outputs["updates"]) == ("1", "1")
        assert "2 source file(s) changed" in merged.stderr
        now = workspace(base_url)
        assert now["t1-0"] == "https://example.com/new" and "t3-new" in now
        assert len(now) == 21


def test_a_force_push_whose_before_is_gone_reads_every_file(
    origin: tuple[Path, Path], tmp_path: Path
) -> None:
    bare, _ = origin
    work = checkout(tmp_path, bare, "main", "ci")
    gone = "1234567" + "0" * 33
    with served_sandbox(tmp_path) as base_url:
        run = run_action(
            work, "files=links/", f"base-url={base_url}", "env:api-key=LINKSYNC_TEST_KEY",
            "command=plan", event="push",
            **event(tmp_path, "forced", {"before": gone, "forced": True}),
            LINKSYNC_TEST_KEY=KEY,
        )  # fmt: skip
    assert run.code == 0, run.stderr
    assert run.outputs["changed-since"] == "" and run.outputs["creates"] == "20"
    assert (
        "::notice::full run: every file is read (the commit before the push, 123456700000, "
        "is not in the checkout and could not be fetched" in run.stdout
    )
    assert "--changed-since" not in run.stderr.split("$ linksync", 1)[1].splitlines()[0]


def test_changed_only_false_and_a_pull_request_without_a_key_validate_what_it_says(
    origin: tuple[Path, Path], tmp_path: Path
) -> None:
    bare, dev = origin
    base = git(dev, "rev-parse", "HEAD")
    git(dev, "checkout", "-q", "-b", "broken")
    write(dev, "team2", {**FILES["team2"], "admin": "https://example.com/admin"})
    commit(dev, "a reserved slug")
    git(dev, "push", "-q", "origin", "broken")
    work = checkout(tmp_path, bare, "broken", "ci")
    pr = event(tmp_path, "pr", {"number": 9, "pull_request": {"base": {"sha": base}}})
    # no key (a fork): validated only, and only the changed file
    fork = run_action(work, "files=links/", event="pull_request", **pr)
    assert fork.code == 1
    assert fork.outputs["command"] == "validate" and fork.outputs["changed-since"] == base
    assert "5 rows: 4 valid, 1 invalid" in fork.summary  # team2.yaml alone
    # every file when asked
    full = run_action(work, "files=links/", "changed-only=false", event="pull_request", **pr)
    assert full.code == 1 and full.outputs["changed-since"] == ""
    assert "::notice::full run: every file is read (changed-only is false)" in full.stdout
    assert "21 rows: 20 valid, 1 invalid" in full.summary


def test_a_pull_request_that_changes_linksync_yaml_reads_every_file(
    origin: tuple[Path, Path], tmp_path: Path
) -> None:
    """The profile's settings (UTM rules, default domain, ...) apply to every link: a
    change to them is a reason to read every file."""
    bare, dev = origin
    base = git(dev, "rev-parse", "HEAD")
    git(dev, "checkout", "-q", "-b", "profile")
    (dev / "linksync.yaml").write_text("profiles:\n  team:\n    system_domain: lnk.test\n")
    write(dev, "team4", {**FILES["team4"], "admin": "https://example.com/admin"})
    commit(dev, "a profile, a reserved slug")
    git(dev, "push", "-q", "origin", "profile")
    work = checkout(tmp_path, bare, "profile", "ci")
    pr = event(tmp_path, "pr", {"number": 3, "pull_request": {"base": {"sha": base}}})
    run = run_action(work, "files=links/", event="pull_request", **pr)
    assert run.code == 1 and run.outputs["changed-since"] == ""
    assert (
        f"::notice::full run: every file is read (linksync.yaml changed since the pull "
        f"request's base, {base[:12]}: its settings apply to every link)" in run.stdout
    )
    assert "21 rows: 20 valid, 1 invalid" in run.summary
