"""The run journal as a killed run leaves it: every line written is whole in the file."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from linksync.sync.journal import Journal, iter_journal_lines, parse_record

_KILLED_RUN = """
import os, sys
from linksync.sync.journal import Journal
jr = Journal(sys.argv[1], "20260101T000000Z-abcdef")
jr.write("start", target="lnk.test", mode="apply")
jr.write("request", op="POST /links", slug="caf\\u00e9", status=201)
os._exit(9)  # killed: no close, no flush at exit
"""


def test_a_killed_run_leaves_every_line_it_wrote_whole(tmp_path: Path) -> None:
    path = tmp_path / "runs" / "run.jsonl"
    path.parent.mkdir()
    with Journal(path, "earlier") as earlier:
        earlier.write("start", target="lnk.test", mode="apply")
    done = subprocess.run([sys.executable, "-c", _KILLED_RUN, str(path)], check=False)
    assert done.returncode == 9
    lines = list(iter_journal_lines(path))
    assert len(lines) == 3  # the earlier run's line kept, both new lines whole
    records = [parse_record(line) for line in lines]
    earlier_start, start, request = records
    assert earlier_start is not None and earlier_start["run"] == "earlier"
    assert start is not None and request is not None
    assert start["run"] == request["run"] == "20260101T000000Z-abcdef"
    assert (start["event"], start["mode"], request["slug"]) == ("start", "apply", "café")
    assert "café" in path.read_text(encoding="utf-8")  # text as written, not escaped
    for record in (start, request):
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", record["ts"])
    assert lines[1] == json.dumps(start, sort_keys=True, ensure_ascii=False) + "\n"


def test_each_record_is_written_as_json_dumps_writes_it(tmp_path: Path) -> None:
    # ``linksync undo`` and scripts read these lines: the bytes stay those of
    # json.dumps(sort_keys=True, ensure_ascii=False), whatever the values hold.
    after = {
        "url": 'https://example.com/caf\u00e9?q=\u2603&x="y"\\z',
        "description": "line\nbreak\ttab \u2028 \U0001f600 \x00",
        "tags": ["\u00e9t\u00e9", "summer"],
        "apple": None,
        "google": None,
        "expiresAt": None,
        "hasPassword": False,
        "updatedAt": "2026-01-02T03:04:05.678Z",
    }
    records = [
        ("start", {"format": 2, "target": "lnk.test", "counts": {"create": 1, "update": 0}}),
        (
            "request",
            {"op": "POST /links", "slug": "caf\u00e9", "row": 7, "sheet": None, "status": 201},
        ),
        ("result", {"slug": "caf\u00e9", "before": None, "after": after, "attempts": 1}),
        ("end", {"duration_s": 0.1 + 0.2, "ratio": 1e16, "small": 1.5e-7, "neg": -0.0}),
    ]
    path = tmp_path / "run.jsonl"
    with Journal(path, "20260101T000000Z-abcdef") as journal:
        for event, fields in records:
            journal.write(event, **fields)
    lines = list(iter_journal_lines(path))
    assert len(lines) == len(records)
    for line, (event, fields) in zip(lines, records, strict=True):
        ts = json.loads(line)["ts"]
        record = {"ts": ts, "run": "20260101T000000Z-abcdef", "event": event, **fields}
        assert line == json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n"


FULL_DISK_SCRIPT = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)
from linksync.cli import cli
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
cli(sys.argv[2:])
"""


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_a_journal_that_cannot_grow_is_named_in_the_error(workdir: Path) -> None:
    """A journal that cannot take one more line (a full disk; here a file-size limit the
    journal has reached) stops the apply before its first write, and the error names
    the journal: before, it read 'cannot use: File too large', naming no file."""
    (workdir / "links.csv").write_text("url,slug\nhttps://example.com/a,a1\n", encoding="utf-8")
    journal = workdir / "nightly.jsonl"
    first = '{"ts": "2026-01-01T00:00:00Z", "run": "old", "event": "start"}\n'
    limit = 1 << 20  # far above the sandbox's database, reached by the journal
    journal.write_text(first + "#" * (limit - len(first) - 1) + "\n", encoding="utf-8")
    args = ["apply", "links.csv", "--yes", "--journal", str(journal), "--sandbox"]
    done = subprocess.run(
        [sys.executable, "-c", FULL_DISK_SCRIPT, str(limit), *args],
        cwd=workdir, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert f"{journal}: the journal: File too large" in done.stderr
    # Nothing was written: the link is still to create.
    plan = ["plan", "links.csv", "--sandbox", "--detailed-exitcode"]
    again = subprocess.run(
        [sys.executable, "-m", "linksync", *plan], cwd=workdir, capture_output=True, timeout=120
    )
    assert again.returncode == 3, again.stderr
