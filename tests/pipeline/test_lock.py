"""The run lock: one holder at a time, across processes, with a message naming it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from linksync.errors import LockError
from linksync.pipeline.lock import LockHolder, acquire_lock, holder_path, read_holder

HOLD_SCRIPT = textwrap.dedent(
    """
    import sys
    from linksync.pipeline.lock import acquire_lock
    with acquire_lock(sys.argv[1], target="child-target"):
        print("locked", flush=True)
        sys.stdin.readline()
    print("released", flush=True)
    """
)

CONTEND_SCRIPT = textwrap.dedent(
    """
    import os, sys, time
    from linksync.errors import LockError
    from linksync.pipeline.lock import acquire_lock
    lock, log, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    held = 0
    for _ in range(rounds):
        try:
            with acquire_lock(lock):
                with open(log, "a") as f:
                    f.write(f"start {os.getpid()}\\n"); f.flush()
                time.sleep(0.002)
                with open(log, "a") as f:
                    f.write(f"end {os.getpid()}\\n"); f.flush()
                held += 1
        except LockError:
            time.sleep(0.001)
    print(held)
    """
)


def _spawn(script: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def _take(lock: Path) -> None:
    with acquire_lock(lock):
        pytest.fail(f"acquired {lock} while another holder has it")


def test_lock_writes_holder_and_is_reentrant_after_release(tmp_path: Path) -> None:
    lock = tmp_path / "sub" / "lock"
    with acquire_lock(lock, target="sandbox") as holder:
        assert holder.pid == os.getpid()
        recorded = read_holder(lock)
        assert recorded == holder
        assert json.loads(holder_path(lock).read_text())["target"] == "sandbox"
    # The file stays (never unlinked) and the lock can be taken again.
    with acquire_lock(lock):
        pass


def test_second_acquire_in_same_process_fails(tmp_path: Path) -> None:
    lock = tmp_path / "lock"
    with acquire_lock(lock, target="prod"), pytest.raises(LockError) as info:
        _take(lock)
    message = str(info.value)
    assert str(lock) in message
    assert f"pid {os.getpid()}" in message
    assert "(target prod)" in message


def test_other_process_holding_the_lock_blocks_us(tmp_path: Path) -> None:
    lock = tmp_path / "lock"
    with _spawn(HOLD_SCRIPT, str(lock)) as child:
        assert child.stdout is not None and child.stdin is not None
        assert child.stdout.readline().strip() == "locked"
        with pytest.raises(LockError) as info, acquire_lock(lock):
            pytest.fail("acquired a lock another process holds")
        assert f"pid {child.pid}" in str(info.value)
        assert "child-target" in str(info.value)
        child.stdin.write("\n")
        child.stdin.flush()
        assert child.stdout.readline().strip() == "released"
        child.wait(timeout=10)
    with acquire_lock(lock) as holder:
        assert holder.pid == os.getpid()


def test_killed_holder_leaves_no_stale_lock(tmp_path: Path) -> None:
    lock = tmp_path / "lock"
    with _spawn(HOLD_SCRIPT, str(lock)) as child:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "locked"
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
    # The file still names the dead holder, but the OS released the flock.
    dead = read_holder(lock)
    assert dead is not None and dead.pid == child.pid
    with acquire_lock(lock) as holder:
        assert holder.pid == os.getpid()


def test_contending_processes_never_overlap(tmp_path: Path) -> None:
    lock, log = tmp_path / "lock", tmp_path / "log"
    procs = [_spawn(CONTEND_SCRIPT, str(lock), str(log), "40") for _ in range(4)]
    held = []
    for p in procs:
        with p:
            out, _ = p.communicate(timeout=60)
        assert p.returncode == 0
        held.append(int(out.strip()))
    lines = log.read_text().splitlines()
    assert len(lines) == 2 * sum(held)
    assert sum(held) >= 1
    # Every critical section is "start P" immediately followed by "end P".
    for start, end in zip(lines[::2], lines[1::2], strict=True):
        kind_s, pid_s = start.split()
        kind_e, pid_e = end.split()
        assert (kind_s, kind_e) == ("start", "end")
        assert pid_s == pid_e


def test_unreadable_lock_content_still_gives_clear_message(tmp_path: Path) -> None:
    lock = tmp_path / "lock"
    with acquire_lock(lock):
        holder_path(lock).write_text("garbage")
        with pytest.raises(LockError, match="a run that is just starting"):
            _take(lock)


def test_lock_in_unwritable_place_is_a_lock_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(LockError, match="cannot create the lock folder"):
        _take(blocker / "lock")


def test_holder_parse_rejects_foreign_content() -> None:
    assert LockHolder.parse("") is None
    assert LockHolder.parse("[1, 2]") is None
    assert LockHolder.parse('{"pid": "x", "host": "h", "started_at": "t"}') is None
    parsed = LockHolder.parse('{"pid": 1, "host": "h", "started_at": "t", "target": null}')
    assert parsed == LockHolder(1, "h", "t", None)
    assert parsed.describe() == "pid 1 on host h since t"


def _json_events(stderr: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in stderr.splitlines()]


def test_run_refused_by_a_held_lock_ends_its_json_log_with_run_end(workdir: Path) -> None:
    """A scheduled apply that finds the lock held exits 2 and its JSON log says so in a
    run_end line (exit code, constant, nothing written), after its run_start: a log
    collector counting started runs without an end saw a run that never ended."""
    from click.testing import CliRunner

    from linksync.cli import cli

    (workdir / "links.csv").write_text("url,slug\nhttps://example.com/a,a1\n", encoding="utf-8")
    lock = workdir / "run.lock"
    with acquire_lock(lock, target="the nightly job"):
        args = ["apply", "links.csv", "--yes", "--log-format", "json", "--lock", str(lock)]
        result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    events = _json_events(result.stderr)
    names = [e["event"] for e in events]
    assert "run_start" in names and "run_end" in names
    assert names.index("run_start") < names.index("run_end")
    end = events[names.index("run_end")]
    assert end["exit_code"] == 2 and end["error_constant"] == "LOCK_HELD"
    assert end["counts"] == {} and end["level"] == "error"
    assert str(end["message"]).startswith("run ended: stopped by LOCK_HELD (nothing written)")
    assert events[-1]["event"] == "error" and "holds the lock" in str(events[-1]["message"])


def test_run_stopped_by_a_missing_file_ends_with_run_end_exit_2(workdir: Path) -> None:
    """A file that is not there: run_start, then run_end with exit code 2 and the
    constant the command exits with, then the error line."""
    from click.testing import CliRunner

    from linksync.cli import cli

    result = CliRunner().invoke(cli, ["apply", "gone.csv", "--yes", "--log-format", "json"])
    assert result.exit_code == 2, result.output
    ends = [e for e in _json_events(result.stderr) if e["event"] == "run_end"]
    assert [(e["exit_code"], e["error_constant"]) for e in ends] == [(2, "FILE_ERROR")]
