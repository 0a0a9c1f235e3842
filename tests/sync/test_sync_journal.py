"""The run journal as a killed run leaves it: every line written is whole in the file."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

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
