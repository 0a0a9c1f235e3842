"""What a CLI command loads: ``modules_after`` runs ``linksync ARGS`` in a fresh
interpreter (no LINKSYNC_* settings of the outside, no terminal) and returns the names
in its sys.modules at exit, with the finished process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
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
    base = {k: v for k, v in os.environ.items() if not k.startswith("LINKSYNC_")}
    base["NO_COLOR"] = "1"
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(out), *args],
        cwd=folder,
        env={**base, **(env or {})},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return set(json.loads(out.read_text(encoding="utf-8"))), proc
