"""Columns of cells -> clean text: ASCII whitespace trimmed, empty cells and the
user's ``--empty-value`` placeholders as None (not managed).

A column of a million cells is looked at as one joined string wherever it can be:
each pass over a million Python values costs 15-40 ms, a search of a string of one
byte a character a few.
"""

from __future__ import annotations

from itertools import repeat
from typing import Any

import numpy as np
import pandas as pd

from linksync.sources.frame import JOIN_SEP as _SEP
from linksync.sources.frame import JoinedText

ASCII_WS = " \t\r\n"


def _as_text(v: Any) -> str:
    """A cell as text; missing cells (None, NaN, NA, NaT) as ""."""
    if isinstance(v, str):
        return v
    return "" if v is None or bool(pd.isna(v)) else str(v)


def clean_text(column: Any, empty_values: frozenset[str] = frozenset()) -> np.ndarray:
    """Object array of trimmed strings, None for empty or missing cells (and for cells
    holding one of ``empty_values``, compared case-insensitively)."""
    return clean_column(column, empty_values)[0]


def clean_column(
    column: Any, empty_values: frozenset[str] = frozenset()
) -> tuple[np.ndarray, np.ndarray]:
    """``clean_text`` of the column, and per value whether it is set (not None)."""
    out, present, _ = clean_joined(column, empty_values)
    return out, present


def clean_joined(
    column: Any,
    empty_values: frozenset[str] = frozenset(),
    *,
    text_only: bool = False,
    keep: bool = True,
) -> tuple[np.ndarray, np.ndarray, JoinedText | None]:
    """``clean_column``, and the clean column joined into one string (``JoinedText``)
    when it is pure ASCII but for a few values and ``keep`` asks for it (else the
    empty cells are found among the values). ``text_only``: raise TypeError when a
    cell is not text (else it is read as text, a missing one as empty).

    Only ASCII whitespace is trimmed: a no-break space or a zero-width space is left
    in place for validation to name. The column is joined into one string (which
    also proves every cell is text; values outside ASCII stand in it as "!" and are
    looked at one by one, so the string stays one byte a character): values are
    stripped only when it holds ASCII whitespace at all, placeholders are looked for
    in it casefolded first, and empty cells only when it holds two separators in a
    row. An object column (pandas' own) is returned as is when nothing changes.
    """
    arr = _object_values(column) if isinstance(column, pd.Series) else None
    if isinstance(column, list):
        vals: list[Any] = column.copy()  # padded while joined (``_joined``)
    elif arr is not None:
        vals = arr.tolist()
    elif isinstance(column, pd.Series | np.ndarray):
        vals = column.tolist()
    else:
        vals = list(column)
    n = len(vals)
    try:
        big, others = _ascii_joined(vals)
    except TypeError:  # cells that are not text (None, NaN, numbers)
        if text_only:
            raise
        vals, arr = [_as_text(v) for v in vals], None
        big, others = _ascii_joined(vals)
    layout = _layout(big, n) if keep else None
    if _edges_hold_space(big, layout, vals, others):
        stripped = list(map(str.strip, vals, repeat(ASCII_WS)))
        if stripped != vals:  # a string stripped of nothing is the same object
            vals, arr = stripped, None
            big, others = _ascii_joined(vals, others)
            layout = _layout(big, n) if keep else None
    if empty_values and n:
        vals, changed = _placeholders(vals, big, others, empty_values)
        if changed:
            arr, layout = None, None
    del big
    out = arr if arr is not None else np.fromiter(vals, dtype=object, count=n)
    present = np.ones(n, dtype=bool)
    if layout is not None:
        empty = np.diff(layout[1][: n + 1]) == 1
        if not empty.any():
            return out, present, JoinedText(out, *layout, tuple(others))
    elif "" not in vals:
        return out, present, None
    else:
        empty = np.equal(out, "")
    out = out.copy() if out is arr else out
    out[empty] = None
    joined = JoinedText(out, *layout, tuple(others)) if layout is not None else None
    return out, ~empty, joined


#: The byte of ``JOIN_SEP``; which bytes are ASCII whitespace.
_SEP_CODE = ord(_SEP)
_SPACE = np.zeros(256, dtype=bool)
_SPACE[[ord(c) for c in ASCII_WS]] = True


