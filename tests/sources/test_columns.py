"""Column aliases, explicit mappings, tags, UTM merging, short URLs, expiry."""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, timedelta

import pytest

from linksync.errors import ConfigError
from linksync.rules.timestamps import format_ts, parse_iso
from linksync.sources.columns import find_header_row, match_columns, normalize_header
from linksync.sources.normalize import (
    merge_utm_checked,
    normalize_expiry,
    short_url_parts,
    split_tags,
)


@pytest.mark.parametrize(
    "header,field",
    [
        ("Destination URL", "url"),
        ("destination_url", "url"),
        ("LONG-URL", "url"),
        ("Original URL", "url"),
        ("longUrl", "url"),
        ("originalURL", "url"),
        ("Short code", "slug"),
        ("shortCode", "slug"),
        ("Back-half", "slug"),
        ("Custom ending", "slug"),
        ("Key", "slug"),
        ("Path", "slug"),
        ("Title", "description"),
        ("Memo", "description"),
        ("Description", "description"),
        ("Tags", "tags"),
        ("Labels", "tags"),
        ("Expires", "expires_at"),
        ("Expiration", "expires_at"),
        ("Expires At", "expires_at"),
        ("expiresAt", "expires_at"),
        ("iOS URL", "apple"),
        ("iOS", "apple"),
        ("iphoneURL", "apple"),
        ("Android URL", "google"),
        ("Android", "google"),
        ("androidURL", "google"),
        ("Short URL", "short_url"),
        ("Short link", "short_url"),
        ("shortUrl", "short_url"),
        ("Domain", "domain"),
        ("Password", "password"),
        ("utm_source", "utm_source"),
        ("UTM Campaign", "utm_campaign"),
    ],
)
def test_aliases(header: str, field: str) -> None:
    match = match_columns([header])
    assert dict(match.fields) == {field: 0}


def test_normalize_header() -> None:
    assert normalize_header("  Destination-URL (main) ") == "destinationurlmain"


def test_unknown_ignored_fallbacks_and_explicit_mapping() -> None:
    headers = ["Title", "Description", "URL", "Clicks", "Created at", "Colour", "Owner email"]
    match = match_columns(headers)
    assert match.fields == {"description": 1, "url": 2}
    assert match.fallbacks == {"description": (0,)}
    assert match.unknown == ("Colour", "Owner email")
    assert match.ignored == ("Clicks", "Created at")
    explicit = match_columns(headers, {"colour": "tags", "TITLE": "ignore", "url": "apple"})
    assert explicit.fields == {"description": 1, "apple": 2, "tags": 5}
    assert explicit.unknown == ("Owner email",)
    with pytest.raises(ConfigError, match="unknown field"):
        match_columns(headers, {"Colour": "favourite"})


def test_header_row_detection() -> None:
    rows = [
        ["Spring campaign", "", ""],
        ["Destination URL", "This column holds the target of every link, written in full", ""],
        ["", "", ""],
        ["Destination URL", "Slug", "Notes"],
    ]
    assert find_header_row(rows) == 3
    assert find_header_row([["URL"], ["https://e.com"]]) == 0
    assert find_header_row([["hello", "world"]]) is None


def test_tags() -> None:
    assert split_tags(" sale; spring | sale ,, 2026 ") == ("sale", "spring", "2026")
    assert split_tags(" ; ") == ()


@pytest.mark.parametrize(
    "url,params,expected",
    [
        ("https://e.com", {"utm_source": "nl"}, "https://e.com?utm_source=nl"),
        (
            "https://e.com/p?x=1",
            {"utm_source": "nl", "utm_medium": ""},
            "https://e.com/p?x=1&utm_source=nl",
        ),
        (
            "https://e.com/p?utm_source=keep#frag",
            {"utm_source": "nl", "utm_campaign": "a b&c"},
            "https://e.com/p?utm_source=keep&utm_campaign=a+b%26c#frag",
        ),
        ("https://e.com/p?", {"utm_term": "x"}, "https://e.com/p?utm_term=x"),
        ("https://e.com/p?a=1&", {"utm_term": "x"}, "https://e.com/p?a=1&utm_term=x"),
        ("https://e.com/p", {}, "https://e.com/p"),
    ],
)
def test_merge_utm(url: str, params: dict[str, str], expected: str) -> None:
    assert merge_utm_checked(url, {}, params)[0] == expected  # file defaults: the URL wins


def test_short_url_parts() -> None:
    assert short_url_parts("https://Go.Example.com/Spring/") == ("go.example.com", "Spring")
    assert short_url_parts("bit.ly/3Xa9kLm") == ("bit.ly", "3Xa9kLm")
    assert short_url_parts("https://go.example.com/") == "it has no slug after the domain"
    assert short_url_parts("spring") == "it is not a URL"


@pytest.mark.parametrize(
    "value,expected",
    [
        (datetime(2030, 1, 2, 3, 4, 5, 678000), "2030-01-02T03:04:05.678Z"),
        (date(2030, 1, 2), "2030-01-02T00:00:00.000Z"),
        ("2030-01-02", "2030-01-02T00:00:00.000Z"),
        ("2030-01-02 03:04", "2030-01-02T03:04:00.000Z"),
        ("2030-01-02T03:04:05+02:00", "2030-01-02T01:04:05.000Z"),
        ("2030-01-02T03:04:05.123456789Z", "2030-01-02T03:04:05.123Z"),
        ("02/01/2030", "02/01/2030"),
        ("2030-02-30", "2030-02-30"),
        ("soon", "soon"),
    ],
)
def test_normalize_expiry(value: object, expected: str) -> None:
    assert normalize_expiry(value) == expected


def test_plain_utc_expiries_are_written_as_the_full_parse_writes_them() -> None:
    """The shortcut for plain UTC date-times (no zone, or Z) gives what parsing into a
    datetime and formatting gives, for valid and invalid ones alike."""
    rng = random.Random(5)

    def full(text: str) -> str:
        dt = parse_iso(text, assume_utc=True)
        return format_ts(dt) if dt is not None else text

    base = datetime(1000, 1, 1, tzinfo=UTC)
    for _ in range(3000):
        when = base + timedelta(microseconds=rng.randrange(0, 9000 * 365 * 86_400_000_000))
        text = format_ts(when)
        assert normalize_expiry(text) == text
        day, clock = when.strftime("%Y-%m-%d"), when.strftime("%H:%M")
        sep = rng.choice("T ")
        sec = rng.choice(["", f":{when.second:02d}", f":{when.second:02d}.{when.microsecond:06d}"])
        frac = f":{when.second:02d}." + str(when.microsecond).zfill(6)[: rng.randint(1, 6)]
        for variant in (f"{day}{sep}{clock}{sec}", f"{day}{sep}{clock}{frac}Z"):
            assert normalize_expiry(variant) == full(variant), variant
    odd = [
        "2030-02-30T00:00:00.000Z",
        "2030-13-01 10:00",
        "2030-01-01T24:00",
        "2030-01-01T23:59:60Z",
        "2031-02-29 00:00",
        "2032-02-29 00:00",
        "0999-01-01T00:00:00.000Z",
        "2030-01-01t10:00",
        "2030-01-01T10:00:00,5",
    ]
    for text in odd:
        assert normalize_expiry(text) == full(text), text
