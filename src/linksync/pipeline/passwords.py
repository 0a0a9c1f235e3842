"""Where a run keeps the fingerprints of the link passwords it sent
(``linksync.sync.fingerprints``): in the user's state folder, beside the run locks,
one file per target (base URL and workspace, named as its lock is)::

    <state>/passwords/<host>-<hash>.json     and <state>/passwords/machine.key

``LINKSYNC_STATE_DIR`` moves it with the locks. A plan reads it (``load_passwords``);
an apply reads it, records what it sends, and writes it at the end (``save_passwords``).
A file that cannot be read or written is a warning, never a failed run: the rows then
say their password was not sent, as on a machine that never sent one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from linksync.pipeline.lock import default_lock_path, state_dir
from linksync.sync.fingerprints import PasswordMemory, PasswordStore

if TYPE_CHECKING:
    from linksync.config import Target
    from linksync.config.identity import WorkspaceIdentity

FOLDER = "passwords"


def password_store(
    workspace: WorkspaceIdentity | Target, env: Mapping[str, str] | None = None
) -> PasswordStore:
    """The fingerprint file of ``workspace`` in the state folder (named as its lock:
    the identity the service reports, ``linksync.config.identity``; a target only for
    the in-process sandbox, known without a request)."""
    name = default_lock_path(workspace, env).stem
    return PasswordStore(state_dir(env) / FOLDER / f"{name}.json")


def load_passwords(store: PasswordStore, warn: Callable[[str], None]) -> PasswordMemory:
    """What ``store`` holds; an empty memory, with a warning, when it cannot be read."""
    try:
        return store.load()
    except (OSError, ValueError) as exc:
        warn(f"{_why(exc, store.path)}; passwords of links that have one are not compared")
        return PasswordMemory()


def save_passwords(store: PasswordStore, warn: Callable[[str], None]) -> None:
    """Write what the run recorded; a warning when it cannot."""
    try:
        store.save()
    except (OSError, ValueError) as exc:
        warn(f"{_why(exc, store.path)}; the next run will not know the passwords this one sent")


def _why(exc: Exception, path: Path) -> str:
    if isinstance(exc, OSError):
        reason = exc.strerror or type(exc).__name__
        return f"cannot use the password fingerprints in {path.parent}: {reason}"
    return f"cannot use the password fingerprints: {exc}"
