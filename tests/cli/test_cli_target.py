"""No silent sandbox, from the command line. Without a terminal (CliRunner, cron, CI) a
command that names no target stops with exit 2, "no target configured", naming the ways
to set one, and writes nothing; ``--sandbox``, ``LINKSYNC_SANDBOX=1`` and a profile's
``sandbox: true`` each ask for the built-in sandbox. On a terminal (a pseudo-terminal
here) the sandbox stays the default, with its banner."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from support.cli_runs import remote_links, run

BIN = Path(sys.executable).parent
WAYS = ("LINKSYNC_BASE_URL", "--base-url", "--profile", "--sandbox", "LINKSYNC_SANDBOX=1")
BANNER = "target: built-in sandbox (.linksync/sandbox.db)"


@pytest.fixture
def bare(workdir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``workdir`` without the sandbox asked for: nothing configured at all."""
    monkeypatch.delenv("LINKSYNC_SANDBOX")
    (workdir / "links.csv").write_text("slug,url\nfirst,https://example.com/1\n", "utf-8")
    return workdir


@pytest.mark.parametrize(
    "args",
    [
        ["apply", "links.csv", "--yes", "--no-progress"],
        ["plan", "links.csv"],
        ["links", "list"],
        ["org"],
    ],
    ids=["apply", "plan", "links-list", "org"],
)
def test_without_a_terminal_nothing_configured_exits_2_naming_the_ways(
    bare: Path, args: list[str]
) -> None:
    result = run(*args)
    assert result.exit_code == 2, result.output
    said = " ".join(result.stderr.split())
    assert "Error: no target configured" in said
    assert all(way in said for way in WAYS), said
    assert "never picks the sandbox by itself" in said
    assert "target: built-in sandbox" not in said
    assert not (bare / ".linksync").exists()  # no sandbox file, no journal: nothing done


@pytest.mark.parametrize("how", ["flag", "variable", "profile"])
def test_the_sandbox_asked_for_each_way(
    bare: Path, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["apply", "links.csv", "--yes", "--no-progress"]
    if how == "flag":
        args.append("--sandbox")
    elif how == "variable":
        monkeypatch.setenv("LINKSYNC_SANDBOX", "1")
    else:
        (bare / "linksync.yaml").write_text("sandbox: true\n", encoding="utf-8")
    result = run(*args)
    assert result.exit_code == 0, result.output
    assert BANNER in result.stderr
    assert [link.slug for link in remote_links(bare)] == ["first"]


def test_sandbox_and_base_url_together_are_refused(bare: Path) -> None:
    result = run("plan", "links.csv", "--sandbox", "--base-url", "https://api.example.com")
    assert result.exit_code == 2 and "--base-url and --sandbox name two targets" in result.stderr


def test_with_all_a_target_without_base_url_needs_the_sandbox_asked(bare: Path) -> None:
    (bare / "linksync.yaml").write_text(
        "targets:\n  box:\n    sandbox_db: box.db\n    files: [links.csv]\n", encoding="utf-8"
    )
    refused = run("apply", "--all", "--yes")
    assert refused.exit_code == 2, refused.output
    assert "target box: no base_url" in " ".join(refused.output.split())
    assert not (bare / "box.db").exists()
    done = run("apply", "--all", "--yes", "--sandbox")
    assert done.exit_code == 0, done.output
    assert (bare / "box.db").is_file()


def _in_a_terminal(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    """Run ``linksync ARGS`` with a pseudo-terminal as stdin, stdout and stderr, as a
    person at a laptop does; its exit code and everything it wrote."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [str(BIN / "linksync"), *args],
        cwd=cwd, env=env, stdin=follower, stdout=follower, stderr=follower, close_fds=True,
    )  # fmt: skip
    os.close(follower)
    out = b""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 1.0)
        if not ready:
            if proc.poll() is not None:
                break
            continue
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # EIO: the terminal's last writer has gone
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    return proc.wait(timeout=30), out.decode("utf-8", "replace")


def test_on_a_terminal_the_sandbox_stays_the_default_with_its_banner(bare: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LINKSYNC_")}
    env["LINKSYNC_STATE_DIR"] = os.environ["LINKSYNC_STATE_DIR"]
    env["NO_COLOR"] = "1"
    code, said = _in_a_terminal(["apply", "links.csv", "--yes", "--no-progress"], bare, env)
    assert code == 0, said
    assert BANNER in said
    assert [link.slug for link in remote_links(bare)] == ["first"]
    # The same command as cron starts it (no terminal): refused, nothing more written.
    (bare / "links.csv").write_text("slug,url\nsecond,https://example.com/2\n", "utf-8")
    cron = subprocess.run(
        [str(BIN / "linksync"), "apply", "links.csv", "--yes", "--no-progress"],
        cwd=bare, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert cron.returncode == 2, cron.stderr
    assert "no target configured" in cron.stderr
    assert [link.slug for link in remote_links(bare)] == ["first"]


def test_the_page_keeps_the_sandbox_as_its_default_without_a_terminal(bare: Path) -> None:
    """``linksync ui`` is a page a person opens: started from a launcher (no terminal),
    it still talks to the built-in sandbox when nothing is configured, and says so."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LINKSYNC_")}
    env["LINKSYNC_STATE_DIR"] = os.environ["LINKSYNC_STATE_DIR"]
    proc = subprocess.Popen(
        [str(BIN / "linksync"), "ui", "--no-browser", "--port", "0"],
        cwd=bare, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None and proc.stderr is not None
        first = proc.stdout.readline()
        assert first.startswith("linksync page: http://127.0.0.1:"), first
    finally:
        proc.terminate()
        _, errors = proc.communicate(timeout=30)
    assert BANNER in errors
