"""A sheet's cells as calamine gives them, taken into columns without a grid of rows.

``CalamineSheet.to_python(skip_empty_area=False)`` builds a Python list per row of the
whole sheet: for 100,000 rows x 10 columns about 0.25 s, half of it the cyclic garbage
collector walking the growing list of rows, and taking the wanted columns out of those
rows costs 20 ms more per column (each cell's row is far from the last one in memory).
``SheetRows`` holds the first rows as a list (the header is looked for there) and
streams the rest through ``iter_rows`` in small batches, each batch split into the
wanted columns while it is in the cache and then dropped: about 0.17 s for the same
sheet, the same values (docs/performance.md).

The values are exactly those of ``to_python(skip_empty_area=False)``: rows from the
sheet's first row, columns from A, cells outside the used range read as "". python-
calamine's ``iter_rows`` starts at the first row of the sheet but at the first used
column (versions differ), so it is used only when the used range starts in row 1, and
rows are padded on the left when they start past column A; any other sheet is read
with ``to_python`` as before.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain, islice
from operator import itemgetter
from typing import Any

#: Rows kept as a list for the header search (``find_header`` looks at 31 at most).
HEAD_ROWS = 64
#: Rows per batch split into columns: small enough to stay in the cache, and to keep
#: the collector from walking a long list of live rows.
_BATCH = 256

Row = list[Any]


def calamine_failed(exc: BaseException) -> bool:
    """An error of calamine's: its own exceptions, and its panics (pyo3 raises those as
    ``PanicException``, a ``BaseException``: a malformed sheet must not end the run with
    a traceback)."""
    return isinstance(exc, Exception) or type(exc).__name__ == "PanicException"


class SheetRows:
    """The rows of one calamine sheet: ``head`` (the first rows, left-padded as
    ``to_python(skip_empty_area=False)`` has them) and the rest, read once."""

    def __init__(self, sheet: Any):
        # Releases of python-calamine without these read with ``to_python``.
        start, end = getattr(sheet, "start", None), getattr(sheet, "end", None)
        self._pad = 0
        self._rest: Iterator[Row] = iter(())
        if start is not None and end is not None and start[0] == 0 and hasattr(sheet, "iter_rows"):
            rows = sheet.iter_rows()
            head = list(islice(rows, HEAD_ROWS))
            full, used = end[1] + 1, end[1] - start[1] + 1
            width = len(head[0]) if head else full
            if width in (full, used):
                self._pad = full - width
                self.head = [[""] * self._pad + r for r in head] if self._pad else head
                self._rest = rows
                return
        self.head = sheet.to_python(skip_empty_area=False)

    def rest_blank(self) -> bool:
        """True when every row after ``head`` is empty (reads them)."""
        return all(v in ("", None) for row in self._rest for v in row)

    def columns(self, start: int, cols: list[int]) -> dict[int, list[Any]]:
        """The cells of ``cols`` (sheet column indexes from 0) in the rows from index
        ``start`` on, one list per column. A column beyond the shortest row reads as
        empty, as ``zip`` over the rows would have it (calamine's rows all have the
        sheet's width)."""
        data = self.head[start:] if start < len(self.head) else []
        rest = islice(self._rest, max(0, start - len(self.head)), None)
        out: dict[int, list[Any]] = {c: [] for c in cols}
        width: int | None = None  # the shortest row seen
        pad = self._pad
        batches = chain([(data, 0)], ((b, pad) for b in _batches(rest)))
        for batch, shift in batches:
            if not batch:
                continue
            short = min(map(len, batch)) + shift
            width = short if width is None else min(width, short)
            for c, cells in out.items():
                at = c - shift
                if at >= 0 and c < short:
                    cells.extend(map(itemgetter(at), batch))
                else:  # left of the used range, or past a short row (below)
                    cells.extend([""] * len(batch))
        for c in cols:
            if width is not None and c >= width:
                out[c] = [""] * len(out[c])
        return out


def _batches(rows: Iterator[Row]) -> Iterator[list[Row]]:
    while batch := list(islice(rows, _BATCH)):
        yield batch
