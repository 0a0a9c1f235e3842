"""Temporary files of a killed run: the next run on the same outputs removes those it
can prove were left by a dead run of this host (the output's own name pattern, the pid
no longer alive), leaves every other file alone, and says which it removed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from linksync.safe.leftovers import HOST_TAG, Leftover, describe_removed, find_leftovers
from support.cli_runs import Source, run

pytestmark = pytest.mark.usefixtures("_umask")  # umask 022 for the files runs create

APPLY = ["apply", "links.csv", "--yes", "--no-progress"]


@pytest.fixture(scope="module")
def dead_pid() -> int:
    """The pid of a process that has finished (and been waited for)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _touch(path: Path, text: str = "half a report") -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_a_run_removes_what_dead_runs_left_beside_its_report(
    workdir: Path, source: Source, dead_pid: int
) -> None:
    other_host = "000000" if HOST_TAG != "000000" else "111111"
    mine = _touch(workdir / f".report.{dead_pid}-0badc0de-h{HOST_TAG}.tmp.csv")
    legacy = _touch(workdir / f".report.{dead_pid}-12345678.tmp.csv")  # an earlier version's
    me = os.getpid()
    kept = {
        "live pid (this test)": _touch(workdir / f".report.{me}-aaaaaaaa-h{HOST_TAG}.tmp.csv"),
        "another host": _touch(workdir / f".report.{dead_pid}-bbbbbbbb-h{other_host}.tmp.csv"),
        "another output": _touch(workdir / f".other.{dead_pid}-cccccccc-h{HOST_TAG}.tmp.csv"),
        "another extension": _touch(workdir / f".report.{dead_pid}-dddddddd-h{HOST_TAG}.tmp.xlsx"),
        "not the pattern": _touch(workdir / f".report.{dead_pid}-eeee.tmp.csv"),
        "user file": _touch(workdir / "report.tmp.csv"),
    }
    link = workdir / f".report.{dead_pid}-ffffffff-h{HOST_TAG}.tmp.csv"
    link.symlink_to(workdir / "report.tmp.csv")
    folder = workdir / f".report.{dead_pid}-99999999-h{HOST_TAG}.tmp.csv.d"
    folder.mkdir()

    result = run(*APPLY, "--report", "report.csv")
    assert result.exit_code == 0, result.output
    line = next(x for x in result.output.splitlines() if "temporary files" in x)
    assert f"removed 2 temporary files left by an interrupted run (pid {dead_pid}):" in line
    assert mine.name in line and legacy.name in line
    assert not mine.exists() and not legacy.exists()
    for why, path in kept.items():
        assert path.read_text(encoding="utf-8") == "half a report", why
    assert link.is_symlink() and folder.is_dir()
    assert (workdir / "report.csv").is_file()
    assert source.untouched()
    # Nothing left to remove: the next run says nothing about it.
    again = run(*APPLY, "--report", "report.csv")
    assert again.exit_code == 0 and "temporary file" not in again.output


def test_the_temporary_file_of_a_killed_writer_is_removed(workdir: Path, source: Source) -> None:
    """A real writer (``AtomicFile``, as every report uses) killed with SIGKILL mid-write."""
    writer = textwrap.dedent(
        """
        import time
        from linksync.safe.outputs import AtomicFile
        out = AtomicFile("r.json")
        out.file.write('{"half": ')
        out.file.flush()
        print(out.tmp.name, flush=True)
        time.sleep(60)
        """
    )
    child = subprocess.Popen(
        [sys.executable, "-c", writer], cwd=workdir, stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    name = child.stdout.readline().strip()
    assert (workdir / name).is_file() and name.startswith(f".r.{child.pid}-")
    assert find_leftovers([workdir / "r.json"]) == []  # alive: not removable
    child.send_signal(signal.SIGKILL)
    child.wait()
    child.stdout.close()
    assert find_leftovers([workdir / "r.json"]) == [
        Leftover(workdir / name, workdir / "r.json", child.pid)
    ]

    result = run(*APPLY, "--report", "r.json")
    assert result.exit_code == 0, result.output
    assert f"(pid {child.pid}): {workdir / name}" in result.output
    assert not (workdir / name).exists()
    assert source.untouched()


def test_plan_out_clears_its_own_leftovers(workdir: Path, source: Source, dead_pid: int) -> None:
    left = _touch(workdir / f".plan.{dead_pid}-01234567-h{HOST_TAG}.tmp.json")
    result = run("plan", "links.csv", "--out", "plan.json")
    assert result.exit_code == 0, result.output
    assert f"removed 1 temporary file left by an interrupted run (pid {dead_pid})" in result.output
    assert not left.exists() and (workdir / "plan.json").is_file()


def test_a_refused_run_removes_nothing(workdir: Path, source: Source, dead_pid: int) -> None:
    left = _touch(workdir / f".report.{dead_pid}-01234567-h{HOST_TAG}.tmp.csv")
    result = run(*APPLY, "--report", "report.csv", "--report", "links.csv")
    assert result.exit_code == 2, result.output
    assert left.is_file()


def test_describe_names_every_pid() -> None:
    items = [
        Leftover(Path("/w/.r.7-00000000.tmp.csv"), Path("/w/r.csv"), 7),
        Leftover(Path("/w/.s.9-00000000.tmp.csv"), Path("/w/s.csv"), 9),
    ]
    assert describe_removed(items) == (
        "removed 2 temporary files left by 2 interrupted runs (pids 7, 9): "
        "/w/.r.7-00000000.tmp.csv, /w/.s.9-00000000.tmp.csv"
    )


def test_export_clears_the_leftovers_of_its_files(tmp_path: Path, dead_pid: int) -> None:
    from linksync.export import write_export
    from linksync.model import RemoteLink

    left = _touch(tmp_path / f".links.{dead_pid}-01234567-h{HOST_TAG}.tmp.yaml")
    other = _touch(tmp_path / f".links.{dead_pid}-01234567-h{HOST_TAG}.tmp.csv")
    link = RemoteLink("lnk.test", "spring", "https://example.com/spring")
    info = write_export([link], tmp_path / "links.yaml")
    assert info.warnings[0].startswith(
        f"removed 1 temporary file left by an interrupted run (pid {dead_pid})"
    )
    assert not left.exists() and other.is_file()
    assert (tmp_path / "links.yaml").is_file()
