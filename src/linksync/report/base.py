"""What every report writer shares: the ``ResultWriter`` protocol, options, and files
that appear only when complete.

csv and jsonl stream straight to their path (an interrupted run leaves every row written
so far). The other formats need the whole run for their header or summary: they spool
rows to an anonymous temporary file and, on ``close``, write the final file under a
temporary name beside the target and move it into place, so a reader never sees half a
report.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol

from linksync.model import RowResult, RunInfo

#: Rows shown in a markdown table before "... and N more".
DEFAULT_MD_ROWS = 50


@dataclass(frozen=True, slots=True)
class ReportOptions:
    """Options of the writers.

    ``secrets`` are strings (API keys) replaced by ``***`` wherever they would appear.
    ``md_max_rows`` caps the markdown table of changes. ``title`` overrides the heading
    of markdown and xlsx summaries.
    """

    md_max_rows: int = DEFAULT_MD_ROWS
    secrets: tuple[str, ...] = ()
    title: str | None = None


@dataclass(frozen=True, slots=True)
class Closing:
    """What is known only when a run ends, beyond ``RunInfo``: free notes (warnings
    for the reader) and, for a plan, why applying it would be refused."""

    notes: tuple[str, ...] = ()
    refused_reason: str | None = None

    def all_notes(self) -> list[str]:
        head = [f"This plan would be refused: {self.refused_reason}"] if self.refused_reason else []
        return head + list(self.notes)


class ResultWriter(Protocol):
    """One report file. ``write`` each result as it arrives, then ``close`` once."""

    path: Path

    def write(self, result: RowResult) -> None: ...

    def flush(self) -> None:
        """Put the rows written so far on disk, where the format streams (csv, jsonl)."""
        ...

    def close(self, info: RunInfo, closing: Closing | None = None) -> Path: ...

    def abort(self) -> None:
        """Give up: release resources; a file not yet complete is not left behind."""
        ...


def temp_path_for(path: Path) -> Path:
    """A hidden sibling of ``path`` to write into before the final rename."""
    return path.with_name(f".{path.stem}.{os.getpid()}.tmp{path.suffix}")


def prepare_parent(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)


def remove_quietly(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


class Spool:
    """Text rows kept in an anonymous temporary file until the report is assembled."""

    def __init__(self) -> None:
        self._file: IO[str] = tempfile.TemporaryFile("w+", encoding="utf-8", newline="")  # noqa: SIM115
        self.count = 0

    def append(self, text: str) -> None:
        self._file.write(text)
        self.count += 1

    def copy_to(self, out: IO[str]) -> None:
        self._file.flush()
        self._file.seek(0)
        shutil.copyfileobj(self._file, out, 1 << 20)

    def close(self) -> None:
        self._file.close()


def write_assembled(path: Path, head: str, spool: Spool | None, tail: str) -> Path:
    """Write ``head`` + the spooled rows + ``tail`` to ``path`` atomically."""
    prepare_parent(path)
    tmp = temp_path_for(path)
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as out:
            out.write(head)
            if spool is not None:
                spool.copy_to(out)
            out.write(tail)
        os.replace(tmp, path)
    except BaseException:
        remove_quietly(tmp)
        raise
    return path
