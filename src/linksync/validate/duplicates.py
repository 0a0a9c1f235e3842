"""DUPLICATE_IN_SOURCE: the same (domain, slug) declared twice across every frame."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import Any

import numpy as np

from linksync.model import Problem
from linksync.sources.frame import SpecFrame
from linksync.validate.rows import offsets


def duplicates(
    frames: Sequence[SpecFrame], default_domain: str | None
) -> list[tuple[int, str, Problem]]:
    """The same (domain, slug) again, case-insensitively, naming the first row.

    Rows whose lower-cased slugs share a hash are the only candidates (one sort of
    integers); only they are compared by (domain, slug), in source order."""
    lowered: list[list[str]] = []
    positions: list[np.ndarray | range] = []  # a frame whose every row has a slug: a range
    for frame, offset in offsets(frames):
        column, mask = frame.values["slug"], frame.is_set("slug")
        rows: np.ndarray | range
        if mask.all():
            cells, rows = column.tolist(), range(offset, offset + len(column))
        else:
            idx = np.flatnonzero(mask)
            cells, rows = column[idx].tolist(), idx + offset
        if cells:
            lowered.append(_lower_all(cells))
            positions.append(rows)
    if not positions:
        return []
    # One frame (the usual run): its list and positions as they are, no copy.
    slugs = lowered[0] if len(lowered) == 1 else list(chain.from_iterable(lowered))
    allpos = positions[0] if len(positions) == 1 else np.concatenate(positions)
    hashes = np.fromiter(map(hash, slugs), dtype=np.int64, count=len(slugs))
    ordered = np.sort(hashes)
    tied = ordered[1:][ordered[1:] == ordered[:-1]]  # sorted: each distinct one kept once
    tied = tied[np.concatenate([[True], tied[1:] != tied[:-1]])] if len(tied) else tied
    if not len(tied):
        return []
    # Rows whose hash another row shares: a table of 2**22 marks by the hash's low bits
    # (a lookup in cache, where a binary search of every hash is not), then exactly.
    marks = np.zeros(_MARKS, dtype=bool)
    marks[tied & (_MARKS - 1)] = True
    maybe = np.flatnonzero(marks[hashes & (_MARKS - 1)])
    candidates = maybe[np.isin(hashes[maybe], tied)]
    default = (default_domain or "").lower()
    first: dict[tuple[str, str], int] = {}
    out: list[tuple[int, str, Problem]] = []
    for k in candidates.tolist():
        pos = int(allpos[k])
        frame, i = _at(frames, pos)
        domain = frame.values["domain"][i]
        key = (default if domain is None else _lower(domain), slugs[k])
        first_pos = first.setdefault(key, pos)
        if first_pos == pos:
            continue
        prov = frame.provenance(i)
        held, j = _at(frames, first_pos)
        where = held.provenance(j).where()
        shown = f"{key[0] or '(default domain)'}/{key[1]}"
        message = f"{shown} is declared twice; first at {where}"
        out.append((pos, "slug", Problem("DUPLICATE_IN_SOURCE", message, prov, "slug")))
    return out


_MARKS = 1 << 22


def _at(frames: Sequence[SpecFrame], pos: int) -> tuple[SpecFrame, int]:
    """The frame holding the row at ``pos`` (among all rows), and the row's index in it."""
    for frame, offset in offsets(frames):
        if offset <= pos < offset + len(frame):
            return frame, pos - offset
    raise IndexError(pos)


def _lower(v: Any) -> str:
    return str(v).lower()


def _lower_all(values: list[Any]) -> list[str]:
    """Lower-cased text of every value (one joined string when the values allow; the
    values themselves when none has an upper-case letter)."""
    try:
        big = "\n".join(values)
    except TypeError:
        return [_lower(v) for v in values]
    if big.count("\n") != len(values) - 1:
        return [_lower(v) for v in values]
    low = big.lower()
    if low == big:
        return values
    return low.split("\n") if values else []
