"""The order of a column's dates, as its header's hint in brackets names it.

Templates name the order they want dates typed in: "Expires (MM/DD/YYYY)", "Expiry
(dd/mm/yyyy)", "End date (YYYY-MM-DD)". ``linksync.sources.columns`` reads such a
header as its field and keeps the hint (``ColumnMatch.hints``); ``column_dates`` makes
the dates of that column read the way the hint says:

- without ``--date-format`` (nor the profile's ``date_format:``), a hint naming day
  first or month first reads the column's dates in that order, with one warning for
  the sheet naming the header and the order taken (``DATE_ORDER``); a year-first hint
  needs nothing (ISO 8601 is always read);
- with a date format that reads another order than the hint, the file is refused (an
  error naming both, ``DATE_ORDER``): which one the dates follow is not known.
"""

from __future__ import annotations

import re
from dataclasses import replace

from linksync.model import Problem, Provenance, Severity
from linksync.sources.options import DateFormat, ReadOptions

#: A hint naming the order of dates: "MM/DD/YYYY", "dd.mm.yyyy", "YYYY-MM-DD" (a time
#: after it allowed: "DD/MM/YYYY HH:MM").
_HINT_ORDER = re.compile(r"([dmy]+)[./ -]([dmy]+)[./ -]([dmy]+)(?:[ t][hms:]+)?", re.ASCII)
_ORDERS = {"mdy": "mdy", "dmy": "dmy", "ymd": "iso"}
_SAID = {"mdy": "month first (12/31/2026)", "dmy": "day first (31/12/2026)", "iso": "year first"}


def hinted_order(hint: str) -> str | None:
    """The order of the dates a header hint names ("MM/DD/YYYY": mdy, "DD/MM/YYYY":
    dmy, "YYYY-MM-DD": iso), or None when the hint names none."""
    m = _HINT_ORDER.fullmatch(hint.strip().lower())
    if m is None or any(len(set(part)) != 1 for part in m.groups()):
        return None
    return _ORDERS.get("".join(part[0] for part in m.groups()))


def format_order(fmt: DateFormat | None) -> str | None:
    """The order a date format reads day, month and year in (dmy, mdy, iso: year
    first); None for the default (ISO 8601 only) or a pattern without all three."""
    if fmt is None:
        return None
    if "%" not in fmt.spec:
        return fmt.spec
    at = {c: fmt.spec.find(f"%{'Y' if c == 'y' else c}") for c in "dmy"}
    if min(at.values()) < 0:
        at["y"] = fmt.spec.find("%y")
        if min(at.values()) < 0:
            return None
    return _ORDERS.get("".join(sorted(at, key=at.__getitem__)))


def column_dates(
    opts: ReadOptions, hint: str | None, header: str, where: Provenance
) -> tuple[ReadOptions, Problem | None]:
    """The options to read the dates of a column under ``header`` with, and what to say
    of them once (see module docstring)."""
    order = hinted_order(hint) if hint else None
    if order is None or order == "iso":
        return opts, None
    given = format_order(opts.date_format)
    if opts.date_format is None:
        message = (
            f'the dates of column "{header}" are read {_SAID[order]}, as its header says; '
            f"pass --date-format {order} (or the profile's date_format: {order}) to say so"
        )
        warning = Problem("DATE_ORDER", message, where, None, Severity.WARNING, header)
        return replace(opts, date_format=DateFormat(order)), warning
    if given is None or given == order:
        return opts, None
    message = (
        f'column "{header}" says its dates are written {_SAID[order]}, but --date-format '
        f"(or the profile's date_format:) reads them {_SAID[given]}: which one the dates "
        "follow is not known, so nothing of this file is sent; fix the header or the "
        "date format"
    )
    return opts, Problem("DATE_ORDER", message, where, None, Severity.ERROR, header)
