"""Value normalisation shared by every reader: tags, expiry, UTM, short URLs.

Scalar functions here are the reference; the table readers apply them once per
distinct value of a column (``linksync.sources.table.map_distinct``), which keeps a
million-row CSV cheap when, as in real campaigns, a column holds few distinct values.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import TYPE_CHECKING, Any
from urllib.parse import quote_plus, unquote_plus

from linksync.rules.timestamps import Oddity, format_ts, localize, parse_iso, zone_name

if TYPE_CHECKING:
    from linksync.sources.options import DateFormat

#: Tag separators: comma, semicolon, bar, and line breaks (Alt+Enter in Excel).
_TAG_SPLIT_RE = re.compile(r"[,;|\r\n\u2028\u2029]")
_DATE_ONLY_RE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
#: A date-time in UTC or without a zone (UTC then), seconds and fraction optional: the
#: form of most expiry cells, and ``format_ts``'s own (2030-12-31T23:59:59.000Z).
_PLAIN_RE = re.compile(
    r"([1-9]\d{3}-\d{2}-\d{2})[T ](\d{2}:\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?Z?", re.ASCII
)
_SHORT_URL_RE = re.compile(r"(?:[a-z][a-z0-9+.-]*://)?([^/?#\s]+)/([^?#\s]*)", re.IGNORECASE)

#: Excel's day 0 in the 1900 system (serial 60 is the phantom 1900-02-29, so serials
#: from 61 on count from 1899-12-30) and in the 1904 system.
_EXCEL_EPOCH_1900 = datetime(1899, 12, 30, tzinfo=UTC)
_EXCEL_EPOCH_1904 = datetime(1904, 1, 1, tzinfo=UTC)


def dedupe(values: Iterable[str]) -> tuple[str, ...]:
    """Trimmed, empty ones dropped, first occurrence kept, order preserved."""
    seen: dict[str, None] = {}
    for v in values:
        t = v.strip()
        if t:
            seen.setdefault(t, None)
    return tuple(seen)


def split_tags(text: str) -> tuple[str, ...]:
    """'sale; spring | sale , 2026' -> ('sale', 'spring', '2026'); a line break (one
    tag per line of a cell) separates tags too."""
    return dedupe(_TAG_SPLIT_RE.split(text))


def excel_serial_to_datetime(serial: float, *, date1904: bool = False) -> datetime | None:
    """An Excel serial day number as a UTC datetime (None when out of Excel's range)."""
    if not (0 <= serial < 2958466):  # 9999-12-31
        return None
    if date1904:
        base = _EXCEL_EPOCH_1904
    elif serial < 60:
        base = _EXCEL_EPOCH_1900 + timedelta(days=1)
    else:
        base = _EXCEL_EPOCH_1900
    ms = round(serial * 86_400_000)
    return base + timedelta(milliseconds=ms)


def _plain_utc(text: str) -> str | None:
    """``normalize_expiry`` of a plain UTC date-time, written without parsing it into a
    datetime and formatting it back (the text's own digits, once ``fromisoformat`` has
    found them a valid date and time); None for any other text."""
    m = _PLAIN_RE.fullmatch(text)
    if m is None:
        return None
    day, hm, sec, frac = m.groups()
    try:
        datetime.fromisoformat(f"{day}T{hm}:{sec or '00'}")
    except ValueError:
        return None
    return f"{day}T{hm}:{sec or '00'}.{(frac or '')[:3].ljust(3, '0')}Z"


def normalize_expiry(
    value: Any, date_format: DateFormat | None = None, zone: tzinfo | None = None
) -> str:
    """An expiry as ``YYYY-MM-DDTHH:MM:SS.sssZ`` when it can be read, else the raw text.

    Accepted: datetime and date objects, ISO 8601 date-times with or without a zone
    designator, bare ISO dates (midnight), and with a ``date_format`` the dates it
    describes (``31/12/2026`` for ``dmy``). A time without a designator (a naive
    datetime, a date) is a wall-clock time in ``zone`` (UTC for None); one with ``Z``
    or an offset is that instant. A local time the clocks skip in ``zone`` is returned
    as typed (``expiry_oddity`` names it). Anything else is returned as typed so
    validation reports INVALID_EXPIRY on that cell. The one rule for files and for
    ``links create --expires-at``.
    """
    return read_expiry(value, date_format, zone)[0]


#: What is odd about an expiry in a zone: (constant, message, is_error).
Oddness = tuple[str, str, bool]


def read_expiry(
    value: Any, date_format: DateFormat | None = None, zone: tzinfo | None = None
) -> tuple[str, Oddness | None]:
    """``normalize_expiry``'s text, and what is odd about the value in ``zone``
    (``expiry_oddity``), read once."""
    if zone is None and type(value) is str:
        quick = _plain_utc(value)
        if quick is not None:
            return quick, None
    naive, text = _naive_expiry(value, date_format)
    if naive is None:
        misread = date_format.misread(text) if date_format is not None else None
        return text, ("INVALID_EXPIRY", misread, True) if misread is not None else None
    when, odd = localize(naive, zone)
    if odd is None or zone is None:
        return format_ts(when), None
    return (text if odd is Oddity.GAP else format_ts(when)), _oddness(naive, when, odd, zone)


def _naive_expiry(value: Any, date_format: DateFormat | None) -> tuple[datetime | None, str]:
    """(the wall-clock time ``value`` writes, or None; the normalised text when it names
    its instant itself or cannot be read, else the value as text)."""
    if type(value) is str:
        quick = _plain_utc(value)
        if quick is not None:
            if value.endswith(("Z", "z")):
                return None, quick
            return datetime.fromisoformat(quick[:-1]), value
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            return None, format_ts(value)
        return value, value.isoformat()
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day), value.isoformat()
    text = str(value).strip()
    if _DATE_ONLY_RE.fullmatch(text):
        try:
            d = date.fromisoformat(text)
        except ValueError:
            return None, text
        return datetime(d.year, d.month, d.day), text
    dt = parse_iso(text)  # with a designator: that instant
    if dt is not None:
        return None, format_ts(dt)
    local = parse_iso(text, assume_utc=True)
    if local is not None:
        return local.replace(tzinfo=None), text
    if date_format is not None:
        read = date_format.read(text)
        if read is not None:
            return (read, text) if read.tzinfo is None else (None, format_ts(read))
    return None, text


