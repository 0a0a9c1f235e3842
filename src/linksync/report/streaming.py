"""Writers that stream: csv and jsonl. Each row is written as it arrives, so memory stays
constant.

Rows go to a hidden temporary file beside the target (``linksync.safe.outputs.AtomicFile``),
flushed at most every ``FLUSH_EVERY_S`` seconds: a run paced by the rate limit flushes
every row, a burst of rows (a plan of a million unchanged rows) is not slowed by a
system call per row. ``close`` renames the complete file over the target; ``abort``
removes it. Either way a previous report at that path stays whole until the new one
replaces it, even when the run is killed; the sync journal records every row as it
happens.

The CSV report starts with a UTF-8 byte order mark, so Excel opens it with accents
intact (Excel reads a CSV without one in the legacy code page of the machine)."""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path
from typing import IO, Any

from linksync.model import RESULT_COLUMNS, RowResult, RunInfo
from linksync.report.base import Closing, ReportOptions
from linksync.report.cells import neutralize, report_row
from linksync.safe.outputs import AtomicFile

#: Longest time a written row may wait in the buffer before it is flushed to the file.
FLUSH_EVERY_S = 0.2


class _StreamingWriter:
    """Shared open/flush/close of the streaming formats."""

    #: Text encoding of the file ("utf-8-sig": with a byte order mark).
    encoding = "utf-8"

    def __init__(self, path: Path, options: ReportOptions | None = None) -> None:
        self.path = path
        self.options = options or ReportOptions()
        self._out = AtomicFile(path, encoding=self.encoding, newline="")
        self._file: IO[str] = self._out.file
        self._flushed_at = time.monotonic()

    def _row(self, result: RowResult) -> dict[str, Any]:
        return report_row(result, self.options.secrets)

    def _flush_soon(self) -> None:
        now = time.monotonic()
        if now - self._flushed_at >= FLUSH_EVERY_S:
            self._file.flush()
            self._flushed_at = now

    def flush(self) -> None:
        self._file.flush()
        self._flushed_at = time.monotonic()

    def close(self, info: RunInfo, closing: Closing | None = None) -> Path:
        return self._out.commit()

    def abort(self) -> None:
        # The previous file at the path (if any) stays; the journal records the rows.
        self._out.discard()


class CsvWriter(_StreamingWriter):
    """RFC 4180 CSV (UTF-8 with a byte order mark, CRLF), header of ``RESULT_COLUMNS``,
    formula-like text prefixed with ``'``."""

    encoding = "utf-8-sig"

    def __init__(self, path: Path, options: ReportOptions | None = None) -> None:
        super().__init__(path, options)
        self._csv = csv.writer(self._file, lineterminator="\r\n")
        self._csv.writerow(RESULT_COLUMNS)
        self.flush()

    def write(self, result: RowResult) -> None:
        row = self._row(result)
        # The csv module writes None as an empty cell and numbers as digits.
        self._csv.writerow([neutralize(v) if isinstance(v, str) else v for v in row.values()])
        self._flush_soon()


class JsonlWriter(_StreamingWriter):
    """One JSON object per line, keys in ``RESULT_COLUMNS`` order."""

    def write(self, result: RowResult) -> None:
        line = json.dumps(self._row(result), ensure_ascii=False, separators=(",", ":"))
        self._file.write(line + "\n")
        self._flush_soon()
