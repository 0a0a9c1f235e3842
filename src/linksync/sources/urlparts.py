"""Cells that become part of the destination URL: the ``utm_*`` columns and a column
read as the whole query (``--map Campaign=query``), checked, then merged into each
row's URL (``merge_utm_checked``).

- Invisible characters (``linksync.rules.find_invisible``, the URL column's own test)
  are taken out before the merge, and each such cell is recorded on the frame
  (``Stripped``): validation makes it an error, INVALID_URL as in the URL column, or
  with ``--fix-invisible`` a warning. So ``news\\u200bletter`` is never sent as
  ``news%E2%80%8Bletter``.
- A ``utm_*`` cell holding a query string (``utm_source=newsletter&utm_medium=email``)
  or a URL is not one value: an error on its cell (UTM_QUERY_VALUE) whose advice is
  to split it into ``utm_*`` columns, or to read the column as the whole query.
- A query cell is ``name=value`` pairs joined by ``&`` (a leading ``?`` allowed,
  values read as a URL writes them: ``+`` and ``%20`` are spaces); anything else is an
  error on its cell (INVALID_FIELD). Each parameter it adds is named on its row
  (URL_PARAM_ADDED), each it replaces too (URL_PARAM_REPLACED, as for ``utm_*``).
- Two columns giving one parameter different values: an error (CONFLICTING_COLUMNS).

A row with an error here keeps its URL as it was: it is invalid, so it is not sent.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import unquote_plus

import numpy as np

from linksync import rules
from linksync.model import Severity
from linksync.sources.aliases import QUERY
from linksync.sources.cleaning import factorize
from linksync.sources.columns import map_flag
from linksync.sources.frame import Stripped, not_none
from linksync.sources.normalize import merge_utm_checked

#: A finding on a row: (index, field, constant, message, severity, column header).
Finding = tuple[int, str, str, str, Severity, str]
#: A parameter of a row: (name, value, the header of its column, from a query column).
_Param = tuple[str, str, str, bool]

_PAIR = re.compile(r"[A-Za-z_][\w.\[\]-]*=[^=]*", re.ASCII)
_URL_START = ("http://", "https://", "www.")


def _map(values: np.ndarray, fn: Any) -> tuple[np.ndarray, list[Any]]:
    """``fn`` once per distinct value: (each value's code, the results by code, None
    last for code -1: a missing value)."""
    codes, uniques = factorize(values)
    return codes, [fn(u) for u in uniques] + [None]


def _by_row(codes: np.ndarray, per_code: list[Any]) -> list[Any]:
    table = np.empty(len(per_code), dtype=object)
    table[:] = per_code
    out: list[Any] = table[codes].tolist()
    return out


def not_one_value(text: str) -> str | None:
    """ "a query string" or "a URL" when a UTM cell holds one, else None."""
    if text[:8].lower().startswith(_URL_START):
        return "a URL"
    body = text.removeprefix("?")
    parts = body.split("&")
    if not all(_PAIR.fullmatch(p) for p in parts):
        return None
    if len(parts) > 1 or text.startswith("?") or parts[0][:4].lower() == "utm_":
        return "a query string"
    return None


def _utm_cell(text: str) -> tuple[str, str | None, bool]:
    """(the value to merge, what it is when not one value, whether it held invisible
    characters)."""
    invisible = bool(rules.find_invisible(text))
    value = rules.strip_invisible(text) if invisible else text
    return value, not_one_value(value), invisible


def _plain(checked: tuple[str, str | None, bool] | None) -> str | None:
    """A utm_* cell's value when it is merged as it is (no invisible character, one
    value, not blank), else None."""
    if checked is None:
        return None
    value, what, invisible = checked
    return value if not invisible and what is None and value.strip() else None


def _query_cell(text: str) -> tuple[tuple[tuple[str, str], ...], str | None, bool]:
    """(the ``(name, value)`` pairs, why it is not a query string, whether it held
    invisible characters)."""
    invisible = bool(rules.find_invisible(text))
    value = rules.strip_invisible(text) if invisible else text
    if value[:8].lower().startswith(_URL_START):
        return (), "is a URL, not a query string (name=value pairs joined by &)", invisible
    body = value.removeprefix("?")
    pairs: list[tuple[str, str]] = []
    for part in body.split("&"):
        if not part.strip():
            continue
        name, eq, val = part.partition("=")
        name = unquote_plus(name).strip()
        if not eq or not name:
            what = "it" if part.strip() == body.strip() else repr(part)
            why = f"is not a query string: {what} is not name=value (pairs are joined by &)"
            return (), why, invisible
        pairs.append((name, unquote_plus(val).strip()))
    return tuple(pairs), None, invisible


def merge_url_parts(
    urls: np.ndarray,
    utm_cols: Mapping[str, np.ndarray],
    query_cols: Sequence[tuple[str, np.ndarray]],
    defaults: Mapping[str, str],
    headers: Mapping[str, str],
) -> tuple[np.ndarray, list[Finding], list[Stripped]]:
    """The URLs with each row's parameters merged (module docstring), the findings on
    rows and the cells whose invisible characters were taken out.

    ``utm_cols``: field -> the cleaned cells of its column; ``query_cols``: (header,
    cleaned cells) of each column read as the query; ``defaults``: a file's ``utm:``
    defaults; ``headers``: utm field -> its column's header."""
    out = urls.copy()
    n = len(urls)
    has_url = np.asarray(not_none(urls), dtype=bool)
    utm: dict[str, tuple[np.ndarray, list[Any]]] = {}
    plain: dict[str, list[Any]] = {}
    slow = np.zeros(n, dtype=bool)  # rows that go through ``_Row``: checks, findings
    for f, col in utm_cols.items():
        codes, checked = _map(col, _utm_cell)
        utm[f] = (col, _by_row(codes, checked))
        plain[f] = _by_row(codes, [_plain(c) for c in checked])
        odd = np.fromiter((c is not None and _plain(c) is None for c in checked), bool)
        slow |= odd[codes]
    queries = []
    for h, col in query_cols:
        codes, checked = _map(col, _query_cell)
        queries.append((h, col, _by_row(codes, checked)))
        slow |= np.asarray(not_none(col), dtype=bool)
    if defaults:
        todo = has_url
    else:
        any_part = np.zeros(n, dtype=bool)
        for col in (*utm_cols.values(), *(c for _, c in query_cols)):
            any_part |= np.asarray(not_none(col), dtype=bool)
        todo = has_url & any_part
    # The usual row (clean utm_* cells, no query column) is merged straight away.
    row = _Row(utm, queries, headers)
    for i in np.flatnonzero(todo).tolist():
        own: dict[str, _Param] | None = None
        if slow[i]:
            own = row.params(i)
            if own is None:
                continue
            row.stripped.extend(row.seen)
            params = {p[0]: p[1] for p in own.values()}
        else:
            params = {f: v for f, vals in plain.items() if (v := vals[i]) is not None}
        out[i], replaced = merge_utm_checked(urls[i], params, defaults)
        for name, old, new in replaced:
            message = f"the URL's {name}={old!r} was replaced by the column's value {new!r}"
            head = own[name.lower()][2] if own else headers.get(name, name)
            row.note(i, "url", "URL_PARAM_REPLACED", message, head, warn=True)
        if own:
            _added(i, own, {name.lower() for name, _, _ in replaced}, row.found)
    return out, row.found, row.stripped


