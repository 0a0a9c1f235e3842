"""The command's process asks glibc for one heap, a fixed threshold for blocks of
pages of their own and a padded top, unless the user chose otherwise."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ASK = (
    "from linksync.cli import heap; "
    "print(heap.one_heap(), heap.fixed_mmap_threshold(), heap.padded_top())"
)
GLIBC = sys.platform.startswith("linux") and os.confstr("CS_GNU_LIBC_VERSION") is not None


def _run(**env: str) -> str:
    mine = ("MALLOC_ARENA_MAX", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_")
    clean = {k: v for k, v in os.environ.items() if k not in mine}
    done = subprocess.run(
        [sys.executable, "-c", ASK],
        env={**clean, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@pytest.mark.skipif(not GLIBC, reason="glibc's heaps only")
def test_one_heap_on_glibc() -> None:
    assert _run() == "True True True"


def test_what_the_user_set_wins() -> None:
    assert (
        _run(MALLOC_ARENA_MAX="4", MALLOC_MMAP_THRESHOLD_="65536", MALLOC_TOP_PAD_="0")
        == "False False False"
    )


def test_the_command_still_runs_with_one_heap() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "linksync", "--version"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and done.stdout.strip()


#: Buffers made and dropped over and over, as a listing makes its pages': the system's
#: page faults they cost, in a process set up as the command sets itself up (or not).
CHURN = """
import resource, sys
from linksync.cli import heap
heap.fixed_mmap_threshold()
if sys.argv[1] == "padded":
    heap.padded_top()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(500):
    blocks = [bytes(60_000) for _ in range(8)]
    del blocks
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _faults(how: str) -> int:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    done = subprocess.run(
        [sys.executable, "-c", CHURN, how], env=clean, capture_output=True, text=True, check=True
    )
    return int(done.stdout)


@pytest.mark.skipif(not GLIBC, reason="glibc's heaps only")
def test_a_padded_top_does_not_ask_the_system_again_for_pages_it_just_dropped() -> None:
    # Without the pad each round hands the heap's top back and faults it in again
    # (tens of thousands of faults); with it the pages stay in hand.
    plain, padded = _faults("plain"), _faults("padded")
    assert plain > 10_000
    assert padded < plain // 20


#: A run's result handed to ``heap.kept`` in a process set up as the command sets itself
#: up (or not): whether it is freed, object by object, before the process ends.
KEEP = """
import sys
from pathlib import Path
from linksync.cli import heap

class Result:
    def __del__(self) -> None:
        print("freed")

if sys.argv[1] == "own":
    heap.own_process()
result = Result()
heap.kept(result)
print("done")
"""


def _kept(how: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", KEEP, how], capture_output=True, text=True, check=True
    )
    return done.stdout.split()


def test_the_commands_result_is_not_freed_as_it_ends() -> None:
    # The command's own process ends without freeing the plan link by link; a process
    # of a caller's (tests through click's runner) frees it as ever.
    assert _kept("own") == ["done"]
    assert _kept("caller") == ["done", "freed"]


def test_linksync_plan_still_prints_its_plan_and_exit_code(tmp_path: Path) -> None:
    src = tmp_path / "links.csv"
    src.write_text("slug,url\nspring,https://example.com/spring\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "linksync", "plan", str(src), "--detailed-exitcode"],
        cwd=tmp_path,
        env={**os.environ, "LINKSYNC_SANDBOX": "1", "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 3, done.stderr
    assert done.stdout.startswith("Plan: 1 create\n"), done.stdout


def test_files_a_kept_run_wrote_are_whole_when_the_process_ends(tmp_path: Path) -> None:
    """The kept result is never freed, so nothing it holds may still owe a file bytes:
    the saved plan, the report and the journal are whole once the process is gone."""
    src = tmp_path / "links.csv"
    rows = "".join(f"promo-{i},https://example.com/{i}\n" for i in range(300))
    src.write_text("slug,url\n" + rows, encoding="utf-8")
    env = {**os.environ, "LINKSYNC_SANDBOX": "1", "NO_COLOR": "1"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "linksync", *args],
            cwd=tmp_path, env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip

    planned = run("plan", str(src), "--out", "plan.json")
    assert planned.returncode == 0, planned.stderr
    assert len(json.loads((tmp_path / "plan.json").read_text())["changes"]) == 300
    applied = run("apply", str(src), "--yes", "--no-progress", "--report", "report.csv")
    assert applied.returncode == 0, applied.stderr
    with (tmp_path / "report.csv").open(newline="", encoding="utf-8-sig") as fh:
        report = list(csv.DictReader(fh))
    assert len(report) == 300
    assert {(r["action"], r["status"]) for r in report} == {("create", "ok")}
    (journal,) = (tmp_path / ".linksync" / "runs").glob("*.jsonl")
    lines = journal.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[-1])["event"] == "end"
