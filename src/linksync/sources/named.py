"""A source file read under a name of its own: ``NamedSource(path, display)``.

A front end that keeps the user's file somewhere else (the page keeps each upload in a
temporary folder of the server's) gives the run ``NamedSource`` objects instead of
paths: the file is read at ``path`` (it is an ``os.PathLike``: everything that opens,
checks or digests a source opens ``path``), and everything the run says of its rows
names it ``display``: problems and messages, the reports' source column, the journal,
the annotated copy's rows. A plain path is named as it was given.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from os import PathLike, fspath
from pathlib import Path


@dataclass(frozen=True, slots=True)
class NamedSource:
    """The file at ``path``, named ``display`` in everything a run writes and says."""

    path: Path
    display: str

    def __fspath__(self) -> str:
        return fspath(self.path)

    def __str__(self) -> str:
        return fspath(self.path)


def shown_name(source: str | PathLike[str]) -> str | None:
    """The name ``source`` is read under: its ``display`` (None: the path as given)."""
    return source.display if isinstance(source, NamedSource) else None


def shown_names(sources: Iterable[object]) -> dict[Path, str]:
    """{path: display} of the ``NamedSource`` objects among ``sources``."""
    return {Path(s.path): s.display for s in sources if isinstance(s, NamedSource)}
