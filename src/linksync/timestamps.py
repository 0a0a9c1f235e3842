"""Timestamps: the one ISO 8601 parser, and how linksync writes instants.

One rule for a time written without a zone (``2026-12-31T23:59:59``): it is UTC,
wherever linksync reads one (spreadsheet cells, YAML, the service's records), never the
machine's local time. Only the service's own check of a request
(``linksync.rules.parse_expiry`` without ``assume_utc``) requires the designator, as
the interface does.

- ``parse_iso``: an ISO 8601 date-time (``T`` or a space between date and time, ``Z``
  or ``+hh:mm``, up to 9 fractional digits) as an aware UTC datetime, or None.
- ``same_instant``: two timestamps that name the same instant (text when unreadable).
- ``format_ts``: ``2026-01-02T03:04:05.678Z``, as the service writes them.
- ``utc_now``: the current instant, written that way.
"""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime

_ISO_RE = re.compile(
    r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?",
    re.IGNORECASE | re.ASCII,
)
_FRACTION = re.compile(r"\.(\d+)")


def parse_iso(s: str, *, assume_utc: bool = False) -> datetime | None:
    """An ISO 8601 date-time as an aware UTC datetime, or ``None`` when malformed.

    A designator (``Z`` or ``+hh:mm``) is required unless ``assume_utc`` (then a time
    without one is UTC); a bare date is not a date-time. More than 6 fractional digits
    are truncated.
    """
    if not isinstance(s, str) or _ISO_RE.fullmatch(s) is None:
        return None
    text = s[:10] + "T" + s[11:]
    text = text.replace(",", ".")
    if text[-1] in "zZ":
        text = text[:-1] + "+00:00"
    frac = _FRACTION.search(text)
    if frac and len(frac.group(1)) > 6:
        text = text[: frac.start(1) + 6] + text[frac.end(1) :]
    try:
        dt = datetime.fromisoformat(text)
    except ValueError:
        return None
    if dt.tzinfo is None:
        if not assume_utc:
            return None
        dt = dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC)


def same_instant(a: str | None, b: str | None) -> bool:
    """Whether two timestamps name the same instant; unreadable values compare as text
    (trimmed), and two empty values are the same."""
    if not a or not b:
        return not a and not b
    pa, pb = parse_iso(a.strip(), assume_utc=True), parse_iso(b.strip(), assume_utc=True)
    if pa is None or pb is None:
        return a.strip() == b.strip()
    return pa == pb


def format_ts(dt: datetime) -> str:
    """ISO 8601 UTC with milliseconds, as the service writes timestamps:
    ``2026-01-02T03:04:05.678Z``."""
    dt = dt.astimezone(UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


_second: tuple[int, str] = (-1, "")


def utc_now() -> str:
    """The current instant as ``format_ts`` writes it (the date and time of the current
    second are formatted once per second: the journal stamps every record)."""
    global _second
    now = time.time()
    sec = int(now)
    if sec != _second[0]:
        _second = (sec, time.strftime("%Y-%m-%dT%H:%M:%S.", time.gmtime(sec)))
    return f"{_second[1]}{int((now - sec) * 1000):03d}Z"
