"""The one timestamp parser and its one rule: a time without a zone is UTC."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from linksync.export_formats import is_past
from linksync.rules import parse_expiry
from linksync.timestamps import format_ts, parse_iso, same_instant

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
