"""linksync.rules: the value rules shared by the sandbox and local validation."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from linksync import rules

NOW = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://example.com", None),
        ("http://example.com/a/b?c=d#e", None),
        ("HTTPS://EXAMPLE.COM/x", None),
        ("https://user:pw@example.com:8443/p", None),
        ("https://[2001:db8::1]:8080/x", None),
        ("https://bücher.example/x", None),
        ("https://localhost:8000", None),
        ("", "INVALID_URL"),
        ("example.com", "INVALID_URL"),
        ("ftp://example.com", "INVALID_URL"),
        ("javascript:alert(1)", "INVALID_URL"),
        ("https://", "INVALID_URL"),
        ("https:///path", "INVALID_URL"),
        ("https://exa mple.com", "INVALID_URL"),
        (" https://example.com", "INVALID_URL"),
        ("https://example.com ", "INVALID_URL"),
        ("https://example.com\n", "INVALID_URL"),
        ("https://example.com:99999", "INVALID_URL"),
        ("https://example.com:port", "INVALID_URL"),
        ("https://ex..com", "INVALID_URL"),
        ("https://-bad.com", "INVALID_URL"),
        ("https://exa<mple.com", "INVALID_URL"),
    ],
)
def test_check_url(url: str, expected: str | None) -> None:
    assert rules.check_url(url) == expected


INVISIBLE = [
    "\u200b",
    "\u200c",
    "\u200d",
    "\u200e",
    "\u200f",
    "\u2060",
    "\u2061",
    "\u2062",
    "\u2063",
    "\u2064",
    "\ufeff",
    "\u00a0",
    "\u00ad",
    "\u202a",
    "\u202b",
    "\u202c",
    "\u202d",
    "\u202e",
    "\u2066",
    "\u2067",
    "\u2068",
    "\u2069",
    "\u2028",
    "\u3000",
    "\u0007",
    "\u007f",
    "\u0085",
    "\ue000",  # private use
    "\U000e0001",  # language tag (Cf)
]


@pytest.mark.parametrize("ch", INVISIBLE, ids=lambda c: f"U+{ord(c):04X}")
def test_invisible_characters_are_found_and_rejected(ch: str) -> None:
    url = f"https://example.com/sp{ch}ring"
    assert rules.find_invisible(url) == [(len("https://example.com/sp"), ch)]
    assert rules.check_url(url) == "INVALID_URL"
    assert rules.strip_invisible(url) == "https://example.com/spring"
    assert rules.check_slug(f"sp{ch}ring") == "INVALID_SLUG"


def test_space_and_visible_unicode_are_not_invisible() -> None:
    assert rules.find_invisible("a b é 中 😀") == []


def test_describe_invisible_names_characters_and_positions() -> None:
    text = rules.describe_invisible("ab\u200bc")
    assert "U+200B ZERO WIDTH SPACE" in text
    assert "position 3" in text
    assert rules.describe_invisible("abc") == ""


@pytest.mark.parametrize(
    ("slug", "expected"),
    [
        ("spring", None),
        ("Spring-Sale-2026", None),
        ("a", None),
        ("0", None),
        ("a" * 2048, None),
        ("a" * 2049, "INVALID_SLUG"),
        ("", "INVALID_SLUG"),
        ("-a", "INVALID_SLUG"),
        ("a-", "INVALID_SLUG"),
        ("a--b", "INVALID_SLUG"),
        ("a_b", "INVALID_SLUG"),
        ("a.b", "INVALID_SLUG"),
        ("a/b", "INVALID_SLUG"),
        ("a b", "INVALID_SLUG"),
        ("abc\n", "INVALID_SLUG"),
        ("caf\u00e9", "INVALID_SLUG"),
        ("\u212a", "INVALID_SLUG"),  # Kelvin sign: IGNORECASE alone would match [a-z]
        ("\u017f", "INVALID_SLUG"),  # long s
        ("api", "RESERVED_SLUG"),
        ("AUTH", "RESERVED_SLUG"),
        ("dashboard", "RESERVED_SLUG"),
        ("docs", "RESERVED_SLUG"),
        ("admin", "RESERVED_SLUG"),
        ("api-v2", None),
    ],
)
def test_check_slug(slug: str, expected: str | None) -> None:
    assert rules.check_slug(slug) == expected


def test_reserved_words_include_the_interface_examples() -> None:
    assert {"api", "auth", "dashboard", "docs", "admin", "login", "static", "assets"} <= (
        rules.RESERVED_SLUGS
    )
    assert all(rules.SLUG_RE.fullmatch(w) for w in rules.RESERVED_SLUGS)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-12-31T23:59:59Z", datetime(2026, 12, 31, 23, 59, 59, tzinfo=UTC)),
        ("2026-12-31T23:59:59.250Z", datetime(2026, 12, 31, 23, 59, 59, 250000, tzinfo=UTC)),
        ("2026-12-31T23:59:59.123456789Z", datetime(2026, 12, 31, 23, 59, 59, 123456, tzinfo=UTC)),
        ("2026-12-31T23:59Z", datetime(2026, 12, 31, 23, 59, tzinfo=UTC)),
        ("2026-12-31T23:59:59+02:00", datetime(2026, 12, 31, 21, 59, 59, tzinfo=UTC)),
        ("2026-12-31t23:59:59z", datetime(2026, 12, 31, 23, 59, 59, tzinfo=UTC)),
        ("2025-12-31T23:59:59Z", "INVALID_EXPIRY"),  # past
        ("2026-01-01T00:00:00Z", "INVALID_EXPIRY"),  # now is not in the future
        ("2026-12-31", "INVALID_EXPIRY"),  # a date is not a timestamp
        ("2026-12-31T23:59:59", "INVALID_EXPIRY"),  # no designator
        ("2026-13-01T00:00:00Z", "INVALID_EXPIRY"),
        ("2026-02-30T00:00:00Z", "INVALID_EXPIRY"),
        ("31/12/2026", "INVALID_EXPIRY"),
        ("tomorrow", "INVALID_EXPIRY"),
        ("", "INVALID_EXPIRY"),
    ],
)
def test_parse_expiry(text: str, expected: datetime | str) -> None:
    assert rules.parse_expiry(text, NOW) == expected


def test_parse_expiry_can_assume_utc_for_naive_values() -> None:
    got = rules.parse_expiry("2026-12-31T23:59:59", NOW, assume_utc=True)
    assert got == datetime(2026, 12, 31, 23, 59, 59, tzinfo=UTC)


@pytest.mark.parametrize(
    ("host", "ok"),
    [
        ("go.example.com", True),
        ("a-b.example.co.uk", True),
        ("example", False),
        ("exa_mple.com", False),
        ("-a.example.com", False),
        ("a-.example.com", False),
        ("a..com", False),
        ("1.2.3.4", False),
        ("x" * 64 + ".com", False),
        ("", False),
    ],
)
def test_check_hostname(host: str, ok: bool) -> None:
    assert rules.check_hostname(host) is ok
