"""The header of a sheet: one row, or two rows read as one.

Campaign sheets often carry a two-row header: a group cell merged over some columns
("UTM" above Source, Medium, Campaign) and the real names below it, while the other
columns (Destination URL, Slug) are merged down over both rows. Read row by row, the
group row hides the UTM columns or the lower row hides the URL column, so the
parameters are dropped or the row below the header is read as a link.

``find_header`` finds the best header row (``columns.find_header_row``), then tries it
with the row below it and with the row above it. Two rows are read as one header when
the combined row (the lower cell where there is one, else the upper cell) names more
known columns than the single row, and every cell the other row brings is a known
column name: so a title row, a row of instructions or a first data row is never
merged in. The header text of a column is its lower cell when it has one; under a
group cell that says "UTM" ("UTM", "UTM parameters"), a loose word is read as the UTM
parameter it names there: "Source" under "UTM" is "UTM Source" (``utm_source``), which
alone would be a guess not read (``linksync.sources.aliases.LOOSE``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import zip_longest

from linksync.sources.aliases import UTM_FIELDS
from linksync.sources.columns import (
    find_header_row,
    header_key,
    header_score,
    known_field,
    normalize_header,
)

#: Group cells (normalised) that make the words under them UTM parameters.
_UTM_GROUPS = frozenset({"utm", "utms", "utmparameters", "utmparams", "utmtags", "utmcodes"})


@dataclass(frozen=True, slots=True)
class Header:
    """Where the header is: ``first`` and ``last`` row index (equal for one row), and
    the header cells (combined for two rows)."""

    first: int
    last: int
    cells: tuple[object, ...]

    @property
    def data_start(self) -> int:
        """Index of the first data row."""
        return self.last + 1


def _text(cell: object) -> str:
    return cell.strip() if isinstance(cell, str) else ("" if cell is None else str(cell))


def _looks_like_data(row: Sequence[object]) -> bool:
    return any(_text(cell).lower().startswith(("http://", "https://", "www.")) for cell in row)


def _combine(
    upper: Sequence[object], lower: Sequence[object], bring: str, explicit: Mapping[str, str]
) -> tuple[object, ...] | None:
    """The two rows as one, or None when the row that brings cells (``bring`` is
    "upper" or "lower") brings anything but known column names."""
    out: list[object] = []
    brought = 0
    for up, low in zip_longest(upper, lower, fillvalue=""):
        low_text = _text(low)
        cell = low if low_text else up
        out.append(cell)
        from_other = (bring == "lower" and low_text) or (bring == "upper" and not low_text)
        text = _text(cell)
        if from_other and text:
            if not known_field(header_key(text, explicit), explicit):
                return None
            brought += 1
    return _under_groups(upper, lower, out) if brought else None


def _under_groups(
    upper: Sequence[object], lower: Sequence[object], out: list[object]
) -> tuple[object, ...]:
    """``out`` with each lower cell under a "UTM" group cell (itself, or a cell merged
    over it: empty above, filled below) named as that UTM parameter."""
    group = ""
    for i, (up, low) in enumerate(zip_longest(upper, lower, fillvalue="")):
        up_text, low_text = _text(up), _text(low)
        if up_text:
            group = normalize_header(up_text)
        elif not low_text:
            group = ""
        if low_text and group in _UTM_GROUPS:
            named = f"UTM {low_text}"
            if known_field(normalize_header(named)) in UTM_FIELDS:
                out[i] = named
    return tuple(out)


def find_header(
    rows: Sequence[Sequence[object]],
    *,
    explicit: Mapping[str, str] | None = None,
) -> Header | None:
    """The header of a sheet (see module docstring), or None when there is none."""
    known = dict(explicit or {})
    h = find_header_row(rows, explicit=known)
    if h is None:
        return None
    best = Header(h, h, tuple(rows[h]))
    best_score = header_score(rows[h], known)
    pairs = []
    if h + 1 < len(rows):
        pairs.append((h, h + 1, "lower"))
    if h >= 1:
        pairs.append((h - 1, h, "upper"))
    for top, bottom, bring in pairs:
        other = rows[bottom] if bring == "lower" else rows[top]
        if _looks_like_data(other):
            continue
        cells = _combine(rows[top], rows[bottom], bring, known)
        if cells is None:
            continue
        score = header_score(cells, known)
        if score > best_score:
            best, best_score = Header(top, bottom, cells), score
    return best
