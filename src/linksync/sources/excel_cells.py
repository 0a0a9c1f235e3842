"""Excel cells -> text, saying so when a cell is not what it shows.

calamine gives each cell's value. What the user sees can differ, and reading the value
alone would send something else than the sheet shows, in silence:

- a number shown through a number format: ``7`` with format ``000`` shows ``007``.
  A zero-padding format is applied (the text shown is what is sent) with a warning;
  any other format (``0.00``, ``#,##0``) in a text column is an error on the cell.
- a date where text was meant: Excel turns ``mar-26`` typed in a slug cell into
  2026-03-26. What was typed is lost, so it is an error on the cell.
- a boolean: ``true`` typed becomes ``TRUE``; read as that text, with a warning.
- an error value (``#N/A``, ``#DIV/0!``, ``#REF!``): calamine reads it as empty, so
  a ``#N/A`` slug would become a link with a random slug. An error on the cell.
- a hyperlink whose text is not its target: in a URL column, the target is read when
  the text is not a web address ("Click here"), with a warning; a text that is a
  different address than the target is read as shown, with a warning.
- a plain number in the expiry column: read as an Excel date serial, with a warning
  (format the cell as a date to say so).
- a formula without a saved value (a workbook a program wrote, never opened and saved
  in Excel): calamine reads it as empty, so a ``=LOWER("Summer-Sale")`` slug would
  become a random one. An error on the cell (FORMULA_WITHOUT_VALUE) saying how to get
  its value; a formula with a saved value is read as that value.
- a struck-through cell (the cell's font; as a cancelled row is often marked): its
  value is kept, and the row is invalid (STRUCK_THROUGH, once a row) so it is not sent,
  and a mirror keeps its link. A strike inside the text (part of a cell) is not seen.

Text cells, the usual case, pass through the fast path untouched: the checks look only
at the cells that are not text and at the cells the sheet scan noted
(``linksync.sources.xlsx_guard``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence, Set
from datetime import date, datetime, time, timedelta
from typing import Any

from linksync import rules
from linksync.model import Severity
from linksync.sources.normalize import excel_serial_to_datetime
from linksync.sources.table import CellIssue
from linksync.sources.xlsx_guard import SheetNotes

_STRUCK = (
    "the cell is struck through (as a cancelled row is often marked), so it may not "
    "mean what it says: the row is not sent; remove the strikethrough to send it, or "
    "delete the row"
)
_ZERO_PAD = re.compile(r'0+|"?0+"?')
_URL_FIELDS = frozenset({"url", "apple", "google"})


def cell_text(v: Any) -> str | None:
    """A cell as the text the user sees for a link field (None when empty)."""
    if v is None or v == "":
        return None
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, float):
        if v != v:  # NaN
            return None
        return str(int(v)) if v.is_integer() and abs(v) < 1e16 else repr(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, datetime | date | time):
        return v.isoformat()
    return str(v)


class CellReader:
    """Checks the cells of one sheet's columns against the sheet's notes."""

    def __init__(self, notes: SheetNotes, first_row: int, skipped: Set[int] = frozenset()):
        """``skipped``: sheet row indexes not read (hidden rows): their notes are not."""
        self.notes = notes
        self.first_row = first_row  # sheet row index (0-based) of data index 0
        self.skipped = skipped
        self.issues: list[CellIssue] = []
        self.struck_rows: set[int] = set()  # data indexes named STRUCK_THROUGH

    def _issue(self, k: int, fname: str, message: str, warn: bool = False) -> None:
        severity = Severity.WARNING if warn else Severity.ERROR
        self.issues.append(CellIssue(k, fname, "INVALID_FIELD", message, severity))

    def _noted(self, kind: str, col: int, n: int) -> list[tuple[int, str]]:
        """(data index, note) of one column's notes of ``kind`` within ``n`` data rows."""
        rows = sorted(self.notes.column(kind, col).items())
        first = self.first_row
        return [
            (r - first, note)
            for r, note in rows
            if 0 <= r - first < n and (not self.skipped or r not in self.skipped)
        ]

    def _errors(self, out: list[Any], fname: str, col: int) -> None:
        for k, text in self._noted("errors", col, len(out)):
            out[k] = None
            self._issue(
                k,
                fname,
                f"the cell holds the Excel error {text} (a formula that failed or a "
                "broken reference), not a value: fix the cell; the row is not sent",
            )
        for kind in ("unsaved", "stale"):
            for k, formula in self._noted(kind, col, len(out)):
                out[k] = None
                message = _unsaved(formula, kind == "stale")
                self.issues.append(CellIssue(k, fname, "FORMULA_WITHOUT_VALUE", message))
        for k, _ in self._noted("struck", col, len(out)):
            # the value is kept (the row still names its link); one error a row
            if out[k] is not None and out[k] != "" and k not in self.struck_rows:
                self.struck_rows.add(k)
                self.issues.append(CellIssue(k, fname, "STRUCK_THROUGH", _STRUCK))

    def text(self, cells: list[Any], fname: str, col: int) -> list[Any]:
        """A text field's cells (see module docstring); ``cells`` may be changed."""
        if set(map(type, cells)) <= {str}:
            out = cells
        else:
            out = [
                v if type(v) is str else self._odd(k, v, fname, col, cell_text(v))
                for k, v in enumerate(cells)
            ]
        self._errors(out, fname, col)
        if fname in _URL_FIELDS:
            self._links(out, fname, col)
        return out

    def _odd(self, k: int, v: Any, fname: str, col: int, shown: Any) -> Any:
        if isinstance(v, bool):
            self._issue(
                k,
                fname,
                f"the cell is the boolean {shown} (Excel turns a typed true/false into one): "
                f"read as the text {shown!r}",
                warn=True,
            )
            return shown
        if isinstance(v, int | float):
            fmt = self.notes.formats.get((self.first_row + k, col))
            if fmt is None:
                return shown
            if _ZERO_PAD.fullmatch(fmt) and float(v).is_integer() and v >= 0:
                digits = fmt.count("0")
                padded = str(int(v)).zfill(digits)
                self._issue(
                    k,
                    fname,
                    f"the cell is the number {int(v)} shown as {padded} by its number format "
                    f"{fmt!r}: read as {padded!r} (type it as text to silence this)",
                    warn=True,
                )
                return padded
            self._issue(
                k,
                fname,
                f"the cell is the number {shown} shown through the number format {fmt!r}, "
                "so what it shows is not its value: type the value as text (format the "
                "column as Text)",
            )
            return shown
        if isinstance(v, datetime | date | time | timedelta):
            self._issue(
                k,
                fname,
                f"the cell is a date or time ({shown}), not text: Excel turned what was typed "
                "into a date (mar-26 becomes 2026-03-26); format the column as Text and type "
                "the value again",
            )
            return shown
        return shown

    def _links(self, out: list[Any], fname: str, col: int) -> None:
        for k, target in self._noted("links", col, len(out)):
            shown = out[k]
            if shown == target:
                continue
            web = target.lower().startswith(("http://", "https://"))
            shown_is_url = isinstance(shown, str) and rules.check_url(shown.strip()) is None
            if web and not shown_is_url:
                out[k] = target
                self._issue(
                    k,
                    fname,
                    f"the cell shows {shown!r} and links to {target}: the link target is read",
                    warn=True,
                )
            elif shown is not None:
                self._issue(
                    k,
                    fname,
                    f"the cell shows {shown!r} but links to {target}: the text shown is read",
                    warn=True,
                )

    def expiry(
        self,
        cells: Sequence[Any],
        texts: list[Any],
        col: int,
        date1904: bool,
    ) -> list[Any]:
        """The expiry column: ``texts`` as converted, plus error cells and plain numbers."""
        out = texts
        if set(map(type, cells)) - {str, datetime, date}:
            for k, v in enumerate(cells):
                if isinstance(v, int | float) and not isinstance(v, bool):
                    when = excel_serial_to_datetime(float(v), date1904=date1904)
                    if when is not None:
                        self._issue(
                            k,
                            "expires_at",
                            f"the cell holds the number {cell_text(v)}, not a date: read as "
                            f"the Excel date {_shown(when)} (format the cell as a date to "
                            "say so)",
                            warn=True,
                        )
        self._errors(out, "expires_at", col)
        return out


def _unsaved(formula: str, stale: bool) -> str:
    """The message of a formula cell without a (trustworthy) saved value."""
    shown = formula if len(formula) <= 60 else formula[:59] + "…"
    what = f"the formula ={shown}" if shown else "a formula"
    if stale:
        why = (
            "the workbook asks to be recalculated when opened (a program wrote it), so "
            "the value saved with it is a placeholder, not its result"
        )
    else:
        why = "no saved value (the workbook was written by a program, never saved in Excel)"
    return (
        f"the cell holds {what} and {why}: open and save the workbook in Excel or "
        "LibreOffice, or paste the column as values; the row is not sent"
    )


def _shown(when: datetime) -> str:
    """An Excel date as its wall-clock text: ``2027-03-31`` or ``2027-03-31 23:59``
    (the run's zone applies to it, as to every date cell)."""
    if when.hour == when.minute == when.second == 0:
        return when.strftime("%Y-%m-%d")
    return when.strftime("%Y-%m-%d %H:%M:%S" if when.second else "%Y-%m-%d %H:%M")
