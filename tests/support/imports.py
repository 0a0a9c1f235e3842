"""What a CLI command loads: ``modules_after`` runs ``linksync ARGS`` in a fresh
interpreter (no LINKSYNC_* settings of the outside, no terminal) and returns the names
in its sys.modules at exit, with the finished process; ``startup_of`` also what its
main thread loaded before the first request."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

PROBE = """
import atexit, json, sys
path = sys.argv[1]
def report():
    with open(path, "w") as fh:
        json.dump(sorted(sys.modules), fh)
atexit.register(report)
sys.argv = ["linksync", *sys.argv[2:]]
from linksync.cli import main
main()
"""


def modules_after(
    folder: Path, *args: str, env: dict[str, str] | None = None
) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    out = folder / "modules.json"
    proc = _probe(PROBE, folder, out, args, env)
    return set(json.loads(out.read_text(encoding="utf-8"))), proc


def run_probe(
    probe: str,
    folder: Path,
    *args: str,
    env: dict[str, str] | None = None,
    drop: tuple[str, ...] = ("LINKSYNC_",),
) -> subprocess.CompletedProcess[str]:
    """``python -c PROBE ARGS`` in ``folder``, without the variables starting with
    ``drop`` (the test's own settings), with ``env`` on top, no colour, no stdin."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    base["NO_COLOR"] = "1"
    return subprocess.run(
        [sys.executable, "-c", probe, *args],
        cwd=folder,
        env={**base, **(env or {})},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _probe(
    probe: str, folder: Path, out: Path, args: tuple[str, ...], env: dict[str, str] | None
) -> subprocess.CompletedProcess[str]:
    return run_probe(probe, folder, str(out), *args, env=env)


#: ``linksync ARGS`` with an audit hook (``sys.addaudithook``, nothing patched) that
#: notes what the main thread imports before the process's first connection; at exit,
#: the modules loaded, then whether ``import httpx._main`` works in the same process.
STARTUP_PROBE = """
import atexit, json, sys, threading
path = sys.argv[1]
record = {"main_before_connect": [], "connected": False}
main_thread = threading.main_thread()
def hook(event, args):
    if event == "socket.connect":
        record["connected"] = True
    elif event == "import" and not record["connected"]:
        if threading.current_thread() is main_thread:
            record["main_before_connect"].append(args[0])
sys.addaudithook(hook)
def report():
    record["modules"] = sorted(sys.modules)
    try:
        import httpx._main
        record["httpx_command_line"] = httpx._main.__name__
    except ImportError as exc:
        record["httpx_command_line"] = repr(exc)
    with open(path, "w") as fh:
        json.dump(record, fh)
atexit.register(report)
sys.argv = ["linksync", *sys.argv[2:]]
from linksync.cli import main
main()
"""


@dataclass(frozen=True)
class Startup:
    """What ``startup_of`` saw of a command's process: ``modules`` loaded at exit;
    ``main_before_connect``, the modules the main thread loaded before the process's
    first connection (its first request); ``httpx_command_line``, ``"httpx._main"``
    when ``import httpx._main`` worked at exit, else the error it raised."""

    modules: frozenset[str]
    main_before_connect: tuple[str, ...]
    connected: bool
    httpx_command_line: str


def startup_of(
    folder: Path, *args: str, env: dict[str, str] | None = None
) -> tuple[Startup, subprocess.CompletedProcess[str]]:
    """Run ``linksync ARGS`` in a fresh interpreter (as ``modules_after``) under
    ``STARTUP_PROBE``."""
    out = folder / "startup.json"
    proc = _probe(STARTUP_PROBE, folder, out, args, env)
    seen = json.loads(out.read_text(encoding="utf-8"))
    startup = Startup(
        frozenset(seen["modules"]),
        tuple(seen["main_before_connect"]),
        seen["connected"],
        seen["httpx_command_line"],
    )
    return startup, proc
