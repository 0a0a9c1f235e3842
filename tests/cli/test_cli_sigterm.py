"""SIGTERM, what a scheduler sends to stop a job (Kubernetes, systemd, a CI runner's
cancel), stops an apply as Ctrl-C does: the requests in flight finish, the rows not
sent are NOT_ATTEMPTED in the report, the journal ends with ``interrupted``, the
summary says what was written, and the exit code is 130. It used to end the process
at once: exit 143, no report, no summary, a journal without its end."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROWS = 60


def _journal_results(runs: Path) -> list[dict[str, object]]:
    records = []
    for path in runs.glob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                records.append(json.loads(line))
    return records


def _sigterm_mid_apply(
    tmp_path: Path, args: list[str], sigint: signal.Handlers
) -> tuple[int, str, str, Path]:
    """An apply of ROWS rows against a slow sandbox, started with SIGINT at ``sigint``
    (its default, as cron, systemd and Kubernetes start a job; or ignored, as a script's
    background job has it: the tests themselves may run so, and the child would inherit
    it), sent SIGTERM once a row is written: (exit code, stdout, stderr, runs folder)."""
    (tmp_path / "sandbox.yaml").write_text("faults:\n  latency_ms: [120, 160]\n", encoding="utf-8")
    (tmp_path / "linksync.yaml").write_text(
        "sandbox: true\nsandbox_db: sandbox.db\nsandbox_config: sandbox.yaml\n",
        encoding="utf-8",
    )
    lines = ["slug,url", *(f"s{i},https://example.com/{i}" for i in range(ROWS))]
    (tmp_path / "links.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LINKSYNC_")}
    env["LINKSYNC_STATE_DIR"] = str(tmp_path / "state")
    command = [sys.executable, "-m", "linksync", "apply", "links.csv", "--yes", *args]
    proc = subprocess.Popen(
        command, cwd=tmp_path, env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, sigint),
    )  # fmt: skip
    runs = tmp_path / ".linksync" / "runs"
    deadline = time.monotonic() + 60
    while not any(r.get("status") == "ok" for r in _journal_results(runs)):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no row written within 60 s"
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    out, errors = proc.communicate(timeout=60)
    return proc.returncode, out, errors, runs


def test_sigterm_mid_apply_ends_as_ctrl_c(tmp_path: Path) -> None:
    args = ["--concurrency", "1", "--no-progress", "--report", "report.csv"]
    code, out, errors, runs = _sigterm_mid_apply(tmp_path, args, signal.SIG_DFL)

    assert code == 130, (out, errors)
    assert "Exit code 130: interrupted" in out
    assert "Stopped: the run was interrupted, after " in out
    records = _journal_results(runs)
    end = records[-1]
    assert end["event"] == "end" and end["interrupted"] is True
    written = sum(1 for r in records if r.get("status") == "ok")
    assert 0 < written < ROWS
    with (tmp_path / "report.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == ROWS
    assert sum(1 for r in rows if r["status"] == "ok") == written
    skipped = [r for r in rows if r["status"] == "skipped"]
    assert skipped and {r["error_constant"] for r in skipped} == {"NOT_ATTEMPTED"}


def test_sigterm_with_sigint_ignored_still_ends_the_json_log(tmp_path: Path) -> None:
    """A job started in the background of a script (SIGINT ignored) stops at once on
    SIGTERM, exit 130: its JSON log still ends with run_end (level error, exit code
    130, INTERRUPTED, what it wrote), not with run_start alone."""
    args = ["--concurrency", "1", "--log-format", "json"]
    code, _, errors, _ = _sigterm_mid_apply(tmp_path, args, signal.SIG_IGN)

    assert code == 130, errors
    events = [json.loads(line) for line in errors.splitlines()]
    ends = [e for e in events if e["event"] == "run_end"]
    assert len(ends) == 1, errors
    end = ends[0]
    assert (end["level"], end["exit_code"], end["error_constant"]) == ("error", 130, "INTERRUPTED")
    assert end["counts"]["created"] > 0
