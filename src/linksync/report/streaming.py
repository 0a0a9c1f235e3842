"""Writers that stream: csv and jsonl. Each row is written and flushed as it arrives, so
memory stays constant and an interrupted run leaves every finished row on disk."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import IO, Any

from linksync.model import RESULT_COLUMNS, RowResult, RunInfo
from linksync.report.base import Closing, ReportOptions, prepare_parent
from linksync.report.cells import neutralize, report_row


def csv_cell(value: Any) -> str:
    """One CSV cell: empty for None, numbers as digits, text neutralised."""
    if value is None:
        return ""
    if isinstance(value, str):
        return neutralize(value)
    return str(value)


class _StreamingWriter:
    """Shared open/flush/close of the streaming formats."""

    def __init__(self, path: Path, options: ReportOptions | None = None) -> None:
        self.path = path
        self.options = options or ReportOptions()
        prepare_parent(path)
        self._file: IO[str] = open(path, "w", encoding="utf-8", newline="")  # noqa: SIM115
        self.rows = 0

    def _row(self, result: RowResult) -> dict[str, Any]:
        self.rows += 1
        return report_row(result, self.options.secrets)

    def close(self, info: RunInfo, closing: Closing | None = None) -> Path:
        self._file.close()
        return self.path

    def abort(self) -> None:
        # Rows already written stay: they are the record of what happened.
        self._file.close()


class CsvWriter(_StreamingWriter):
    """RFC 4180 CSV (UTF-8, CRLF), header of ``RESULT_COLUMNS``, formula-like text
    prefixed with ``'``."""

    def __init__(self, path: Path, options: ReportOptions | None = None) -> None:
        super().__init__(path, options)
        self._csv = csv.writer(self._file, lineterminator="\r\n")
        self._csv.writerow(RESULT_COLUMNS)
        self._file.flush()

    def write(self, result: RowResult) -> None:
        row = self._row(result)
        self._csv.writerow([csv_cell(row[c]) for c in RESULT_COLUMNS])
        self._file.flush()


class JsonlWriter(_StreamingWriter):
    """One JSON object per line, keys in ``RESULT_COLUMNS`` order."""

    def write(self, result: RowResult) -> None:
        line = json.dumps(self._row(result), ensure_ascii=False, separators=(",", ":"))
        self._file.write(line + "\n")
        self._file.flush()
