"""A sheet's cells as calamine gives them, taken into columns.

The values are those of ``to_python(skip_empty_area=False)``: rows from the sheet's
first row, columns from A, cells outside the used range read as "".
"""

from __future__ import annotations

from typing import Any

#: Rows kept as ``head`` for the header search (``find_header`` looks at 31 at most).
HEAD_ROWS = 64


def calamine_failed(exc: BaseException) -> bool:
    """An error of calamine's: its own exceptions, and its panics (pyo3 raises those as
    ``PanicException``, a ``BaseException``: a malformed sheet must not end the run with
    a traceback)."""
    return isinstance(exc, Exception) or type(exc).__name__ == "PanicException"


class SheetRows:
    """The rows of one calamine sheet: ``head`` (the first rows) and the rest."""

    def __init__(self, sheet: Any):
        self._rows: list[list[Any]] = sheet.to_python(skip_empty_area=False)
        self.head = self._rows[:HEAD_ROWS]

    def rest_blank(self) -> bool:
        """True when every row after ``head`` is empty."""
        return all(v in ("", None) for row in self._rows[HEAD_ROWS:] for v in row)

    def columns(self, start: int, cols: list[int]) -> dict[int, list[Any]]:
        """The cells of ``cols`` (sheet column indexes from 0) in the rows from index
        ``start`` on, one list per column. A column beyond the shortest row reads as
        empty, as ``zip`` over the rows would have it (calamine's rows all have the
        sheet's width)."""
        data = self._rows[start:]
        width = min(map(len, data), default=0)
        return {c: [row[c] for row in data] if c < width else [""] * len(data) for c in cols}
