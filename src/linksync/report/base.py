"""What every report writer shares: the ``ResultWriter`` protocol, options, and files
that appear only when complete.

Every report appears only when complete (``linksync.safe.outputs``): csv and jsonl stream
their rows into a hidden temporary file beside the target; the other formats need the
whole run for their header or summary, so they spool rows to an anonymous temporary file
and assemble the report under a temporary name on ``close``. Either way the file is
renamed over the target at the end, so a reader never sees half a report and a run
killed mid-write leaves the previous report whole (the run journal holds what it did).
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol

from linksync.model import RowResult, RunInfo
from linksync.report.summary import Tally
from linksync.safe.outputs import AtomicFile

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

    def close(self, info: RunInfo, closing: Closing | None = None) -> Path: ...

    def abort(self) -> None:
        """Give up: release resources; a file not yet complete is not left behind."""
        ...


class Spool:
    """Text kept in an anonymous temporary file (UTF-8) until a report is assembled."""

    def __init__(self) -> None:
        self._file: IO[str] = tempfile.TemporaryFile("w+", encoding="utf-8", newline="")  # noqa: SIM115
        self.count = 0

    def append(self, text: str) -> None:
        self._file.write(text)
        self.count += 1

    def size(self) -> int:
        """Bytes held."""
        self._file.flush()
        return self._file.seek(0, 2)

    def copy_to(self, out: IO[bytes]) -> None:
        self._file.flush()
        self._file.seek(0)
        shutil.copyfileobj(self._file.buffer, out, 1 << 20)  # type: ignore[attr-defined]

    def close(self) -> None:
        self._file.close()


class AssembledWriter:
    """A report assembled on ``close`` (json, markdown, JUnit XML): rows spooled as
    they arrive, the counts kept, the head and tail written around the rows at the end."""

    def __init__(self, path: Path, options: ReportOptions | None = None) -> None:
        self.path = path
        self.options = options or ReportOptions()
        self.tally = Tally()
        self._spool = Spool()

    def _assemble(self, head: str, tail: str) -> Path:
        """Write ``head`` + the spooled rows + ``tail`` to the report atomically."""
        try:
            out = AtomicFile(self.path, "wb")
            with out as fh:
                fh.write(head.encode())
                self._spool.copy_to(fh)
                fh.write(tail.encode())
            return out.path
        finally:
            self._spool.close()

    def abort(self) -> None:
        self._spool.close()
