"""The column filters agree with the scalar rules of linksync.rules."""

from __future__ import annotations

import random

import pytest

from linksync import rules
from linksync.validate.filters import (
    URL_PREFIX_RE,
    fast_slug_ok,
    fast_url_ok,
    has_invisible,
)

URLS = [
    "https://example.com",
    "http://example.com/",
    "HTTPS://EXAMPLE.COM/A?b=c#d",
    "https://a.b.c.d.example.co.uk:8080/p/a/t/h?q=1&r=2#frag",
    "https://example.com.",
    "https://_dmarc.example.com/x",
    "https://a-.example.com/",
    "https://-a.example.com/",
    "https://.example.com/",
    "https://ex..ample.com/",
    "https://" + "a" * 63 + ".com/",
    "https://" + "a" * 64 + ".com/",
    "https://example.com:65535/",
    "https://example.com:65536/",
    "https://example.com:/",
    "https://user:pw@example.com/",
    "https://[::1]/",
    "https://[::1/",
    "https:/example.com",
    "https//example.com",
    "ftp://example.com",
    "example.com",
    "https://exa mple.com",
    " https://example.com",
    "https://example.com/\t",
    "https://example.com/\x7f",
    "https://example.com/\u200b",
    "https://example.com/\u00a0",
    "https://exämple.com/",
    "https://example.com/ä",
    "https://example.com\\path",
    "https://example.com?x",
    "https://example.com#x",
    "https://",
    "",
]

SLUGS = [
    "a",
    "A1",
    "spring-sale",
    "2024",
    "007",
    "a-b-c",
    "-a",
    "a-",
    "a--b",
    "a_b",
    "a b",
    "ä",
    "docs",
    "DOCS",
    "Api",
    "x" * 2048,
    "x" * 2049,
    "a\u200bb",
    "K",
    "\u212a",
    "s\u017f",
]


@pytest.mark.parametrize("url", URLS)
def test_url_filter_never_passes_what_the_rule_rejects(url: str) -> None:
    [ok] = fast_url_ok([url]).tolist()
    if ok:
        assert rules.check_url(url) is None
    # The filter is used in bulk too: same verdict inside a column.
    column = [*URLS, url]
    assert fast_url_ok(column).tolist()[-1] is ok


def test_url_filter_passes_ordinary_urls() -> None:
    common = [u for u in URLS[:6]]
    assert fast_url_ok(common).all()


@pytest.mark.parametrize("slug", SLUGS)
def test_slug_filter_agrees_with_the_rule(slug: str) -> None:
    ok = bool(fast_slug_ok([slug])[0])
    assert ok is (rules.check_slug(slug) is None)
    assert bool(fast_slug_ok([*SLUGS, slug])[-1]) is ok


@pytest.mark.parametrize(
    "odd", ["-a", "a-", "a--b", "-", "", "x" * 2048, "x" * 2049, "Docs", "a-b-c", "9"]
)
@pytest.mark.parametrize("at", [0, 1, 500, 999])
def test_a_column_of_slug_characters_is_judged_value_by_value(odd: str, at: int) -> None:
    """A column made only of letters, digits, hyphens (what the column test reads at
    once): a hyphen first, last or doubled, an empty or too long value, a reserved word
    in capitals, at the column's start, inside it or at its end, fails that value only."""
    column = [f"spring-sale-{i}" for i in range(1000)]
    column[at] = odd
    verdicts = fast_slug_ok(column).tolist()
    assert verdicts == [rules.check_slug(v) is None for v in column]


def test_random_values_agree() -> None:
    rng = random.Random(7)
    alphabet = "abcXYZ019-_./:?#@[] \t\u200b\u00a0\ufeffé%"
    urls = [
        "http"
        + rng.choice(["", "s"])
        + "://"
        + "".join(rng.choices(alphabet, k=rng.randint(0, 20)))
        for _ in range(3000)
    ]
    slugs = ["".join(rng.choices("ab9-_ \u200bZ", k=rng.randint(0, 6))) for _ in range(3000)]
    for url, ok in zip(urls, fast_url_ok(urls).tolist(), strict=True):
        if ok:
            assert rules.check_url(url) is None, url
    for slug, ok in zip(slugs, fast_slug_ok(slugs).tolist(), strict=True):
        assert ok is (rules.check_slug(slug) is None), slug
    for text, maybe in zip(urls + slugs, has_invisible(urls + slugs).tolist(), strict=True):
        if rules.find_invisible(text):
            assert maybe, text


