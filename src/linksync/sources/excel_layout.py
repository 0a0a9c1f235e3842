"""How a sheet looks, applied to its cells before they are read: merged ranges over
data rows, hidden rows, hidden columns.

calamine gives every cell its stored value, whatever the sheet shows. Three things
make the two differ, and reading the values alone would send something else than the
sheet shows:

- a merged range over data rows (``B5:B7``) stores its value in its first cell only,
  though the sheet shows it on every row it covers: each covered row reads the value
  (``spread_merged``), with a warning naming the range. Columns a range covers beyond
  its first are read as empty (as Excel stores them), said in the same warning when
  they feed a field. Ranges in the header rows (a group cell over a two-row header)
  are left to the header search.
- a hidden row (by the sheet's filter, or by hand) is not seen: it is not read
  (``hide_rows``). Each one holding a value is kept as an empty row with a warning,
  so its report row says "skipped", and one warning for the sheet names them all.
  ``--include-hidden`` (``ReadOptions.include_hidden``) reads them.
- a hidden column is read (it often holds helper data: a slug worked out by a
  formula, an id), with one warning for the sheet naming it (``hidden_columns``).

A sheet skipped for want of a header naming its columns may still hold links (web
addresses typed without a header row): ``unread_links`` names the first, in a warning
a mirror takes as "do not delete" (the sheet may name the link).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from linksync.model import Problem, Provenance, Severity
from linksync.model.links import column_letter
from linksync.sources.columns import ColumnMatch
from linksync.sources.excel_cells import cell_text
from linksync.sources.table import CellIssue
from linksync.sources.xlsx_guard import SheetNotes

#: Hidden rows named in the sheet's warning; the others are counted.
_ROWS_NAMED = 10
#: Note kinds that belong to a cell (``SheetNotes``): moved with a merged range's value.
_CELL_NOTES = ("errors", "formats", "links", "unsaved", "stale")


def _empty(v: Any) -> bool:
    return v is None or v == ""


def _shown(v: Any) -> str:
    text = cell_text(v) or ""
    return f'"{text if len(text) <= 40 else text[:39] + "…"}"'


def _rows_text(first: int, last: int) -> str:
    return f"row {first}" if first == last else f"rows {first}-{last}"


def spread_merged(
    rows: list[list[Any]], notes: SheetNotes, start: int, match: ColumnMatch
) -> list[CellIssue]:
    """Give each merged range over the data rows (from sheet row index ``start``) its
    value on every row it covers, in its first column; the other columns it covers
    read as empty. The first cell's notes (an error value, a formula without a saved
    value...) go with its value. Returns a warning for each row the value was given
    to (every covered row when the range also covers a column that feeds a field)."""
    issues: list[CellIssue] = []
    width = len(rows[0]) if rows else 0
    for r0, c0, r1, c1 in notes.merged:
        if r0 < start or r0 >= len(rows) or c0 >= width:
            continue
        r1, c1 = min(r1, len(rows) - 1), min(c1, width - 1)
        value = rows[r0][c0]
        anchor = {kind: getattr(notes, kind).get((r0, c0)) for kind in _CELL_NOTES}
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                if (r, c) == (r0, c0):
                    continue
                rows[r][c] = value if c == c0 else ""
                for kind, note in anchor.items():
                    found: dict[tuple[int, int], str] = getattr(notes, kind)
                    if c == c0 and note is not None:
                        found[(r, c)] = note
                    else:
                        found.pop((r, c), None)
        fname = match.field_of(c0)
        if fname is None or (_empty(value) and not any(anchor.values())):
            continue
        others = [match.headers[c] for c in range(c0 + 1, c1 + 1) if match.field_of(c)]
        ref = f"{column_letter(c0)}{r0 + 1}:{column_letter(c1)}{r1 + 1}"
        message = f"{ref} is merged: its value {_shown(value)} is read for " + _rows_text(
            r0 + 1, r1 + 1
        )
        if others:
            names = ", ".join(f'"{h}"' for h in others)
            message += f"; the cells it covers in column(s) {names} are read as empty"
        column = match.headers[c0] if c0 != match.fields[fname] else None
        first = r0 if others else r0 + 1
        issues.extend(
            CellIssue(r - start, fname, "MERGED_CELLS", message, Severity.WARNING, column)
            for r in range(first, r1 + 1)
        )
    return issues


def hide_rows(
    rows: list[list[Any]],
    notes: SheetNotes,
    start: int,
    match: ColumnMatch,
    where: Provenance,
) -> tuple[set[int], list[CellIssue], Problem | None]:
    """Empty the hidden data rows (from sheet row index ``start``) that hold a value in
    a column some field reads. Returns their sheet row indexes, a warning on each and
    one warning for the sheet naming them (None when none)."""
    used = match.used
    width = len(rows[0]) if rows else 0
    cols = [c for c in used if c < width]
    hidden = sorted(r for r in notes.hidden_rows if start <= r < len(rows))
    noted = {cell for kind in ("errors", "unsaved", "stale") for cell in getattr(notes, kind)}
    skipped: list[int] = []
    for r in hidden:
        row = rows[r]
        if all(_empty(row[c]) for c in cols) and not any((r, c) in noted for c in cols):
            continue  # a hidden empty row: nothing to read, nothing to say
        for c in cols:
            row[c] = ""
        skipped.append(r)
    if not skipped:
        return set(), [], None
    by = _filter_words(notes, match, skipped)
    each = f"hidden row{f' ({by})' if by else ''}: not read (--include-hidden reads it)"
    issues = [CellIssue(r - start, None, "HIDDEN_ROW", each, Severity.WARNING) for r in skipped]
    named = ", ".join(str(r + 1) for r in skipped[:_ROWS_NAMED])
    more = f" and {len(skipped) - _ROWS_NAMED} more" if len(skipped) > _ROWS_NAMED else ""
    count = "1 hidden row" if len(skipped) == 1 else f"{len(skipped)} hidden rows"
    label = "row" if len(skipped) == 1 else "rows"
    sheet = Problem(
        "HIDDEN_ROW",
        f"{count} skipped ({label} {named}{more}{f': {by}' if by else ''}); --include-hidden "
        f"reads {'it' if len(skipped) == 1 else 'them'}",
        where,
        None,
        Severity.WARNING,
    )
    return set(skipped), issues, sheet


def _filter_words(notes: SheetNotes, match: ColumnMatch, rows: Sequence[int]) -> str:
    """'filtered out by the sheet's filter on "Status"' when every row is inside the
    sheet's filtered range, else ''."""
    if notes.filter is None:
        return ""
    (r0, c0, r1, _), col_ids = notes.filter
    if not col_ids or not all(r0 < r <= r1 for r in rows):
        return ""
    heads = match.headers
    names = [heads[c0 + i] for i in col_ids if 0 <= c0 + i < len(heads) and heads[c0 + i]]
    on = " on " + ", ".join(f'"{n}"' for n in names) if names else ""
    return f"filtered out by the sheet's filter{on}"


