"""Cells of one sheet (CSV or Excel) -> a SpecFrame.

Shared by the CSV and Excel readers once they have found the header and turned cells
into text (dates into datetimes): columns are cleaned (ASCII whitespace trimmed, empty
cells and the user's ``--empty-value`` placeholders -> None = not managed), tags split,
expiries normalised, a short URL column split into domain and slug
(``linksync.sources.shortlinks``), UTM columns and a column read as the query merged
into the URL (``linksync.sources.urlparts``).

Nothing is dropped or changed in silence: several tags columns are merged; two columns
of one field that disagree on a row are an error on that row when they mean the same
(equal alias rank), else one warning for the sheet naming the column that wins; a
UTM column replacing the same parameter in the URL says so on the row; a short link
that cannot be split or disagrees with the slug is an error; a row-state column
speaks on each row where it asks for something else than sending it
(``linksync.sources.rowstates``); a second table under the first is an error on its
rows (``linksync.sources.repeats``); a loose header word not read is a warning
(``linksync.sources.column_report``, which also records the mapping on the frame); and
every ``CellIssue`` a reader found (an Excel error cell, a date where a slug was
expected, an extra value beyond the header) becomes a problem on its row, the row kept
even when nothing else is left in it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from linksync.model import LINK_FIELDS, Problem, Provenance, Severity
from linksync.rules.timestamps import zone_name
from linksync.sources.aliases import QUERY, ROW_STATE, SHORT_URL, UTM_FIELDS
from linksync.sources.cleaning import ASCII_WS, clean_column, factorize
from linksync.sources.column_report import column_report, held_guesses
from linksync.sources.columns import ColumnMatch
from linksync.sources.date_hints import column_dates
from linksync.sources.frame import SpecFrame, Stripped, not_none
from linksync.sources.options import ReadOptions
from linksync.sources.repeats import repeated_headers, section_titles
from linksync.sources.rowstates import state_cells, state_message

if TYPE_CHECKING:
    from linksync.sources.normalize import Oddness

# The tags, expiry, short-URL and UTM/query columns' readers (``normalize``,
# ``shortlinks``, ``urlparts``) are imported where a sheet has such a column: a sheet
# of slugs, URLs and descriptions reads without them.


@dataclass(frozen=True, slots=True)
class CellIssue:
    """A reader's finding about one data row: ``index`` counts data rows from 0 (before
    empty rows are dropped); ``column`` names the column when ``field`` does not."""

    index: int
    field: str | None
    constant: str
    message: str
    severity: Severity = Severity.ERROR
    column: str | None = None


def map_distinct(series: Any, fn: Callable[[Any], Any]) -> np.ndarray:
    """``fn`` applied once per distinct non-missing value; missing stays None.

    Returns an object array aligned with ``series``.
    """
    codes, uniques = factorize(series)
    mapped = np.empty(len(uniques) + 1, dtype=object)
    mapped[:-1] = [fn(u) for u in uniques]
    mapped[-1] = None
    out: np.ndarray = mapped[codes]
    return out


def _tags(values: np.ndarray) -> np.ndarray:
    from linksync.sources.normalize import split_tags

    def one(text: str) -> tuple[str, ...] | None:
        return split_tags(text) or None

    return map_distinct(values, one)


def _lower(values: np.ndarray) -> np.ndarray:
    return map_distinct(values, lambda v: str(v).lower())


class _Builder:
    """One sheet's columns -> values, collecting issues and sheet-level problems."""

    def __init__(self, source: str, sheet: str | None, match: ColumnMatch, opts: ReadOptions):
        self.source, self.sheet, self.match, self.opts = source, sheet, match, opts
        self.issues: list[CellIssue] = []
        self.problems: list[Problem] = []

    def clean(self, fname: str, raw: Any, col: int = -1) -> tuple[np.ndarray, np.ndarray]:
        if fname == "expires_at":
            head = self.match.headers[col] if col >= 0 else ""
            where = Provenance(self.source, self.sheet)
            opts, said = column_dates(self.opts, self.match.hints.get(col), head, where)
            self.problems.extend([said] if said is not None else [])
            out = _expiry(raw, opts, self.issues)
            return out, not_none(out)
        return clean_column(raw, self.opts.empty_values)

    def merge(self, fname: str, raws: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        """The field's column (several merged) and which of its values are set."""
        cols = self.match.columns_of(fname)
        merged, have = self.clean(fname, raws[0], cols[0])
        for col, raw in zip(cols[1:], raws[1:], strict=False):
            extra, more = self.clean(fname, raw, col)
            both = np.flatnonzero(have & more)
            if fname == "tags":
                if len(both):
                    merged[both] = [
                        f"{a}\n{b}" for a, b in zip(merged[both], extra[both], strict=True)
                    ]
            elif len(both):
                self._conflicts(fname, cols[0], col, merged, extra, both)
            gaps = ~have & more
            if gaps.any():
                merged[gaps] = extra[gaps]
            have = have | more
        return merged, have

    def _conflicts(
        self,
        fname: str,
        main: int,
        col: int,
        merged: np.ndarray,
        extra: np.ndarray,
        both: np.ndarray,
    ) -> None:
        differ = both[np.asarray(merged[both] != extra[both], dtype=bool)]
        if not len(differ):
            return
        heads = self.match.headers
        a, b = heads[main], heads[col]
        if self.match.ranks.get(main) == self.match.ranks.get(col):
            for k in differ.tolist():
                self.issues.append(
                    CellIssue(
                        k,
                        fname,
                        "CONFLICTING_COLUMNS",
                        f'columns "{a}" and "{b}" both give the {fname} and differ on this '
                        f"row ({_short(merged[k])} and {_short(extra[k])}); keep one column, "
                        f'or map the other with --map "{b}=ignore"',
                    )
                )
            return
        self.problems.append(
            Problem(
                "CONFLICTING_COLUMNS",
                f'columns "{a}" and "{b}" both give the {fname}: "{a}" is used and "{b}" '
                f"only fills its empty cells; they differ on {len(differ)} row(s), "
                f"e.g. {_short(merged[differ[0]])} and {_short(extra[differ[0]])} "
                f'(map one with --map "{b}=ignore" to silence this)',
                Provenance(self.source, self.sheet),
                None,
                Severity.WARNING,
                b,
            )
        )


def _short(value: Any) -> str:
    text = str(value)
    return repr(text if len(text) <= 60 else text[:59] + "…")


def build_frame(
    source: str,
    sheet: str | None,
    columns: Mapping[str, Sequence[Any]],
    first_row: int,
    match: ColumnMatch,
    *,
    utm_defaults: Mapping[str, str] | None = None,
    issues: Sequence[CellIssue] = (),
    options: ReadOptions | None = None,
) -> tuple[SpecFrame, list[Problem]]:
    """``columns`` maps field -> raw columns (text, or datetimes for expiry) in the
    order of ``match.columns_of``. Returns the frame and sheet-level problems.

    ``first_row`` is the spreadsheet row (1-based) of the first data row. Rows where
    every mapped cell is empty are dropped (blank lines, trailing rows) unless an issue
    names them.
    """
    b = _Builder(source, sheet, match, options or ReadOptions())
    extra = {f: columns[f] for f in (ROW_STATE, QUERY) if f in columns}
    merged = {fname: b.merge(fname, raws) for fname, raws in columns.items() if fname not in extra}
    cleaned = {f: a for f, (a, _) in merged.items()}
    present = {f: m for f, (_, m) in merged.items()}
    # The row-state columns are read only to warn: what a reader found in their cells
    # (a boolean, an error value) is not a problem of the row.
    found = [x for x in (*issues, *b.issues) if x.field != ROW_STATE]
    n = len(next(iter(cleaned.values()))) if cleaned else 0
    sides = {f: [b.clean(f, raw)[0] for raw in raws] for f, raws in extra.items()}
    for arrays in sides.values():
        for a in arrays:
            n = max(n, len(a))
    beyond = max((i.index + 1 for i in found), default=0)
    n = max(n, beyond)
    cleaned = {f: _pad(a, n) for f, a in cleaned.items()}
    present = {f: _pad(m, n, False) for f, m in present.items()}
    sides = {f: [_pad(a, n) for a in arrays] for f, arrays in sides.items()}
    # A second table under the first: its header row and the rows under it are errors,
    # and nothing else is said about them.
    second = repeated_headers(cleaned, present, match.headers, first_row)
    found += [CellIssue(k, None, "REPEATED_HEADER", message) for k, message in second]
    # A title between rows of links ("Old links (do not use)"): it and the rows under it.
    titled = section_titles(cleaned, present, first_row, min((k for k, _ in second), default=n))
    found += [CellIssue(k, None, "SECTION_TITLE", message) for k, message in titled]
    second += titled
    rows = np.arange(first_row, first_row + n, dtype=np.int64)
    keep = np.arange(n)
    nonempty = np.zeros(n, dtype=bool)
    for mask in present.values():
        nonempty |= mask
    for a in sides.get(QUERY, ()):
        nonempty |= not_none(a)
    for issue in found:
        if 0 <= issue.index < n:
            nonempty[issue.index] = True
    if not nonempty.all():
        keep = np.flatnonzero(nonempty)
        cleaned = {f: a[keep] for f, a in cleaned.items()}
        present = {f: m[keep] for f, m in present.items()}
        sides = {f: [a[keep] for a in arrays] for f, arrays in sides.items()}
        rows = rows[keep]
        n = len(rows)

    late: list[tuple[int, CellIssue]] = []
    if ROW_STATE in sides:
        states = [match.headers[c] for c in match.columns_of(ROW_STATE)]
        for i, head, value in state_cells(states, sides[ROW_STATE]):
            message = state_message(head, value)
            late.append(
                (i, CellIssue(-1, None, "ROW_STATE_COLUMN", message, Severity.WARNING, head))
            )
    values: dict[str, np.ndarray] = {f: cleaned[f] for f in LINK_FIELDS if f in cleaned}
    if "tags" in values:
        values["tags"] = _tags(values["tags"])  # a cell of separators only: no tags
        present["tags"] = not_none(values["tags"])
    if "domain" in values:
        values["domain"] = _lower(values["domain"])
    heads = {f: match.header_of(f) for f in match.fields}
    if SHORT_URL in cleaned:
        from linksync.sources.shortlinks import split_short

        late += _found(split_short(cleaned[SHORT_URL], values, n, heads))
        present["slug"], present["domain"] = not_none(values["slug"]), not_none(values["domain"])

    stripped: list[Stripped] = []
    utm_cols = {f: cleaned[f] for f in UTM_FIELDS if f in cleaned}
    query_heads = [match.headers[c] for c in match.columns_of(QUERY)] if QUERY in sides else []
    queries = list(zip(query_heads, sides.get(QUERY, []), strict=True))
    if ("url" in values) and (utm_cols or queries or utm_defaults):
        from linksync.sources.urlparts import merge_url_parts

        values["url"], merged_found, stripped = merge_url_parts(
            values["url"], utm_cols, queries, utm_defaults or {}, heads
        )
        late += _found(merged_found)

    # Which values are set, known already for every field the steps above kept as is
    # (lower-casing a domain, merging UTM parameters into a URL keep None as None).
    managed = {f: present[f] for f in values if f in present}
    frame = SpecFrame.from_columns(
        source,
        sheet,
        rows,
        values,
        match.provenance_columns,
        managed=managed,
        timezone=zone_name(b.opts.timezone) if b.opts.timezone is not None else None,
    )
    if second:
        dead = set(np.searchsorted(keep, [k for k, _ in second]).tolist())
        late = [(i, x) for i, x in late if i not in dead]
    at = np.searchsorted(keep, [x.index for x in found]).tolist()
    attached = [
        (k, x) for k, x in zip(at, found, strict=True) if k < n and keep[k] == x.index
    ] + late
    attached.sort(key=lambda t: t[0])
    row_problems = tuple(
        (i, Problem(x.constant, x.message, frame.provenance(i), x.field, x.severity, x.column))
        for i, x in attached
    )
    frame = replace(
        frame,
        row_problems=row_problems,
        stripped=tuple(stripped),
        column_report=column_report(source, sheet, match),
    )
    return frame, [*held_guesses(source, sheet, match), *b.problems]


def _pad(a: np.ndarray, n: int, fill: Any = None) -> np.ndarray:
    """``a`` made ``n`` long with ``fill`` (rows a reader could not read: kept, empty)."""
    if len(a) >= n:
        return a
    return np.concatenate([a, np.full(n - len(a), fill, dtype=a.dtype)])


def _found(
    findings: Sequence[tuple[int, str, str, str, Severity, str]],
) -> list[tuple[int, CellIssue]]:
    """Findings on rows (index in the frame, field, constant, message, severity, column)
    as issues to attach."""
    return [(i, CellIssue(-1, f, c, m, s, col)) for i, f, c, m, s, col in findings]


def _expiry(raw: Any, opts: ReadOptions, issues: list[CellIssue]) -> np.ndarray:
    """The expiry column normalised (``normalize_expiry`` in the run's zone); a local
    time the zone skips or repeats is named on its row in ``issues``."""
    from linksync.sources.normalize import read_expiry

    odd: dict[Any, Oddness] = {}  # value -> what is odd about it in the zone

    def norm(v: Any) -> str:
        text, found = read_expiry(v, opts.date_format, opts.timezone)
        if found is not None:
            odd[v] = found
        return text

    try:
        text = clean_column(raw, opts.empty_values, text_only=True)[0]
    except TypeError:  # datetimes (Excel), missing cells
        vals: list[Any] = raw.tolist() if hasattr(raw, "tolist") else list(raw)
    else:
        out = map_distinct(text, norm)
        if odd:
            _oddities(list(text), odd, issues)
        return out

    def one(v: Any) -> Any:
        if v is None or (isinstance(v, float) and v != v):
            return None
        if isinstance(v, str):
            v = v.strip(ASCII_WS)
            return norm(v) if v and not opts.is_empty_value(v) else None
        return norm(v)

    result = np.empty(len(vals), dtype=object)
    result[:] = [one(v) for v in vals]
    if odd:
        cells = [v.strip(ASCII_WS) if isinstance(v, str) else v for v in vals]
        _oddities(cells, odd, issues)
    return result


def _oddities(cells: list[Any], odd: dict[Any, Oddness], issues: list[CellIssue]) -> None:
    """Each expiry cell whose value names a local time the run's zone skips (an error)
    or repeats (a warning), as an issue on its row."""
    for k, v in enumerate(cells):
        try:
            found = odd.get(v)
        except TypeError:  # a cell that cannot be hashed
            continue
        if found is not None:
            constant, message, error = found
            severity = Severity.ERROR if error else Severity.WARNING
            issues.append(CellIssue(k, "expires_at", constant, message, severity))


def unknown_column_problem(source: str, sheet: str | None, headers: Sequence[str]) -> Problem:
    """One warning naming the unknown columns of a sheet (at most 20 of them)."""
    names = ", ".join(f'"{h}"' for h in headers[:20])
    more = f" and {len(headers) - 20} more" if len(headers) > 20 else ""
    return Problem(
        "UNKNOWN_COLUMN",
        f"unknown column(s) ignored: {names}{more} (map them with --map HEADER=FIELD or a "
        "profile's columns: block)",
        Provenance(source, sheet),
        None,
        Severity.WARNING,
        headers[0] if len(headers) == 1 else None,
    )
