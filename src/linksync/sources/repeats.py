"""Two tables on one sheet: a row inside the data that repeats the header.

People stack a second table under the first one (a title row, then the header again,
then its rows). Read with the first table's header, its rows would be sent with the
wrong columns. So a data row whose cells are column names is an error on that row,
"two tables on one sheet", and every row under it is an error too, not read as a row
of the first table (errors rather than skipped rows: they stay in the reports, and an
invalid row still protects its link from a mirror's deletes). A title row right
above the repeated header (one cell filled, no URL) belongs to the second table too.

A title between rows of links splits the sheet too: after an empty row, one cell
filled that is no link value ("Old links (do not use)", "DO NOT USE BELOW THIS LINE",
"Archive" in the Description column), with rows under it. What the rows under such a
title mean is the title's to say, so the title row and every row under it are errors
(``SECTION_TITLE``), as under a repeated header. A lone cell that could be a slug, a
URL or a domain (a row whose URL was forgotten) is no title, nor is a note with no row
under it, nor a title above the first row of links.

A row repeats the header when the cell of its key column (the URL, else the slug,
else the short link) is a column name, and at least two of its filled cells, more
than half of them, are: the header's own words, or any header linksync knows
(``columns.is_header_word``), so a second table with other columns is found too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import pairwise, repeat
from operator import contains

import numpy as np

from linksync.sources.aliases import SHORT_URL
from linksync.sources.columns import is_header_word, normalize_header

#: (data row index, message) of each row the repeat concerns.
RepeatCell = tuple[int, str]

_SPLIT = "two tables on one sheet"
#: Fields a lone cell of a row of links may hold (a row whose URL was forgotten).
_KEYS = frozenset({"url", "slug", "domain", SHORT_URL})


def _word(value: object, own: frozenset[str]) -> bool:
    """Whether a cell is a column name (read on every cell of the key column: the usual
    URL or slug is told apart without a regular expression)."""
    if not isinstance(value, str) or len(value) > 60 or "://" in value:
        return False
    plain = value.replace("-", "").replace(" ", "").replace("_", "")
    key = plain.casefold() if plain.isalnum() else normalize_header(value)
    return bool(key) and (key in own or is_header_word(key))


def repeated_headers(
    values: Mapping[str, np.ndarray],
    present: Mapping[str, np.ndarray],
    headers: Sequence[str],
    first_row: int,
) -> list[RepeatCell]:
    """The rows of a second table (module docstring): ``values`` and ``present`` per
    field, every data row (before empty rows are dropped); ``headers`` the sheet's
    header texts; ``first_row`` the sheet row of data row 0."""
    key = next((f for f in ("url", "slug", SHORT_URL) if f in values), None)
    if key is None or len(values) < 2:
        return []
    own = frozenset(normalize_header(h) for h in headers if h)
    column = values[key]
    cells = column.tolist()
    try:  # every cell a URL (the usual key column): no cell is a column name
        if all(map(contains, cells, repeat("://"))):
            return []
    except TypeError:  # empty cells (None)
        pass
    candidates = [  # a URL (the usual key) is no column name: told apart inline
        i
        for i, v in enumerate(cells)
        if v is not None and not (v.__class__ is str and "://" in v) and _word(v, own)
    ]
    repeats = [i for i in candidates if _repeats(i, values, present, own)]
    if not repeats:
        return []
    found: list[RepeatCell] = []
    n = len(column)
    for k, r in enumerate(repeats):
        row = first_row + r
        if k == 0 and r > 0 and _title(r - 1, values, present):
            found.append(
                (
                    r - 1,
                    f"{_SPLIT}: this row reads as the title of a second table (row {row} "
                    "repeats the header); split them into two sheets",
                )
            )
        found.append((r, f"{_SPLIT}: row {row} repeats the header; split them into two sheets"))
        end = repeats[k + 1] if k + 1 < len(repeats) else n
        for i in range(r + 1, end):
            if any(bool(m[i]) for m in present.values()):
                found.append(
                    (
                        i,
                        f"{_SPLIT}: this row is under the header repeated at row {row}, so it "
                        "is not read as a row of the first table; split them into two sheets",
                    )
                )
    return found


def section_titles(
    values: Mapping[str, np.ndarray], present: Mapping[str, np.ndarray], first_row: int, end: int
) -> list[RepeatCell]:
    """The title row splitting the data rows before ``end`` (module docstring) and the
    rows under it, with what to say of each."""
    filled = np.zeros(end, dtype=bool)
    for mask in present.values():
        filled |= mask[:end]
    rows = np.flatnonzero(filled).tolist()
    for above, i in pairwise(rows):
        if i == above + 1 or i == rows[-1] or not _section(i, values, present):
            continue
        title = _short(next(str(values[f][i]) for f, m in present.items() if m[i]))
        row = first_row + i
        found = [
            (
                i,
                f"this row reads as a title ({title}: one cell, after an empty row) that "
                "splits the rows of links: the rows under it are not sent; delete this row "
                "if they belong with the rows above, or move them to a sheet of their own",
            )
        ]
        found += [
            (
                k,
                f"this row is under the title at row {row} ({title}), which may say it is "
                f"not to be sent: it is not sent; delete row {row} if it belongs with the "
                "rows above",
            )
            for k in rows
            if k > i
        ]
        return found
    return []


def _section(i: int, values: Mapping[str, np.ndarray], present: Mapping[str, np.ndarray]) -> bool:
    """Row ``i`` is one cell that is no link value: words, or text in a column that
    holds no slug, URL or domain."""
    filled = [f for f, m in present.items() if m[i]]
    if len(filled) != 1:
        return False
    text = str(values[filled[0]][i])
    if "://" in text:
        return False
    return any(c.isspace() for c in text) or filled[0] not in _KEYS


def _short(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:39] + "…")


def _repeats(
    i: int, values: Mapping[str, np.ndarray], present: Mapping[str, np.ndarray], own: frozenset[str]
) -> bool:
    filled = [f for f, m in present.items() if m[i]]
    words = sum(1 for f in filled if _word(values[f][i], own))
    return words >= 2 and words * 2 > len(filled)


def _title(i: int, values: Mapping[str, np.ndarray], present: Mapping[str, np.ndarray]) -> bool:
    filled = [f for f, m in present.items() if m[i]]
    return len(filled) == 1 and "://" not in str(values[filled[0]][i])
