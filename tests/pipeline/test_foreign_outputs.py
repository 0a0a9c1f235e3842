"""``--journal FILE`` / ``--lock FILE`` onto an existing file that is not linksync's: refused
before anything happens (exit 2, the file named), the file untouched (same bytes, same
inode, same modification time), nothing created in the workspace, no holder record
left beside it. linksync's own journals and locks still work as before."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from linksync.errors import LockError
from linksync.pipeline.lock import acquire_lock, holder_path
from support.cli_runs import Source, remote_links, run

pytestmark = pytest.mark.usefixtures("_umask")  # umask 022 for the files runs create

APPLY = ["apply", "links.csv", "--yes", "--no-progress"]
OLD = 1_600_000_000  # an mtime a run would visibly change


def _mine(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    os.utime(path, (OLD, OLD))
    return path


Case = Callable[[Path], tuple[list[str], Path, str]]


def _lock_onto_notes(w: Path) -> tuple[list[str], Path, str]:
    notes = _mine(w / "notes.txt", "meeting notes: do not lose\n")
    words = "--lock notes.txt exists and is not a linksync lock"
    return [*APPLY, "--lock", "notes.txt"], notes, words


def _lock_onto_a_json_file(w: Path) -> tuple[list[str], Path, str]:
    data = _mine(w / "state.lock", '{"pid": 1, "mine": true}\n')
    return [*APPLY, "--lock", "state.lock"], data, "not a linksync lock file (it holds 25 bytes"


def _lock_whose_holder_path_is_taken(w: Path) -> tuple[list[str], Path, str]:
    other = _mine(w / "run.lock.holder", "customer list\n")
    words = "run.lock.holder exists and is not a linksync lock"
    return [*APPLY, "--lock", "run.lock"], other, words


def _journal_with_blank_first_line(w: Path) -> tuple[list[str], Path, str]:
    data = _mine(w / "events.jsonl", '\n{"customer": 1}\n')
    return [*APPLY, "--journal", "events.jsonl"], data, "events.jsonl exists and is not a linksync"


def _journal_of_another_tool(w: Path) -> tuple[list[str], Path, str]:
    # "run" and "event" keys, but not a linksync record (no ts, an event of its own).
    line = json.dumps({"run": 7, "event": "deploy", "host": "ci"})
    data = _mine(w / "deploys.jsonl", line + "\n")
    return [*APPLY, "--journal", "deploys.jsonl"], data, "deploys.jsonl exists and is not a"


def _journal_of_whitespace(w: Path) -> tuple[list[str], Path, str]:
    data = _mine(w / "blank.jsonl", "   \n\n")
    return [*APPLY, "--journal", "blank.jsonl"], data, "blank.jsonl exists and is not a linksync"


CASES: list[Case] = [
    _lock_onto_notes,
    _lock_onto_a_json_file,
    _lock_whose_holder_path_is_taken,
    _journal_with_blank_first_line,
    _journal_of_another_tool,
    _journal_of_whitespace,
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__.lstrip("_"))
def test_an_unrelated_file_is_refused_and_left_untouched(
    workdir: Path, source: Source, case: Case
) -> None:
    args, victim, words = case(workdir)
    before = Source.of(victim)
    mtime = os.stat(victim).st_mtime_ns
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert words in result.output, result.output
    assert "nothing was done" in result.output.lower()
    assert before.untouched() and os.stat(victim).st_mtime_ns == mtime
    assert source.untouched()
    assert remote_links(workdir) == []
    if "--lock" in args:
        lock = workdir / args[args.index("--lock") + 1]
        if lock != victim:
            assert not lock.exists()
        if holder_path(lock) != victim:
            assert not holder_path(lock).exists()


def test_linksync_journal_and_lock_are_used_again(workdir: Path, source: Source) -> None:
    args = [*APPLY, "--journal", "run.jsonl", "--lock", "run.lock"]
    first = run(*args)
    assert first.exit_code == 0, first.output
    assert (workdir / "run.lock").stat().st_size == 0
    second = run(*args)
    assert second.exit_code == 0, second.output
    lines = (workdir / "run.jsonl").read_text(encoding="utf-8").splitlines()
    events = [json.loads(line)["event"] for line in lines]
    assert events.count("start") == 2 and events.count("end") == 2  # both runs gathered
    assert len(remote_links(workdir)) == 3
    # An empty file (what a lock file is) may be named as a new lock or journal.
    (workdir / "fresh.lock").touch()
    (workdir / "fresh.jsonl").touch()
    third = run(*APPLY, "--journal", "fresh.jsonl", "--lock", "fresh.lock")
    assert third.exit_code == 0, third.output
    assert '"event": "start"' in (workdir / "fresh.jsonl").read_text(encoding="utf-8")


def test_acquire_lock_refuses_a_file_of_the_user(tmp_path: Path) -> None:
    notes = _mine(tmp_path / "notes.txt", "keep me\n")
    foreign = r"notes\.txt exists and is not a linksync lock file"
    with pytest.raises(LockError, match=foreign), acquire_lock(notes):
        pass
    assert notes.read_text(encoding="utf-8") == "keep me\n"
    assert os.stat(notes).st_mtime == OLD
    assert not holder_path(notes).exists()
    record = _mine(tmp_path / "a.lock.holder", "[1, 2, 3]\n")
    with (
        pytest.raises(LockError, match="is not a linksync lock record"),
        acquire_lock(tmp_path / "a.lock"),
    ):
        pass
    assert record.read_text(encoding="utf-8") == "[1, 2, 3]\n"
