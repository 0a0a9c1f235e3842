"""The ``.linksync/`` folder linksync keeps its local state in (the sandbox's database,
the page's runs, the journals), kept out of git the way pytest keeps
``.pytest_cache/`` out: the folder holds its own ``.gitignore`` reading ``*``, so
``git status`` does not list it and nobody commits a sandbox or a journal by mistake.

    make_folder(Path(".linksync") / "runs")   # mkdir -p, then .linksync/.gitignore

Every place that creates a folder linksync writes state into calls ``make_folder``;
whichever folder on the way is named ``.linksync`` gets the ``.gitignore`` when it has
none (a folder made by an older linksync gets it on the next run). A ``.gitignore``
already there is left as it is.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

STATE_FOLDER = ".linksync"
GITIGNORE = (
    "# Created by linksync: its local state (sandbox, runs, journals) stays out of git.\n*\n"
)


def make_folder(folder: Path | str) -> Path:
    """Create ``folder`` and its parents (as ``mkdir -p``) and give every ``.linksync``
    folder on its path its ``.gitignore``; return the folder."""
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    for part in (path, *path.parents):
        if part.name == STATE_FOLDER:
            keep_out_of_git(part)
    return path


def keep_out_of_git(folder: Path) -> None:
    """Write ``folder/.gitignore`` (``*``) unless one is there; never raises (a folder
    that cannot take it still holds the run's state)."""
    target = folder / ".gitignore"
    if target.exists() or target.is_symlink():
        return
    # Exclusive create: two runs starting together write it once; a read-only folder
    # is not a reason to fail a run.
    with contextlib.suppress(OSError), open(target, "x", encoding="utf-8") as fh:
        fh.write(GITIGNORE)
