"""Checks over a column the reader joined into one string while cleaning it
(``linksync.sources.frame.JoinedText``): the URL and slug filters, the lengths of the
values, placeholders, each over the whole column at once. Each returns what its
value-by-value counterpart returns, or None / False when unsure (then validation
tests the values); ``tests/validate/test_fast_paths.py`` compares both ways.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from linksync import rules
from linksync.sources.frame import JOIN_SEP, JoinedText
from linksync.sources.options import EXCEL_ERRORS, PLACEHOLDER_VARIANTS
from linksync.validate.filters import SLUG_BYTES, url_ok_ascii

#: Placeholders and Excel error texts: "nothing" where a value belongs.
NOTHING = PLACEHOLDER_VARIANTS | EXCEL_ERRORS
_SEP = JOIN_SEP
_SEP_BYTE = JOIN_SEP.encode("ascii")


def url_ok_joined(column: JoinedText) -> np.ndarray | None:
    """``fast_url_ok`` of every value of a column the reader joined already (None and
    "" fail); None when a value holds the separator itself (then test the values)."""
    n = len(column.values)
    return url_ok_ascii(column.raw, ord(JOIN_SEP), n, column.others, column.values, column.seps)


def slug_ok_joined(column: JoinedText, idx: np.ndarray, values: list[Any]) -> np.ndarray | None:
    """``fast_slug_ok(values)`` for ``values``, the values at ``idx`` (none None) of a
    column the reader joined already: the character, hyphen and length tests at once
    on the joined text, then the reserved words value by value. None when some value
    of the column fails a test at once (then test the values)."""
    raw = column.raw
    n = len(column.values)
    if column.others or len(raw) == 9:  # outside ASCII, or one empty value
        return None
    if len(raw.translate(None, SLUG_BYTES)) != n + 8:
        return None
    if b"--" in raw or _SEP_BYTE + b"-" in raw or b"-" + _SEP_BYTE in raw or raw[:1] == b"-":
        return None
    if int(np.diff(column.seps[: n + 1]).max()) - 1 > rules.MAX_SLUG_BYTES:
        return None
    low = raw.lower()
    reserved = rules.RESERVED_SLUGS
    if low == raw:  # no upper-case letter: each value is its own lower case
        if reserved.isdisjoint(values):
            return np.ones(len(values), dtype=bool)
        return ~np.fromiter(map(reserved.__contains__, values), dtype=bool, count=len(values))
    lowered = low[1:-9].decode("ascii").split(_SEP)
    return ~np.fromiter((lowered[i] in reserved for i in idx.tolist()), dtype=bool, count=len(idx))


_SEP = JOIN_SEP
_SEP_BYTE = JOIN_SEP.encode("ascii")


#: Per length (up to 63 characters): whether some placeholder is that long.
NOTHING_LENGTHS = np.zeros(64, dtype=bool)
NOTHING_LENGTHS[[len(w) for w in NOTHING]] = True


def _lengths(column: JoinedText) -> np.ndarray:
    """Each value's length in the joined text (a value outside ASCII counts 1)."""
    n = len(column.values)
    out: np.ndarray = np.diff(column.seps[: n + 1]) - 1
    return out


def longest_length(column: JoinedText) -> int:
    """The length of the column's longest value, in characters."""
    top = int(_lengths(column).max(initial=0))
    return max([top, *(len(column.values[i]) for i in column.others)])


def nothing_by_length(column: JoinedText | None) -> bool:
    """No value of the column is a placeholder, found from the lengths of its values
    in the joined text (only those as long as some placeholder are looked up, and
    those outside ASCII); False when unsure or there is no joined text."""
    if column is None:
        return False
    sizes = _lengths(column)
    maybe = np.flatnonzero(NOTHING_LENGTHS[np.minimum(sizes, len(NOTHING_LENGTHS) - 1)])
    if len(maybe) * 4 > len(sizes):  # most values are that short: look them all up
        return False
    picked = [*column.values[maybe].tolist(), *(column.values[i] for i in column.others)]
    return NOTHING.isdisjoint(picked)
