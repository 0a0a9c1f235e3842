"""``.linksync/`` stays out of git: in a real git repository, ``linksync apply`` on the
built-in sandbox (its database, its journal), the page's runs and a plan saved under
``.linksync/`` leave ``git status`` as clean as it was, as pytest's cache does."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from linksync.cli import cli
from linksync.safe.state_folder import GITIGNORE, make_folder
from linksync.ui import RunOutcome, RunRegistry

LINKS = """\
links:
  - slug: spring-sale
    url: https://shop.example.com/spring
  - slug: autumn-sale
    url: https://shop.example.com/autumn
"""


def git(repo: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    done = subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


@pytest.fixture
def repo(workdir: Path) -> Path:
    """A git repository holding a links file, committed: ``git status`` is empty."""
    git(workdir, "init", "-q")
    (workdir / "links.yaml").write_text(LINKS, encoding="utf-8")
    git(workdir, "add", "links.yaml")
    git(workdir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "links")
    assert git(workdir, "status", "--porcelain") == ""
    return workdir


def test_apply_on_the_sandbox_leaves_git_status_clean(repo: Path) -> None:
    result = CliRunner().invoke(cli, ["apply", "links.yaml", "--yes"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    state = repo / ".linksync"
    assert (state / "sandbox.db").is_file()
    assert list((state / "runs").glob("*.jsonl")), "the run's journal is under .linksync/runs"
    assert (state / ".gitignore").read_text(encoding="utf-8") == GITIGNORE
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""
    # ...while a file of the user's own beside it is listed as usual
    (repo / "notes.txt").write_text("mine\n", encoding="utf-8")
    assert git(repo, "status", "--porcelain") == "?? notes.txt\n"


def test_the_pages_runs_and_a_plan_saved_there_stay_out_of_git(repo: Path) -> None:
    RunRegistry(repo / ".linksync" / "ui").start(_Done()).ended.wait(5)
    result = CliRunner().invoke(
        cli, ["plan", "links.yaml", "--out", ".linksync/plans/next.json"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert (repo / ".linksync" / "plans" / "next.json").is_file()
    assert list((repo / ".linksync" / "ui").glob("*/run.json"))
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""


def test_a_gitignore_already_there_is_left_as_it_is(tmp_path: Path) -> None:
    state = tmp_path / ".linksync"
    state.mkdir()
    (state / ".gitignore").write_text("*.db\n", encoding="utf-8")
    make_folder(state / "runs")
    assert (state / ".gitignore").read_text(encoding="utf-8") == "*.db\n"


def test_a_folder_made_by_an_older_linksync_gets_its_gitignore(tmp_path: Path) -> None:
    (tmp_path / "project" / ".linksync" / "runs").mkdir(parents=True)
    make_folder(tmp_path / "project" / ".linksync" / "runs")
    assert (tmp_path / "project" / ".linksync" / ".gitignore").read_text() == GITIGNORE


def test_other_folders_get_no_gitignore(tmp_path: Path) -> None:
    make_folder(tmp_path / "state" / "runs")
    assert not (tmp_path / "state" / ".gitignore").exists()
    assert not (tmp_path / "state" / "runs" / ".gitignore").exists()


class _Done:
    """A page run that writes one file and ends."""

    kind = "apply"

    def run(self, feed: object, cancel: object, folder: Path) -> RunOutcome:
        (folder / "results.csv").write_text("rows\n0\n", encoding="utf-8")
        return RunOutcome("0 rows applied", 0, ("results.csv",))