def _layout(big: str, n: int) -> tuple[bytes, np.ndarray] | None:
    """``big`` (pure ASCII, from ``_ascii_joined``) as ``JoinedText.raw`` and its
    ``seps``; None when it is not ASCII or a value holds the separator itself."""
    if not n or not big.isascii():
        return None
    raw = big.encode("ascii")
    found = np.flatnonzero(np.frombuffer(raw, dtype=np.uint8) == _SEP_CODE)
    if len(found) != n + len(_PAD) - 1:
        return None
    small = np.int32 if len(raw) < 2**31 else np.int64  # half the memory, kept till validation
    return raw, np.concatenate([np.array([-1], dtype=small), found.astype(small)])


def _edges_hold_space(
    big: str, layout: tuple[bytes, np.ndarray] | None, vals: list[str], others: list[int]
) -> bool:
    """Some value starts or ends with ASCII whitespace (when unsure: True). A value
    outside ASCII is looked at alone; the others at once: first whether the joined
    text holds whitespace at all, then the byte after each separator and before it."""
    if any(vals[i] != vals[i].strip(ASCII_WS) for i in others):
        return True
    if not any(w in big for w in ASCII_WS):
        return False
    if layout is None:
        return True
    raw, seps = layout
    codes = np.frombuffer(raw, dtype=np.uint8)
    return bool(_SPACE[codes[seps[:-9] + 1]].any() or _SPACE[codes[seps[1:-8] - 1]].any())


def _object_values(column: pd.Series) -> np.ndarray | None:
    """pandas' own object array of a column of text, when it can be used as it is (a
    1-D array of its own, writable, not a view of a block of several columns)."""
    arr = column.to_numpy(dtype=object, copy=False)
    if arr.dtype != object or arr.ndim != 1:
        return None
    base = arr.base
    if not arr.flags.writeable or (
        base is not None and (not isinstance(base, np.ndarray) or base.shape != arr.shape)
    ):
        return None
    return arr


#: Values joined to find out whether a column holds text outside ASCII at all.
_PROBE = 20_000


def _ascii_joined(vals: list[Any], others: list[int] | None = None) -> tuple[str, list[int]]:
    """The values joined by the separator and nine more after the last (``_joined``),
    those outside ASCII standing as "!", and the positions of those (``others``:
    where they were before, when known). A column mostly outside ASCII is joined as
    it is (no "!", no positions). Raises TypeError when a value is not text."""
    if others is None:
        if _SEP.join(vals[:_PROBE]).isascii():
            big = _joined(vals)
            if big.isascii():
                return big, []
        ascii_ = np.fromiter(map(str.isascii, vals), dtype=bool, count=len(vals))
        others = np.flatnonzero(~ascii_).tolist()
    if not others or len(others) * 8 > len(vals):
        return _joined(vals), []
    text = vals.copy()
    for i in others:
        text[i] = "!"
    return _joined(text), others


_PAD = [""] * 9


def _joined(vals: list[Any]) -> str:
    """``vals`` (a list of this module's own) joined, nine separators after the last
    value (eight padding bytes for ``JoinedText``): one string made, no copy of it."""
    vals.extend(_PAD)
    try:
        return _SEP.join(vals)
    finally:
        del vals[-len(_PAD) :]


def _placeholders(
    vals: list[str], big: str, others: list[int], empty_values: frozenset[str]
) -> tuple[list[str], bool]:
    """The values with those equal to one of ``empty_values`` (casefolded) as "";
    whether any was. ``big`` and ``others``: from ``_ascii_joined``."""
    folded_big = big.casefold()
    edged = _SEP + folded_big
    if not any(_SEP + w + _SEP in edged for w in empty_values) and not any(
        vals[i].casefold() in empty_values for i in others
    ):
        return vals, False
    folded = folded_big.split(_SEP)[: -len(_PAD)]
    if len(folded) != len(vals):  # a value holds the separator itself
        folded = [v.casefold() for v in vals]
    for i in others:
        folded[i] = vals[i].casefold()
    if empty_values.isdisjoint(folded):
        return vals, False
    return ["" if f in empty_values else v for v, f in zip(vals, folded, strict=True)], True
