"""Cells of one sheet (CSV or Excel) -> a SpecFrame.

Shared by the CSV and Excel readers once they have found the header row and turned
cells into text (dates into datetimes): columns are cleaned (ASCII whitespace trimmed,
empty cells -> None = not managed), tags split, expiries normalised, a short URL column
split into domain and slug, UTM columns merged into the URL.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from linksync.model import LINK_FIELDS, Problem, Provenance, Severity
from linksync.sources.columns import SHORT_URL, UTM_FIELDS, ColumnMatch
from linksync.sources.frame import SpecFrame
from linksync.sources.normalize import (
    map_distinct,
    merge_utm,
    normalize_expiry,
    split_short_url,
    split_tags,
)

_ASCII_WS = " \t\r\n"


_SEP = "\x1f"
_EDGES = tuple(f"{w}{_SEP}" for w in _ASCII_WS) + tuple(f"{_SEP}{w}" for w in _ASCII_WS)


def clean_text(column: Any) -> np.ndarray:
    """Object array of trimmed strings, None for empty or missing cells.

    Only ASCII whitespace is trimmed: a no-break space or a zero-width space is left
    in place for validation to name. The whole column is tested at once (one joined
    string): values are stripped one by one only when some value needs it.
    """
    arr = column.to_numpy(dtype=object) if isinstance(column, pd.Series) else column
    out: np.ndarray = np.asarray(arr, dtype=object).copy()
    missing = np.asarray(pd.isna(out), dtype=bool)
    if missing.any():
        out[missing] = ""
    if set(map(type, out.tolist())) - {str}:
        out[:] = [v if isinstance(v, str) else str(v) for v in out.tolist()]
    vals: list[str] = out.tolist()
    big = _SEP.join(vals)
    at_ends = bool(big) and (big[0] in _ASCII_WS or big[-1] in _ASCII_WS)
    if at_ends or any(edge in big for edge in _EDGES):
        out[:] = [v.strip(_ASCII_WS) for v in vals]
    out[out == ""] = None
    return out


def _tags(values: np.ndarray) -> np.ndarray:
    def one(text: str) -> tuple[str, ...] | None:
        return split_tags(text) or None

    return map_distinct(pd.Series(values, dtype=object), one)


def _lower(values: np.ndarray) -> np.ndarray:
    return map_distinct(pd.Series(values, dtype=object), lambda v: str(v).lower())


def build_frame(
    source: str,
    sheet: str | None,
    columns: Mapping[str, Sequence[Any]],
    first_row: int,
    match: ColumnMatch,
    *,
    utm_defaults: Mapping[str, str] | None = None,
) -> SpecFrame:
    """``columns`` maps field -> raw columns (text, or datetimes for expiry), best
    first: a later column fills the cells the earlier ones leave empty.

    ``first_row`` is the spreadsheet row (1-based) of the first data row. Rows where
    every mapped cell is empty are dropped (blank lines, trailing rows).
    """
    cleaned: dict[str, np.ndarray] = {}
    for fname, raws in columns.items():
        clean = _expiry if fname == "expires_at" else clean_text
        merged = clean(raws[0])
        for extra in raws[1:]:
            gaps = np.asarray(pd.isna(merged), dtype=bool)
            if gaps.any():
                merged[gaps] = clean(extra)[gaps]
        cleaned[fname] = merged
    n = len(next(iter(cleaned.values()))) if cleaned else 0
    rows = np.arange(first_row, first_row + n, dtype=np.int64)

    if cleaned:
        nonempty = np.zeros(n, dtype=bool)
        for arr in cleaned.values():
            nonempty |= np.asarray(pd.notna(arr), dtype=bool)
        if not nonempty.all():
            keep = np.flatnonzero(nonempty)
            cleaned = {f: a[keep] for f, a in cleaned.items()}
            rows = rows[keep]
            n = len(rows)

    values: dict[str, np.ndarray] = {f: cleaned[f] for f in LINK_FIELDS if f in cleaned}
    if "tags" in values:
        values["tags"] = _tags(values["tags"])
    if "domain" in values:
        values["domain"] = _lower(values["domain"])
    if SHORT_URL in cleaned:
        _split_short(cleaned[SHORT_URL], values, n)

    utm_cols = {f: cleaned[f] for f in UTM_FIELDS if f in cleaned}
    if ("url" in values) and (utm_cols or utm_defaults):
        values["url"] = _apply_utm(values["url"], utm_cols, utm_defaults or {})

    prov_columns = match.provenance_columns
    return SpecFrame.from_columns(source, sheet, rows, values, prov_columns)


def _expiry(raw: Any) -> np.ndarray:
    s = pd.Series(raw, dtype=object)
    is_text = s.map(lambda v: isinstance(v, str)) if s.dtype == object else None
    if is_text is not None and bool(is_text.all()):
        text = clean_text(s)
        return map_distinct(pd.Series(text, dtype=object), normalize_expiry)

    def one(v: Any) -> Any:
        if v is None or (isinstance(v, float) and np.isnan(v)):
            return None
        if isinstance(v, str):
            v = v.strip(_ASCII_WS)
            return normalize_expiry(v) if v else None
        return normalize_expiry(v)

    out = np.empty(len(s), dtype=object)
    out[:] = [one(v) for v in s.tolist()]
    return out


def _split_short(short: np.ndarray, values: dict[str, np.ndarray], n: int) -> None:
    parts = map_distinct(pd.Series(short, dtype=object), split_short_url)
    domain = values.get("domain")
    slug = values.get("slug")
    new_domain = domain.copy() if domain is not None else np.full(n, None, dtype=object)
    new_slug = slug.copy() if slug is not None else np.full(n, None, dtype=object)
    for i in np.flatnonzero(pd.notna(parts)).tolist():
        host, path = parts[i]
        if new_domain[i] is None:
            new_domain[i] = host
        if new_slug[i] is None:
            new_slug[i] = path
    values["domain"] = new_domain
    values["slug"] = new_slug


def _apply_utm(
    urls: np.ndarray, utm_cols: Mapping[str, np.ndarray], defaults: Mapping[str, str]
) -> np.ndarray:
    """Merge row UTM cells (over file defaults) into each URL that has any."""
    out = urls.copy()
    n = len(urls)
    has_url = np.asarray(pd.notna(urls), dtype=bool)
    if defaults:
        todo = has_url
    else:
        any_utm = np.zeros(n, dtype=bool)
        for arr in utm_cols.values():
            any_utm |= np.asarray(pd.notna(arr), dtype=bool)
        todo = has_url & any_utm
    names: Sequence[str] = UTM_FIELDS
    for i in np.flatnonzero(todo).tolist():
        params: dict[str, str | None] = {}
        for fname in names:
            col = utm_cols.get(fname)
            cell = col[i] if col is not None else None
            params[fname] = cell if cell is not None else defaults.get(fname)
        out[i] = merge_utm(urls[i], params)
    return out


def unknown_column_problem(source: str, sheet: str | None, headers: Sequence[str]) -> Problem:
    """One warning naming every unknown column of a sheet."""
    names = ", ".join(f'"{h}"' for h in headers)
    return Problem(
        "INVALID_FIELD",
        f"unknown column(s) ignored: {names} (map them with a profile's columns: block)",
        Provenance(source, sheet),
        None,
        Severity.WARNING,
    )
