"""The run lock, so two linksync runs against the same workspace cannot overlap.

Where the lock lives. By default it is keyed on the workspace, in the user's state
folder: two checkouts of one repository, or two jobs on one machine, applying to the
same workspace share one lock wherever they run from, whichever spelling of the URL
they use (``http://127.0.0.1:8787`` and ``http://localhost:8787`` reach one workspace)::

    $LINKSYNC_STATE_DIR/locks/<name>-<key>.lock      when the variable is set, else
    $XDG_STATE_HOME/linksync/locks/...               Linux and other Unix (~/.local/state)
    ~/Library/Application Support/linksync/locks/... macOS
    %LOCALAPPDATA%\\linksync\\locks\\...                Windows

``<key>`` is a hash of the workspace's identity (``linksync.config.identity``): for a
service, the organization's id it reports for the key, with a hash of the key (never
the key), read once at the start of the run, before the lock is taken (one request);
for the built-in sandbox in-process, the absolute path of its state file (no request).
``<name>`` is the organization's id (or ``sandbox``), for a person looking at the
folder. ``--lock FILE`` names another lock file instead.

How. ``acquire_lock(path)`` takes an exclusive lock on the file with ``filelock`` (an
``flock`` on Unix, ``LockFileEx`` on Windows; never ``fcntl`` imported by us, so the
commands start on every platform). The operating system releases it when the holder
exits or dies, so a lock left by a killed run never needs cleaning. Beside the lock
file, ``<lock>.holder`` records who holds it (pid, host, start time, target label) for
the message a second run gets: ``LockError``, exit code 2, nothing done. With ``wait``
a second run waits that many seconds for the lock instead.

Whose files. A lock file linksync makes is empty, and its holder record is one JSON
object (``LockHolder``). An existing file at either path that is not that (``--lock``
pointed at a file of the user's) is refused before anything happens (``foreign_lock``,
``foreign_holder``: the preflight names it; ``acquire_lock`` raises ``LockError``) and
left untouched.

What it cannot do: the lock is a file on one machine. Runs on different machines (two
CI runners, a laptop and a server) do not see each other's lock; serialise them in the
scheduler (a CI concurrency group), or point ``LINKSYNC_STATE_DIR`` at a folder they
share only when that file system supports locks (local disks do; many network ones do
not).

Usage::

    identity = await read_workspace_identity(settings)   # linksync.config.identity
    with acquire_lock(default_lock_path(identity), target="sandbox") as holder:
        ...  # plan and apply
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from linksync.config.identity import WorkspaceIdentity, local_identity
from linksync.errors import LockError
from linksync.safe.outputs import write_text_atomic
from linksync.safe.state_folder import make_folder

if TYPE_CHECKING:
    from filelock import FileLock

    from linksync.config import Target

#: Environment variable naming the state folder (default: the platform's).
ENV_STATE_DIR = "LINKSYNC_STATE_DIR"


@dataclass(frozen=True, slots=True)
class LockHolder:
    """Who holds (or held) a lock, as written into the holder record."""

    pid: int
    host: str
    started_at: str
    target: str | None = None

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
        """The holder in a record, or None when the record is empty or foreign."""
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


def state_dir(env: Mapping[str, str] | None = None, platform: str | None = None) -> Path:
    """The user's state folder for linksync (see the module docstring)."""
    env = os.environ if env is None else env
    platform = platform or sys.platform
    if env.get(ENV_STATE_DIR):
        return Path(env[ENV_STATE_DIR]).expanduser()
    home = Path(env.get("HOME") or Path.home())
    if platform == "win32":
        base = env.get("LOCALAPPDATA")
        return (Path(base) if base else home / "AppData" / "Local") / "linksync"
    if platform == "darwin":
        return home / "Library" / "Application Support" / "linksync"
    xdg = env.get("XDG_STATE_HOME")
    # The XDG spec ignores a relative value.
    base_dir = Path(xdg) if xdg and Path(xdg).is_absolute() else home / ".local" / "state"
    return base_dir / "linksync"


def default_lock_path(
    workspace: WorkspaceIdentity | Target, env: Mapping[str, str] | None = None
) -> Path:
    """The lock file of ``workspace`` in the state folder (see the module docstring):
    its identity, or a target whose identity needs no request (the in-process sandbox;
    a service's is read first: ``linksync.config.identity.read_workspace_identity``)."""
    identity = workspace if isinstance(workspace, WorkspaceIdentity) else local_identity(workspace)
    if identity is None:
        raise ValueError(
            "the lock of a service is keyed on the workspace it reports: read its identity "
            "first (linksync.config.identity.read_workspace_identity)"
        )
    digest = hashlib.sha256(identity.key.encode()).hexdigest()[:20]
    name = re.sub(r"[^a-z0-9._-]+", "_", identity.name.lower())[:40].strip("._") or "workspace"
    return state_dir(env) / "locks" / f"{name}-{digest}.lock"


