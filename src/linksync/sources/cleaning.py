"""Columns of cells -> clean text: ASCII whitespace trimmed, empty cells and the
user's ``--empty-value`` placeholders as None (not managed); ``factorize``, the
distinct values of a column. Without pandas: a CSV run never loads it."""

from __future__ import annotations

from itertools import repeat
from typing import Any

import numpy as np

ASCII_WS = " \t\r\n"


class Trimmed(list[str]):
    """Cells a reader knows are trimmed text, none of them empty (the CSV reader's
    columns split at once, ``linksync.sources.csv_records``): ``clean_column`` takes
    them as they are, with no pass to trim them or to look for empty ones."""


class Scratch:
    """``count`` arrays of ``dtype`` over a block's bytes, kept from block to block: a
    new MB for each block costs more in page faults than the comparison that fills it
    (the CSV split's masks, the URL filter's buffers)."""

    def __init__(self, count: int, dtype: type = bool) -> None:
        self.arrays: np.ndarray = np.empty((count, 0), dtype=dtype)

    def take(self, n: int) -> tuple[np.ndarray, ...]:
        """The arrays, ``n`` items each (their contents left from before)."""
        if self.arrays.shape[1] < n:
            self.arrays = np.empty((self.arrays.shape[0], n + (n >> 3)), self.arrays.dtype)
        return tuple(self.arrays[:, :n])


def missing(v: Any) -> bool:
    """A missing cell: None, NaN, NaT, or pandas' NA (whose comparisons have no truth)."""
    if v is None:
        return True
    try:
        return bool(v != v)
    except TypeError:  # pandas' NA
        return True


def _as_text(v: Any) -> str:
    """A cell as text; missing cells (None, NaN, NA, NaT) as ""."""
    if isinstance(v, str):
        return v
    return "" if missing(v) else str(v)


def factorize(values: Any) -> tuple[np.ndarray, list[Any]]:
    """(each value's code, the distinct values in the order first met): code -1 for a
    missing value (``missing``), which is not among the distinct ones."""
    vals: list[Any] = values.tolist() if hasattr(values, "tolist") else list(values)
    code: dict[Any, int] = {}
    uniques: list[Any] = []
    for v in dict.fromkeys(vals):
        if v is None or (v.__class__ is not str and missing(v)):
            code[v] = -1
        else:
            code[v] = len(uniques)
            uniques.append(v)
    codes = np.fromiter(map(code.__getitem__, vals), dtype=np.int64, count=len(vals))
    return codes, uniques


def clean_column(
    column: Any, empty_values: frozenset[str] = frozenset(), *, text_only: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Object array of trimmed strings, None for empty or missing cells (and for cells
    holding one of ``empty_values``, compared case-insensitively), and per value
    whether it is set (not None). ``text_only``: raise TypeError when a cell is not
    text (else it is read as text, a missing one as empty).

    Only ASCII whitespace is trimmed: a no-break space or a zero-width space is left
    in place for validation to name. A ``Trimmed`` column is taken as it is.
    """
    if column.__class__ is Trimmed:
        n = len(column)
        if not empty_values:
            return np.fromiter(column, dtype=object, count=n), np.ones(n, dtype=bool)
        text: list[str] = column
    else:
        text = _trimmed(column, text_only)
    n = len(text)
    if empty_values:
        text = ["" if v.casefold() in empty_values else v for v in text]
    out = np.fromiter(text, dtype=object, count=n)
    if "" not in text:  # one comparison a cell in C: the usual full column
        return out, np.ones(n, dtype=bool)
    empty = np.equal(out, "")
    out[empty] = None
    return out, ~empty


def _trimmed(column: Any, text_only: bool) -> list[str]:
    """The cells as text, ASCII whitespace trimmed (``clean_column``)."""
    if hasattr(column, "tolist"):  # a numpy array, a pandas Series
        vals: list[Any] = column.tolist()
    else:
        vals = column if isinstance(column, list) else list(column)  # not changed here
    try:
        return list(map(str.strip, vals, repeat(ASCII_WS)))
    except TypeError:  # cells that are not text (None, NaN, numbers)
        if text_only:
            raise
        return [_as_text(v).strip(ASCII_WS) for v in vals]
