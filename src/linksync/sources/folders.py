"""A folder source: every YAML file under it is read, and every other file is named.

A folder of link files is read whole: each ``*.yaml`` / ``*.yml`` under it, in sorted
order. A file it does not read would be a file whose links are silently missing (a
``more.ymal``, a ``links.json``, a spreadsheet, a symbolic link whose target is gone),
so ``list_folder`` names each of them with the reason, and the dispatch
(``linksync.sources``) makes each an ``EMPTY_SOURCE`` error naming the file.

Two kinds of entries are left alone without a word, as users expect of a folder kept in
git: hidden ones (a name starting with a dot: ``.git/``, ``.DS_Store``,
``.github/``), and the JSON Schema ``linksync export`` writes beside the files it
exports (``links.schema.json``, told by its ``$id``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from linksync.sources.options import YAML_SUFFIXES

__all__ = ["SCHEMA_ID", "Listing", "list_folder"]

#: The ``$id`` of the link files' JSON Schema (``linksync.export.schema.SCHEMA_ID``, which
#: a test keeps equal): a ``.json`` file holding it is the schema, not a source.
SCHEMA_ID = "urn:linksync:link-file:v1"
#: How much of a .json file is searched for it (the schema is about 15 KB).
_SCHEMA_BYTES = 1 << 20

_SPREADSHEETS = frozenset({".csv", ".tsv", ".xlsx", ".xlsm", ".xlsb", ".xls", ".ods"})


@dataclass
class Listing:
    """What a folder holds: the YAML files read (sorted), and the entries not read
    with the reason for each (sorted by path)."""

    yaml: list[Path] = field(default_factory=list)
    not_read: list[tuple[Path, str]] = field(default_factory=list)


def list_folder(root: Path) -> Listing:
    """Every entry under ``root`` that is not hidden, sorted into read and not read."""
    out = Listing()
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            out.not_read.append((folder, f"cannot be listed ({exc.strerror or exc})"))
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            path = Path(entry.path)
            if entry.is_dir(follow_symlinks=False):
                stack.append(path)
                continue
            why = _not_read(path, entry)
            if why is None:
                out.yaml.append(path)
            elif why:
                out.not_read.append((path, why))
    out.yaml.sort()
    out.not_read.sort()
    return out


def _not_read(path: Path, entry: os.DirEntry[str]) -> str | None:
    """Why the entry is not read (None: a YAML file to read; "": left alone)."""
    suffix = path.suffix.lower()
    if entry.is_symlink():
        if not path.exists():
            return (
                f"a symbolic link to {os.readlink(path)}, which does not exist (or a loop): "
                "not read; point it at the file, or remove it"
            )
        if path.is_dir():
            return (
                "a symbolic link to a folder, which a folder source does not follow: "
                "pass that folder as a source of its own"
            )
    if not path.is_file():
        return "not a regular file: not read"
    if suffix in YAML_SUFFIXES:
        return None
    if suffix == ".json" and _is_schema(path):
        return ""
    if suffix in _SPREADSHEETS:
        return (
            "a spreadsheet, which a folder source does not read (it reads .yaml and .yml "
            "files): pass it as a source of its own, or move it out of the folder"
        )
    shown = f"its extension is {suffix}" if suffix else "it has no extension"
    hint = " (a typo for .yaml?)" if suffix.startswith(".y") else ""
    return (
        f"not read: {shown}{hint}, and a folder source reads only .yaml and .yml files: "
        "rename it if it holds links, or move it out of the folder"
    )


def _is_schema(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return SCHEMA_ID.encode() in fh.read(_SCHEMA_BYTES)
    except OSError:
        return False
