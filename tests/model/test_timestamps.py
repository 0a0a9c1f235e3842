"""The one timestamp parser and its one rule: a time without a zone is UTC, unless the
run names a zone (``--timezone``): then it is a wall-clock time there."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from linksync.errors import ConfigError
from linksync.export.formats import is_past
from linksync.rules import parse_expiry
from linksync.rules.timestamps import (
    Oddity,
    format_ts,
    localize,
    parse_iso,
    same_instant,
    show_expiry,
    time_zone,
)
from linksync.sources.normalize import normalize_expiry

NOW = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("2030-01-01T00:00:00Z", "2030-01-01T00:00:00.000Z", True),
        ("2030-01-01T02:00:00+02:00", "2030-01-01T00:00:00Z", True),
        ("2030-01-01T00:00:01Z", "2030-01-01T00:00:00Z", False),
        ("2030-01-01T00:00:00", "2030-01-01T00:00:00Z", True),  # no zone: UTC
        ("2030-01-01 00:00:00", "2030-01-01T00:00:00.000Z", True),
        (None, "", True),
        (None, "2030-01-01T00:00:00Z", False),
        ("garbage", "garbage", True),
    ],
)
def test_same_instant(a: str | None, b: str | None, same: bool) -> None:
    assert same_instant(a, b) is same


def test_a_time_without_a_zone_is_utc_everywhere_linksync_reads_one() -> None:
    utc = datetime(2030, 6, 1, 12, 0, tzinfo=UTC)
    assert parse_iso("2030-06-01T12:00:00", assume_utc=True) == utc
    assert is_past("2026-01-01T00:00:00", NOW) and not is_past("2026-01-01T00:00:01", NOW)
    # The service's own check of a request requires the designator, as the interface does.
    assert parse_iso("2030-06-01T12:00:00") is None
    assert parse_expiry("2030-06-01T12:00:00", NOW) == "INVALID_EXPIRY"
    assert parse_expiry("2030-06-01T12:00:00", NOW, assume_utc=True) == utc


def test_format_ts_has_milliseconds_and_z() -> None:
    dt = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    assert format_ts(dt) == "2026-01-02T03:04:05.678Z"


# --- time zones -----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["UTC", "utc", "Etc/UTC", "Z", "GMT", None, ""])
def test_utc_by_any_name_is_no_zone(name: str | None) -> None:
    assert time_zone(name) is None


@pytest.mark.parametrize(
    "name", ["Mars/Olympus_Mons", "America", "../../etc/passwd", "/etc/localtime", "EST5EDT "]
)
def test_unknown_zone_is_a_configuration_error(name: str) -> None:
    if name == "EST5EDT ":  # a real zone, trailing space forgiven
        assert time_zone(name) is not None
        return
    with pytest.raises(ConfigError, match="unknown time zone"):
        time_zone(name)


@pytest.mark.parametrize(
    ("zone", "naive", "utc", "odd"),
    [
        ("America/New_York", datetime(2027, 3, 31, 23, 59), datetime(2027, 4, 1, 3, 59), None),
        ("America/New_York", datetime(2027, 1, 15, 12), datetime(2027, 1, 15, 17), None),
        # Spring forward: 02:00 -> 03:00, 02:30 never happens.
        ("America/New_York", datetime(2027, 3, 14, 2, 30), None, Oddity.GAP),
        # Fall back: 01:30 happens twice; the first (EDT) is used.
        (
            "America/New_York",
            datetime(2027, 11, 7, 1, 30),
            datetime(2027, 11, 7, 5, 30),
            Oddity.FOLD,
        ),
        ("Europe/Paris", datetime(2027, 3, 28, 2, 30), None, Oddity.GAP),
        ("Europe/Paris", datetime(2027, 10, 31, 2, 30), datetime(2027, 10, 31, 0, 30), Oddity.FOLD),
        ("Asia/Kolkata", datetime(2027, 3, 31, 23, 59), datetime(2027, 3, 31, 18, 29), None),
        # Samoa skipped 2011-12-30 entirely (UTC-10 -> UTC+14).
        ("Pacific/Apia", datetime(2011, 12, 30, 12), None, Oddity.GAP),
    ],
)
def test_localize(zone: str, naive: datetime, utc: datetime | None, odd: Oddity | None) -> None:
    when, found = localize(naive, time_zone(zone))
    assert found is odd
    if utc is not None:
        assert when == utc.replace(tzinfo=UTC)


def test_show_expiry_names_the_zone_and_the_instant() -> None:
    ny = time_zone("America/New_York")
    assert show_expiry("2027-04-01T03:59:00.000Z", ny) == (
        "2027-03-31 23:59 America/New_York = 2027-04-01T03:59:00.000Z"
    )
    assert show_expiry("2027-04-01T03:59:00.000Z", "America/New_York") == (
        "2027-03-31 23:59 America/New_York = 2027-04-01T03:59:00.000Z"
    )
    assert show_expiry("2027-04-01T03:59:00.000Z", None) == (
        "2027-04-01 03:59 UTC = 2027-04-01T03:59:00.000Z"
    )
    assert show_expiry("2027-04-01T03:59:30.000Z", None).startswith("2027-04-01 03:59:30 UTC")
    assert show_expiry("2027-04-01T05:59:00+02:00", None) == (
        "2027-04-01 03:59 UTC = 2027-04-01T03:59:00.000Z"
    )
    assert show_expiry("not a date", ny) == "not a date" and show_expiry(None, ny) == ""


@pytest.mark.parametrize(
    ("value", "zone", "want"),
    [
        ("2027-03-31 23:59", "America/New_York", "2027-04-01T03:59:00.000Z"),
        ("2027-03-31T23:59:00Z", "America/New_York", "2027-03-31T23:59:00.000Z"),
        ("2027-03-31T23:59:00+02:00", "America/New_York", "2027-03-31T21:59:00.000Z"),
        ("2027-03-31", "America/New_York", "2027-03-31T04:00:00.000Z"),
        (datetime(2027, 3, 31, 23, 59), "America/New_York", "2027-04-01T03:59:00.000Z"),
        (datetime(2027, 3, 31, 23, 59, tzinfo=UTC), "America/New_York", "2027-03-31T23:59:00.000Z"),
        ("2027-03-14 02:30", "America/New_York", "2027-03-14 02:30"),  # kept: does not exist
        ("2027-03-31 23:59", None, "2027-03-31T23:59:00.000Z"),
    ],
)
def test_normalize_expiry_in_a_zone(value: object, zone: str | None, want: str) -> None:
    assert normalize_expiry(value, None, time_zone(zone)) == want