def hidden_columns(notes: SheetNotes, match: ColumnMatch, where: Provenance) -> Problem | None:
    """One warning naming the hidden columns that feed a field (they are read)."""
    read = [c for c in match.used if c in notes.hidden_cols]
    if not read:
        return None
    names = ", ".join(
        f'"{match.headers[c]}" ({column_letter(c)}) as {match.field_of(c)}' for c in read
    )
    return Problem(
        "HIDDEN_COLUMN",
        f"hidden column(s) read: {names}; unhide them to see what is sent, or map them "
        'with --map "HEADER=ignore" to leave them out',
        where,
        None,
        Severity.WARNING,
    )


#: What a cell holding a web address starts with.
_WEB = ("http://", "https://")


def skipped_sheet(display: str, sheet: str, rows: list[list[Any]], named: bool) -> Problem:
    """What to say of a sheet without a header naming its columns (``rows``: its cells):
    an error for a sheet ``--sheet`` names; else a warning, ``UNREAD_SHEET`` when it
    holds web addresses (``unread_links``)."""
    unread = None if named else unread_links(display, sheet, rows)
    return unread or Problem(
        "MISSING_URL_COLUMN",
        "sheet skipped: no header row naming a destination URL column "
        '(e.g. "Destination URL") in its first 30 rows',
        Provenance(display, sheet),
        None,
        Severity.ERROR if named else Severity.WARNING,
    )


def unread_links(display: str, sheet: str, rows: list[list[Any]]) -> Problem | None:
    """The warning ``UNREAD_SHEET`` for a sheet skipped without a header (``rows``: its
    cells) that holds web addresses, naming how many and the first; None when it holds
    none (a sheet of notes or lists)."""
    count, first = 0, ""
    for r, row in enumerate(rows):
        for c, v in enumerate(row):
            if isinstance(v, str) and v.lstrip()[:8].lower().startswith(_WEB):
                count += 1
                first = first or f"{column_letter(c)}{r + 1} {_shown(v.strip())}"
    if not count:
        return None
    return Problem(
        "UNREAD_SHEET",
        'sheet skipped: no header row naming a destination URL column (e.g. "Destination '
        f'URL") in its first 30 rows, though it holds {count} web address'
        f"{'' if count == 1 else 'es'} (first: {first}): its rows are not read, and a "
        "mirror deletes nothing while it is unread; add a header row (Back-half, "
        "Destination URL), or name the sheets to read with --sheet",
        Provenance(display, sheet),
        None,
        Severity.WARNING,
    )