class _Row:
    """The parameters of one row at a time, and the findings of all rows."""

    def __init__(
        self,
        utm: Mapping[str, tuple[np.ndarray, list[Any]]],
        queries: Sequence[tuple[str, np.ndarray, list[Any]]],
        headers: Mapping[str, str],
    ) -> None:
        self.utm, self.queries, self.headers = utm, queries, headers
        self.found: list[Finding] = []
        self.stripped: list[Stripped] = []
        self.seen: list[Stripped] = []  # the current row's cells with invisible characters

    def note(
        self, i: int, fname: str, constant: str, message: str, head: str, *, warn: bool = False
    ) -> None:
        severity = Severity.WARNING if warn else Severity.ERROR
        self.found.append((i, fname, constant, message, severity, head))

    def params(self, i: int) -> dict[str, _Param] | None:
        """Row ``i``'s parameters by lower-case name, or None when a cell is wrong (an
        error noted)."""
        own: dict[str, _Param] = {}
        self.seen = []
        bad = False
        for fname, (col, checked) in self.utm.items():
            if checked[i] is None:
                continue
            value, what, invisible = checked[i]
            head = self.headers.get(fname, fname)
            if invisible:
                self.seen.append(Stripped(i, fname, head, col[i]))
            if what is not None:
                self.note(i, fname, "UTM_QUERY_VALUE", _not_one(col[i], what, fname, head), head)
                bad = True
            elif value.strip():
                own[fname] = (fname, value, head, False)
        for head, col, checked in self.queries:
            if checked[i] is not None:
                bad = self._query(i, head, col[i], checked[i], own) or bad
        return None if bad else own

    def _query(
        self, i: int, head: str, cell: str, checked: tuple[Any, ...], own: dict[str, _Param]
    ) -> bool:
        """Adds a query cell's pairs to ``own``; True when the cell is wrong."""
        pairs, why, invisible = checked
        if invisible:
            self.seen.append(Stripped(i, QUERY, head, cell))
        if why is not None:
            message = (
                f"{_quoted(cell)} {why} (the column is read as the query: {map_flag(head, QUERY)})"
            )
            self.note(i, QUERY, "INVALID_FIELD", message, head)
            return True
        bad = False
        for name, value in pairs:
            had = own.get(name.lower())
            if had is not None and had[1] != value:
                self.note(i, QUERY, "CONFLICTING_COLUMNS", _conflict(name, had, value, head), head)
                bad = True
            elif value:
                own[name.lower()] = (name, value, head, True)
        return bad


def _added(i: int, own: Mapping[str, _Param], changed: set[str], found: list[Finding]) -> None:
    """One finding per query column naming the parameters it added to row ``i``'s URL
    (those it replaced are named by URL_PARAM_REPLACED)."""
    by_column: dict[str, list[str]] = {}
    for low, (name, value, head, from_query) in own.items():
        if from_query and low not in changed:
            by_column.setdefault(head, []).append(f"{name}={value}")
    for head, pairs in by_column.items():
        message = f"added to the destination URL from the query: {', '.join(pairs)}"
        found.append((i, "url", "URL_PARAM_ADDED", message, Severity.WARNING, head))


def _quoted(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def _not_one(text: str, what: str, fname: str, head: str) -> str:
    advice = (
        "put each parameter in its own utm_* column (utm_source, utm_medium, "
        f"utm_campaign...), or read the column as the whole query: {map_flag(head, QUERY)}"
    )
    return f"{_quoted(text)} is {what}, not one {fname} value: {advice}"


def _conflict(name: str, had: _Param, value: str, head: str) -> str:
    return (
        f'columns "{had[2]}" and "{head}" both give {name} and differ on this row '
        f"({had[1]!r} and {value!r}): keep it in one of them"
    )
