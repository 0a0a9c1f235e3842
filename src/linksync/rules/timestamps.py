"""Timestamps: the one ISO 8601 parser, and how linksync writes instants.

One rule for a time written without a zone (``2026-12-31T23:59:59``): it is in the
run's time zone (``--timezone`` / the profile's ``timezone:``, an IANA name; UTC by
default) wherever linksync reads one from a source (spreadsheet cells, CSV and YAML
text), never the machine's local time; the service's records are UTC. A time written
with ``Z`` or an offset is that instant, whatever the zone. Only the service's own
check of a request (``linksync.rules.parse_expiry`` without ``assume_utc``) requires
the designator, as the interface does.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, tzinfo
from enum import StrEnum
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from linksync.errors import ConfigError

_ISO_RE = re.compile(
    r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?",
    re.IGNORECASE | re.ASCII,
)


def parse_iso(s: str, *, assume_utc: bool = False) -> datetime | None:
    """An ISO 8601 date-time as an aware UTC datetime, or ``None`` when malformed.

    A designator (``Z`` or ``+hh:mm``) is required unless ``assume_utc`` (then a time
    without one is UTC); a bare date is not a date-time. More than 6 fractional digits
    are truncated.
    """
    if not isinstance(s, str) or _ISO_RE.fullmatch(s) is None:
        return None
    try:
        # Python's own parser reads every form the pattern lets through (a space or
        # a "t" before the time, a comma, more than 6 digits truncated) but a "z".
        dt = datetime.fromisoformat(s[:-1] + "Z" if s[-1] == "z" else s)
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
    return dt.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="milliseconds") + "Z"


def utc_now() -> str:
    """The current instant as ``format_ts`` writes it."""
    return format_ts(datetime.now(UTC))


@lru_cache(maxsize=64)
def time_zone(name: str | None) -> ZoneInfo | None:
    """The zone an IANA name (``America/New_York``) stands for; None for none or UTC
    (``UTC``, ``Etc/UTC``, ``Z``: naive times are then UTC, as without the option).
    ``ConfigError`` for a name the time zone database does not know."""
    if name is None or not name.strip():
        return None
    text = name.strip()
    if text.upper() in ("UTC", "Z", "ETC/UTC", "GMT", "ETC/GMT", "UNIVERSAL", "ZULU"):
        return None
    try:
        if "\0" in text or text.startswith(("/", ".")) or ".." in text:
            raise ValueError(text)
        return ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise ConfigError(
            f"unknown time zone {name!r}: give an IANA name such as America/New_York, "
            "Europe/Paris or UTC"
        ) from None


def zone_name(zone: tzinfo | None) -> str:
    """``America/New_York``; ``UTC`` for None."""
    return "UTC" if zone is None else str(getattr(zone, "key", None) or zone)


class Oddity(StrEnum):
    """What is odd about a local time in its zone."""

    GAP = "gap"  # the clocks skip it (spring forward): it never happens
    FOLD = "fold"  # it happens twice (fall back): the first occurrence is used


def localize(naive: datetime, zone: tzinfo | None) -> tuple[datetime, Oddity | None]:
    """``naive`` (a wall-clock time in ``zone``, UTC for None) as an aware UTC datetime,
    with its oddity: ``GAP`` when the clocks skip it (the instant returned is then the
    one of the offset before the change, and must not be used), ``FOLD`` when it
    happens twice (the first occurrence, the earlier instant, is returned)."""
    if zone is None:
        return naive.replace(tzinfo=UTC), None
    first = naive.replace(tzinfo=zone, fold=0)
    before, after = first.utcoffset(), naive.replace(tzinfo=zone, fold=1).utcoffset()
    when = first.astimezone(UTC)
    if before == after or before is None or after is None:
        return when, None
    # PEP 495: in a gap fold=0 takes the offset before the change (the smaller, as the
    # clocks move forward); in a fold it takes the first one (the larger).
    return when, Oddity.GAP if before < after else Oddity.FOLD


#: A timestamp as ``format_ts`` writes it, as the readers normalise an expiry:
#: 2030-12-31T23:59:59.000Z.
WRITTEN_RE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z", re.ASCII)


@lru_cache(maxsize=4096)
def show_expiry(value: str | None, zone: tzinfo | str | None) -> str:
    """An expiry with its zone, for a person: ``2027-03-31 23:59 America/New_York =
    2027-04-01T03:59:00.000Z`` (``2027-03-31 23:59 UTC = ...`` without a zone; seconds
    shown when not zero). ``zone``: a zone or its IANA name. A value that is not a
    timestamp is returned as it is."""
    if not value:
        return ""
    if isinstance(zone, str):
        zone = time_zone(zone)
    if WRITTEN_RE.fullmatch(value):  # as format_ts writes: no parsing needed in UTC
        if zone is None:
            seconds = value[16:19] if value[17:19] != "00" else ""
            return f"{value[:10]} {value[11:16]}{seconds} UTC = {value}"
        local = datetime.fromisoformat(value[:19]).replace(tzinfo=UTC).astimezone(zone)
        shown = f"{local.year:04d}-{local.month:02d}-{local.day:02d} {local.hour:02d}:"
        shown += f"{local.minute:02d}:{local.second:02d}" if local.second else f"{local.minute:02d}"
        return f"{shown} {zone_name(zone)} = {value}"
    dt = parse_iso(value.strip(), assume_utc=True)
    if dt is None:
        return value
    local = dt.astimezone(zone) if zone is not None else dt
    shown = local.strftime("%Y-%m-%d %H:%M:%S" if local.second else "%Y-%m-%d %H:%M")
    return f"{shown} {zone_name(zone)} = {format_ts(dt)}"
