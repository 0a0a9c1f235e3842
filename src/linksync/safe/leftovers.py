"""Temporary files of a killed run, removed by the next run on the same outputs.

Every output is written atomically (``linksync.safe.outputs``): into a hidden temporary
file beside it, renamed over it when complete. A run killed mid-write (SIGKILL, a
power cut, a CI job cancelled) leaves that temporary file behind, e.g.
``.report.4242-9f3ac1d2-h5e0b7a.tmp.csv`` beside ``report.csv``. The next run that
writes the same output removes the ones it can prove were left by a dead linksync
run, and says so; every other file is left alone. Proof is:

- the exact name pattern of that output's temporary files: ``.<stem>.<pid>-<8 hex>``,
  then ``-h<6 hex>`` (a hash of the host name, since this version), then
  ``.tmp<suffix>``, in the output's own folder, a regular file (not a link);
- the host tag is this machine's (a folder shared between machines or containers holds
  files of runs whose pids mean nothing here); a name without one (made by an earlier
  version) is judged by its pid alone;
- the pid is not a live process here (our own pid, or any live one, keeps the file).

On Windows no pid is probed (``os.kill(pid, 0)`` would not test it there): nothing is
removed. Usage::

    removed = remove_leftovers(output.path for output in outputs)
    if removed:
        print(describe_removed(removed))
"""

from __future__ import annotations

import hashlib
import os
import re
import socket
import stat
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["HOST_TAG", "Leftover", "describe_removed", "find_leftovers", "remove_leftovers"]

#: This machine's tag in temporary file names: 6 hex of a SHA-256 of the host name.
HOST_TAG = hashlib.sha256(socket.gethostname().encode("utf-8", "replace")).hexdigest()[:6]


@dataclass(frozen=True, slots=True)
class Leftover:
    """A temporary file of a dead run: where it is, whose output, which pid made it."""

    path: Path
    output: Path
    pid: int


def temp_name_pattern(output: Path) -> re.Pattern[str]:
    """The names of ``output``'s temporary files (``linksync.safe.outputs.temp_sibling``):
    group 1 the pid, group 2 the host tag (absent in names of earlier versions)."""
    stem, suffix = re.escape(output.stem), re.escape(output.suffix)
    host = r"(?:-h([0-9a-f]{6}))?"
    return re.compile(rf"\.{stem}\.([0-9]{{1,10}})-[0-9a-f]{{8}}{host}\.tmp{suffix}")


def pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` runs on this machine (True when it cannot be told)."""
    if pid <= 0 or pid == os.getpid() or sys.platform == "win32":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError, OverflowError):
        return True  # a process of another user, or a pid the system refuses to probe
    return True


def find_leftovers(outputs: Iterable[Path]) -> list[Leftover]:
    """The temporary files beside ``outputs`` that dead runs on this host left, in
    name order (see the module docstring)."""
    found: dict[Path, Leftover] = {}
    for output in outputs:
        output = Path(os.path.abspath(output))
        folder = output.parent
        if not output.name or not folder.is_dir():
            continue
        pattern = temp_name_pattern(output)
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            match = pattern.fullmatch(name)
            if match is None:
                continue
            pid, host = int(match.group(1)), match.group(2)
            if host is not None and host != HOST_TAG:
                continue
            path = folder / name
            try:
                if not stat.S_ISREG(os.lstat(path).st_mode):
                    continue
            except OSError:
                continue
            if not pid_alive(pid):
                found.setdefault(path, Leftover(path, output, pid))
    return sorted(found.values(), key=lambda x: str(x.path))


def remove_leftovers(outputs: Iterable[Path]) -> list[Leftover]:
    """Remove the temporary files ``find_leftovers`` finds; the ones removed."""
    removed: list[Leftover] = []
    for item in find_leftovers(outputs):
        try:
            item.path.unlink()
        except OSError:
            continue  # gone meanwhile, or not ours to force: left where it is
        removed.append(item)
    return removed


def describe_removed(removed: Iterable[Leftover]) -> str:
    """'removed 2 temporary files left by an interrupted run (pid 1234): a, b'."""
    items = list(removed)
    pids = sorted({x.pid for x in items})
    n = len(items)
    files = "1 temporary file" if n == 1 else f"{n} temporary files"
    runs = "an interrupted run" if len(pids) == 1 else f"{len(pids)} interrupted runs"
    which = ", ".join(str(p) for p in pids)
    label = "pid" if len(pids) == 1 else "pids"
    names = ", ".join(str(x.path) for x in items)
    return f"removed {files} left by {runs} ({label} {which}): {names}"