def test_column_tests_agree_with_per_value_tests() -> None:
    """The column test gives each value the verdict it gets on its own."""
    rng = random.Random(11)
    alphabet = "aZ09-_./:?#@ \t\n\r\x7f\u200b\u00a0é\ud800"
    values = [
        rng.choice(["https://", "http://", "HTTP://", "", "\n", "ftp://"])
        + "".join(rng.choices(alphabet, k=rng.randint(0, 12)))
        for _ in range(3000)
    ]
    values += ["", "https://example.com", "https://example.com\nhttps://example.org"]
    for column in (values, values[:1], [v for v in values if v.isascii()]):
        urls = fast_url_ok(column).tolist()
        for v, ok in zip(column, urls, strict=True):
            alone = v.isascii() and all(0x21 <= ord(ch) <= 0x7E for ch in v)
            assert ok is (alone and URL_PREFIX_RE.match(v) is not None), repr(v)
    assert fast_url_ok([]).tolist() == []


def test_columns_with_several_hosts_agree_with_the_prefix_rule() -> None:
    """A column of a few hosts and one of many hosts."""
    rng = random.Random(5)
    hosts = ["a.example.com", "b.example.org:8080", "c-.example", "ex..ample.com", ""]
    few = [
        rng.choice(["https://", "HTTP://", "http://", "https:/"])
        + rng.choice(hosts)
        + rng.choice(["", "/", "/p?q=1", "?x", "#f", " x", "\u200b"])
        for _ in range(2000)
    ]
    many = [f"https://h{i}.example.com/p" for i in range(500)] + few[:100]
    for column in (few, many, few + many):
        for v, ok in zip(column, fast_url_ok(column).tolist(), strict=True):
            alone = v.isascii() and all(0x21 <= ord(ch) <= 0x7E for ch in v)
            assert ok is (alone and URL_PREFIX_RE.match(v) is not None), repr(v)


@pytest.mark.parametrize("hosts", [1, 5000])
@pytest.mark.parametrize("at", [0, 1, 7000, 19999])
def test_a_url_holding_a_line_feed_fails_alone(hosts: int, at: int) -> None:
    """Values of one host (compared by their bytes) or of many (read by one pattern),
    one of them two URLs with a line feed between them: that value fails, the others
    pass, in whichever block of values it falls."""
    column = [f"https://h{i % hosts}.example.com/landing/{i}" for i in range(20000)]
    column[at] = "https://h0.example.com/a\nhttps://h0.example.com/b"
    verdicts = fast_url_ok(column).tolist()
    assert verdicts == [k != at for k in range(len(column))]


def test_no_placeholder_passes_the_url_filter() -> None:
    """Validation looks for N/A, TBD, #N/A... in URL columns only among the values the
    URL filter does not pass."""
    from linksync.sources.options import EXCEL_ERRORS, PLACEHOLDER_VARIANTS

    words = sorted(PLACEHOLDER_VARIANTS | EXCEL_ERRORS)
    assert not fast_url_ok(words).any()
    assert not fast_url_ok([*words, *URLS[:6]])[: len(words)].any()


def test_runs_of_one_host_agree_with_the_prefix_rule() -> None:
    """Columns where each value mostly repeats the host of the value before (one host,
    or runs of a few), with odd values among them: a bad byte before, in or after the
    authority, a host of more than 64 characters, values shorter than ``http://x``,
    the same host with another port or case, and a column longer than one block."""
    rng = random.Random(13)
    hosts = [
        "shop.example.com",
        "shop.example.com:8080",
        "SHOP.example.com",
        "a" * 63 + ".example.com",
        "b" * 70 + ".com",
        "c-.example",
        "ex..ample.com",
    ]
    odd = ["", "h", "http://", "https://", "https:/x", "https://x", "https://ex ample.com/"]
    odd += ["https://shop.example.com/\u200b", "https://shop.example.com\t/", "\u00e9https://x.y/"]
    column: list[str] = []
    host = hosts[0]
    for i in range(70_000):
        if rng.random() < 0.001:
            host = rng.choice(hosts)
        if rng.random() < 0.01:
            column.append(rng.choice(odd))
        else:
            column.append(f"https://{host}" + rng.choice(["", "/", f"/p/{i}", f"?q={i}", "#f"]))
    got = fast_url_ok(column).tolist()
    assert 20_000 < sum(got) < len(column)
    for v, ok in zip(column, got, strict=True):
        alone = v.isascii() and all(0x21 <= ord(ch) <= 0x7E for ch in v)
        assert ok is (alone and URL_PREFIX_RE.match(v) is not None), repr(v)
