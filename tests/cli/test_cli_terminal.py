"""At a terminal, ``linksync apply`` and ``linksync undo`` show the plan and ask before
they send anything: an answer of "n" (or just Enter: the default is no) sends nothing,
says so and exits 0; "y" sends. Each command runs in a fresh interpreter whose standard
input is a pseudo-terminal (``pty``), as a user's shell gives it; the workspace is read
back with a plan of the same sheet."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

SHEET = "slug,url\nterm-a,https://example.com/a\nterm-b,https://example.com/b\n"
MOVED = "slug,url\nterm-a,https://example.com/a-moved\nterm-b,https://example.com/b\n"


def env_for(folder: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LINKSYNC_")}
    env["LINKSYNC_STATE_DIR"] = str(folder / "state")
    env["NO_COLOR"] = "1"
    return env


def linksync(
    folder: Path, *args: str, answer: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``linksync ARGS --sandbox`` in ``folder``; with ``answer``, its standard input is a
    terminal on which the user types ``answer`` (else it is no terminal)."""
    argv = [sys.executable, "-m", "linksync", *args, "--sandbox"]
    if answer is None:
        return subprocess.run(
            argv, cwd=folder, env=env_for(folder), capture_output=True, text=True,
            stdin=subprocess.DEVNULL, timeout=120,
        )  # fmt: skip
    primary, terminal = pty.openpty()
    try:
        os.write(primary, answer.encode())  # typed ahead: the terminal holds it for the read
        proc = subprocess.run(
            argv, cwd=folder, env=env_for(folder), capture_output=True, text=True,
            stdin=terminal, timeout=120,
        )  # fmt: skip
    finally:
        os.close(terminal)
        os.close(primary)
    return proc


def plan_of(folder: Path, sheet: str) -> str:
    (folder / "check.csv").write_text(sheet, encoding="utf-8")
    proc = linksync(folder, "plan", "check.csv")
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def run_id(text: str) -> str:
    found = re.search(r"linksync undo (\S+)`", text)
    assert found is not None, text
    return found.group(1)


def test_apply_at_a_terminal_sends_nothing_when_declined_and_sends_when_accepted(
    tmp_path: Path,
) -> None:
    (tmp_path / "links.csv").write_text(SHEET, encoding="utf-8")

    declined = linksync(tmp_path, "apply", "links.csv", "--no-progress", answer="n\n")
    assert declined.returncode == 0, declined.stderr
    assert "Apply 2 changes? [y/N]" in declined.stderr
    assert "Nothing applied." in declined.stderr
    assert "Plan: 2 create" in plan_of(tmp_path, SHEET)  # nothing was created

    by_default = linksync(tmp_path, "apply", "links.csv", "--no-progress", answer="\n")
    assert by_default.returncode == 0 and "Nothing applied." in by_default.stderr
    assert "Plan: 2 create" in plan_of(tmp_path, SHEET)

    accepted = linksync(tmp_path, "apply", "links.csv", "--no-progress", answer="y\n")
    assert accepted.returncode == 0, accepted.stderr
    assert "Nothing applied." not in accepted.stderr
    assert "Plan: 2 unchanged" in plan_of(tmp_path, SHEET)


def test_undo_at_a_terminal_sends_nothing_when_declined(tmp_path: Path) -> None:
    (tmp_path / "links.csv").write_text(SHEET, encoding="utf-8")
    created = linksync(tmp_path, "apply", "links.csv", "--yes", "--no-progress")
    assert created.returncode == 0, created.stderr
    (tmp_path / "links.csv").write_text(MOVED, encoding="utf-8")
    moved = linksync(tmp_path, "apply", "links.csv", "--yes", "--no-progress")
    assert moved.returncode == 0, moved.stderr

    declined = linksync(
        tmp_path, "undo", run_id(moved.stdout + moved.stderr), "--no-progress", answer="n\n"
    )
    assert declined.returncode == 0, declined.stderr
    assert "Undo: send 1 changes? [y/N]" in declined.stderr
    assert "Nothing undone." in declined.stderr
    assert "Plan: 2 unchanged" in plan_of(tmp_path, MOVED)  # a-moved is still there

    accepted = linksync(
        tmp_path, "undo", run_id(moved.stdout + moved.stderr), "--no-progress", answer="y\n"
    )
    assert accepted.returncode == 0, accepted.stderr
    assert "Nothing undone." not in accepted.stderr
    assert "Plan: 2 unchanged" in plan_of(tmp_path, SHEET)  # back to the first URL
