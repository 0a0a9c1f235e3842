"""A run lock, so two linksync runs against the same target cannot overlap.

``acquire_lock(path)`` takes an exclusive, non-blocking ``flock`` on a lock file
(``.linksync/lock`` by default, or ``--lock FILE``) and writes who holds it (pid, host,
start time, target label) into the file. A second run gets ``LockError`` naming the
holder, and the CLI turns that into exit code 2.

The lock belongs to the open file, not to the file's existence: when a holder dies the
operating system releases it, so a stale file left by a killed run is never a problem.
The file is therefore never deleted (deleting a lock file that another process is about
to lock lets two processes lock two different files).

Usage::

    with acquire_lock(".linksync/lock", target="sandbox") as holder:
        ...  # plan and apply
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from linksync.errors import LockError

#: Where the lock lives unless ``--lock FILE`` says otherwise (relative to the cwd).
DEFAULT_LOCK_PATH = Path(".linksync") / "lock"


@dataclass(frozen=True, slots=True)
class LockHolder:
    """Who holds (or held) a lock, as written into the lock file."""

    pid: int
    host: str
    started_at: str
    target: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "pid": self.pid,
            "host": self.host,
            "started_at": self.started_at,
            "target": self.target,
        }

    def describe(self) -> str:
        """'pid 4242 on host ci-runner-3 since 2026-03-01T02:00:00Z (target sandbox)'."""
        target = f" (target {self.target})" if self.target else ""
        return f"pid {self.pid} on host {self.host} since {self.started_at}{target}"

    @classmethod
    def current(cls, target: str | None = None) -> LockHolder:
        now = datetime.now(UTC).replace(microsecond=0)
        return cls(
            pid=os.getpid(),
            host=socket.gethostname(),
            started_at=now.isoformat().replace("+00:00", "Z"),
            target=target,
        )

    @classmethod
    def parse(cls, text: str) -> LockHolder | None:
        """The holder written in a lock file, or None when the file is empty or foreign."""
        try:
            data = json.loads(text)
        except ValueError:
            return None
        if not isinstance(data, dict):
            return None
        pid, host, started = data.get("pid"), data.get("host"), data.get("started_at")
        target = data.get("target")
        if not isinstance(pid, int) or not isinstance(host, str) or not isinstance(started, str):
            return None
        return cls(pid, host, started, target if isinstance(target, str) else None)


def read_holder(path: str | os.PathLike[str]) -> LockHolder | None:
    """The holder recorded in ``path`` (the last one, if the lock is free), or None."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        return None
    return LockHolder.parse(text)


def _open_lock_file(path: Path) -> int:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise LockError(f"cannot open lock file {path}: {exc.strerror or exc}") from exc


def _read_fd(fd: int) -> str:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks: list[bytes] = []
    while chunk := os.read(fd, 4096):
        chunks.append(chunk)
    return b"".join(chunks).decode("utf-8", errors="replace")


def _write_fd(fd: int, text: str) -> None:
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    data = text.encode("utf-8")
    while data:
        written = os.write(fd, data)
        data = data[written:]
    os.fsync(fd)


@contextmanager
def acquire_lock(
    path: str | os.PathLike[str] | None = None, *, target: str | None = None
) -> Iterator[LockHolder]:
    """Hold an exclusive lock on ``path`` for the duration of the ``with`` block.

    Never waits: when another run (in this process or any other) holds the lock,
    raises ``LockError`` naming the holder. ``target`` is a label (a profile name or
    base URL, never a key) recorded for that message.
    """
    lock_path = Path(path) if path is not None else DEFAULT_LOCK_PATH
    fd = _open_lock_file(lock_path)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = LockHolder.parse(_read_fd(fd))
            who = holder.describe() if holder else "a run that is just starting"
            raise LockError(
                f"another linksync run holds the lock {lock_path}: {who}. "
                "Wait for it to finish, or use --lock FILE for a different target."
            ) from None
        except OSError as exc:
            raise LockError(f"cannot lock {lock_path}: {exc.strerror or exc}") from exc
        holder = LockHolder.current(target)
        _write_fd(fd, json.dumps(holder.to_dict(), sort_keys=True) + "\n")
        try:
            yield holder
        finally:
            # Leave the record of the last holder for diagnosis; the flock is what counts.
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def is_locked(path: str | os.PathLike[str] | None = None) -> bool:
    """Whether some run holds the lock right now (probes without keeping it)."""
    lock_path = Path(path) if path is not None else DEFAULT_LOCK_PATH
    if not lock_path.exists():
        return False
    fd = os.open(lock_path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)