def holder_path(lock_path: str | os.PathLike[str]) -> Path:
    """Where the holder of ``lock_path`` is recorded (``<lock>.holder``)."""
    path = Path(lock_path)
    return path.with_name(path.name + ".holder")


def read_holder(path: str | os.PathLike[str]) -> LockHolder | None:
    """The holder recorded for the lock ``path`` (the last one, if free), or None."""
    try:
        text = holder_path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return LockHolder.parse(text)


def foreign_lock(path: Path) -> str | None:
    """Why the existing file at ``path`` is not a lock file linksync made (which is
    empty), or None when it may be one."""
    try:
        size = path.stat().st_size
    except OSError:
        return None
    if size == 0:
        return None
    return (
        f"exists and is not a linksync lock file (it holds {size} bytes; a lock file "
        "linksync makes is empty); not using it: give --lock a new file"
    )


def foreign_holder(path: Path) -> str | None:
    """Why the existing file at ``path`` is not a lock holder record linksync wrote (an
    empty file is taken as one), or None."""
    try:
        data = path.read_bytes()[: 1 << 16]
    except OSError:
        return None
    if not data.strip():
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = ""
    if LockHolder.parse(text) is not None:
        return None
    return "exists and is not a linksync lock record; not replacing it: give --lock another file"


def _busy(lock_path: Path, waited: float) -> LockError:
    holder = read_holder(lock_path)
    who = holder.describe() if holder else "a run that is just starting"
    after = f" (waited {waited:g} s)" if waited else ""
    return LockError(
        f"another linksync run holds the lock {lock_path}: {who}{after}. Nothing was done. "
        "Wait for it to finish, or pass --lock-wait SECONDS to wait for it."
    )


def _take(lock: FileLock, lock_path: Path, timeout: float) -> bool:
    from filelock import Timeout

    try:
        lock.acquire(timeout=timeout)
    except Timeout:
        return False
    except OSError as exc:
        raise LockError(f"cannot lock {lock_path}: {exc.strerror or exc}") from exc
    return True


@contextmanager
def acquire_lock(
    path: str | os.PathLike[str],
    *,
    target: str | None = None,
    wait: float = 0.0,
    on_wait: Callable[[LockHolder | None], None] | None = None,
) -> Iterator[LockHolder]:
    """Hold an exclusive lock on ``path`` for the duration of the ``with`` block.

    When another run (in this process or any other) holds it: with ``wait`` 0 raise
    ``LockError`` naming the holder at once; else call ``on_wait(holder)`` and wait up
    to ``wait`` seconds. ``target`` is a label (a profile name or base URL, never a key)
    recorded for that message.
    """
    lock_path = Path(path)
    why = foreign_lock(lock_path) if lock_path.is_file() else None
    if why is not None:
        raise LockError(f"{lock_path} {why}. Nothing was done.")
    try:
        make_folder(lock_path.parent)
    except OSError as exc:
        raise LockError(f"cannot create the lock folder {lock_path.parent}: {exc}") from exc
    from filelock import FileLock  # here: a plan takes no lock and does without it

    lock = FileLock(str(lock_path))
    if not _take(lock, lock_path, 0):
        if wait <= 0:
            raise _busy(lock_path, 0)
        if on_wait is not None:
            on_wait(read_holder(lock_path))
        if not _take(lock, lock_path, wait):
            raise _busy(lock_path, wait)
    try:
        record = holder_path(lock_path)
        why = foreign_holder(record) if record.is_file() else None
        if why is not None:
            raise LockError(f"{record} {why}. Nothing was done.")
        holder = LockHolder.current(target)
        try:
            # Not forced to disk: it is for diagnosis (the OS lock is what counts), an empty
            # record after a power cut is taken as one (``foreign_holder``), and a sync
            # would wait on every other write of the machine before the first request.
            text = json.dumps(asdict(holder)) + "\n"
            write_text_atomic(holder_path(lock_path), text, durable=False)
        except OSError as exc:
            raise LockError(f"cannot record the lock holder beside {lock_path}: {exc}") from exc
        # Leave the record of the last holder for diagnosis; the OS lock is what counts.
        yield holder
    finally:
        lock.release()