def expiry_oddity(
    value: Any, date_format: DateFormat | None, zone: tzinfo | None
) -> Oddness | None:
    """What is odd about an expiry cell in ``zone``, as (constant, message, is_error):
    a local time the clocks skip (``INVALID_EXPIRY``, an error) or one that happens
    twice (``AMBIGUOUS_TIME``, a warning: the first occurrence is used); None for
    anything else (UTC never has either); with a ``date_format``, a day-first or
    month-first date it does not read too (``INVALID_EXPIRY``: ``DateFormat.misread``)."""
    if zone is None and date_format is None:
        return None
    return read_expiry(value, date_format, zone)[1]


def _oddness(naive: datetime, when: datetime, odd: Oddity, zone: tzinfo) -> Oddness:
    shown = naive.strftime("%Y-%m-%d %H:%M:%S" if naive.second else "%Y-%m-%d %H:%M")
    name = zone_name(zone)
    if odd is Oddity.GAP:
        return (
            "INVALID_EXPIRY",
            f"{shown} does not exist in {name}: the clocks skip it (daylight saving time "
            "starts); write a time before or after the change",
            True,
        )
    else:
        second = naive.replace(tzinfo=zone, fold=1).astimezone(UTC)
        return (
            "AMBIGUOUS_TIME",
            f"{shown} happens twice in {name} (daylight saving time ends): read as the "
            f"first, {format_ts(when)}, not the second, {format_ts(second)}; write the "
            "offset to choose",
            False,
        )


#: A URL parameter the row replaced: (name, value in the URL, value of the row).
Replaced = tuple[str, str, str]


def merge_utm_checked(
    url: str,
    params: Mapping[str, str | None],
    defaults: Mapping[str, str | None] | None = None,
) -> tuple[str, tuple[Replaced, ...]]:
    """Add UTM parameters to a URL's query; returns the URL and what it replaced.

    ``params`` are the row's own values (a utm column, a YAML entry's ``utm:``): they
    win over the same parameter already in the URL (compared case-insensitively), and
    every value so replaced is returned so the row can say it. ``defaults`` (a file's
    ``utm:`` defaults) only fill parameters neither the URL nor the row gives. Empty
    values are skipped; new parameters are appended in the order given, form-encoded;
    there is one ``?`` and the fragment stays at the end.
    """
    own = {k: str(v).strip() for k, v in params.items() if v is not None and str(v).strip()}
    extra = {
        k: str(v).strip()
        for k, v in (defaults or {}).items()
        if v is not None and str(v).strip() and k not in own
    }
    if not own and not extra:
        return url, ()
    base, hash_, fragment = url.partition("#")
    path, _sep, query = base.partition("?")
    wanted = {k.lower(): (k, v) for k, v in own.items()}
    parts: list[str] = []
    replaced: list[Replaced] = []
    done: set[str] = set()
    for part in query.rstrip("&").split("&") if query.rstrip("&") else ():
        key = part.split("=", 1)[0]
        low = unquote_plus(key).lower()
        if low in wanted:
            name, value = wanted[low]
            old = unquote_plus(part.split("=", 1)[1]) if "=" in part else ""
            if low in done:
                replaced.append((name, old, value))
                continue
            done.add(low)
            if old == value:
                parts.append(part)
                continue
            replaced.append((name, old, value))
            parts.append(f"{quote_plus(name)}={quote_plus(value)}")
            continue
        for k in [k for k in extra if k.lower() == low]:
            del extra[k]
        parts.append(part)
    adds = [f"{quote_plus(k)}={quote_plus(v)}" for k, v in own.items() if k.lower() not in done]
    adds += [f"{quote_plus(k)}={quote_plus(v)}" for k, v in extra.items()]
    if not adds and not replaced:
        return url, ()
    new_query = "&".join([*parts, *adds])
    return f"{path}?{new_query}{hash_}{fragment}", tuple(replaced)


def short_url_parts(text: str) -> tuple[str, str] | str:
    """(domain, slug) of a short link (``https://go.example.com/spring``, the scheme
    optional, one trailing ``/`` allowed), or why it cannot be split: a query string,
    a fragment, a path of several segments, no path, not a URL."""
    value = text.strip()
    m = _SHORT_URL_RE.fullmatch(value)
    if m is None:
        query, fragment = value.find("?"), value.find("#")
        if " " in value or "/" not in value:
            return "it is not a URL"
        if fragment >= 0 and (query < 0 or fragment < query):
            return f"it has a fragment ({value[fragment:]})"
        if query >= 0:
            return f"it has a query string ({value[query:]})"
        return "it is not a URL"
    path = m.group(2)
    if path.endswith("/"):
        path = path[:-1]
    if not path:
        return "it has no slug after the domain"
    if "/" in path:
        return (
            f"its path has {path.count('/') + 1} segments ({path}): a short link has one, the slug"
        )
    host = m.group(1).rpartition("@")[2].lower()
    return host, path
