"""The column cleaning's joined-string shortcuts give each value what it gets alone,
and the URL filter over a column joined while cleaning agrees with the one over the
values (tricky and random columns, through a pandas Series as the CSV reader gives)."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pandas as pd
import pytest

from linksync.sources.cleaning import clean_column, clean_joined
from linksync.sources.frame import JOIN_SEP
from linksync.validate.filters import fast_url_ok
from linksync.validate.joined import url_ok_joined

HOSTILE = [
    "",
    " ",
    "a",
    " a",
    "a ",
    "\ta\r\n",
    "\u00a0a\u00a0",
    "a\u200b",
    "\u200b",
    "N/A",
    " n/a ",
    "#N/A",
    "#DIV/0!",
    "TBD",
    "tbd",
    "-",
    "—",
    '"quoted"',
    "'",
    "a,b",
    "a\nb",
    "a\x1fb",
    "\x1f",
    JOIN_SEP * 2,
    "\u212a",  # KELVIN SIGN: casefolds to "k"
    "Stra\u00dfe",
    "\ud800",
    "https://example.com/\u200bx",
    "https://example.com/p?q=1",
    " https://example.com/ ",
    "x" * 5000,
    " " + "y" * 3000 + "\t",
]


def reference(values: list[Any], empty_values: frozenset[str]) -> list[str | None]:
    """clean_text value by value: text, ASCII whitespace trimmed, "" and the empty
    values (casefolded) as None."""
    out: list[str | None] = []
    for v in values:
        if isinstance(v, str):
            text = v
        elif v is None or (isinstance(v, float) and math.isnan(v)):
            text = ""
        else:
            text = str(v)
        text = text.strip(" \t\r\n")
        out.append(None if not text or text.casefold() in empty_values else text)
    return out


def columns(seed: int) -> list[list[Any]]:
    rng = random.Random(seed)
    pool = [*HOSTILE, "ascii", "https://a.example.com/x", "ok-slug"]
    mostly_ascii = [
        rng.choice(["plain-value", f"https://h.example.com/{i}"]) for i in range(25_000)
    ]
    for i in rng.sample(range(len(mostly_ascii)), 40):
        mostly_ascii[i] = rng.choice(pool)
    mostly_other = ["é" * rng.randint(1, 3) + rng.choice(["", " ", "x"]) for _ in range(300)]
    mixed = [rng.choice(pool) for _ in range(3000)]
    return [
        list(HOSTILE),
        mixed,
        mostly_ascii,
        [*mostly_other, "", " a "],
        [" lead"] + ["x"] * 10 + ["trail "],
        [""],
        ["a"],
        [],
    ]


EMPTIES = (frozenset(), frozenset({"n/a", "tbd", "k", "-", "\x1f", "ß"}))


@pytest.mark.parametrize("empty_values", EMPTIES)
def test_clean_column_agrees_with_the_value_by_value_reference(
    empty_values: frozenset[str],
) -> None:
    for values in columns(3):
        want = reference(values, empty_values)
        for given in (list(values), pd.Series(values, dtype=object), np.array(values, object)):
            before = list(given)
            out, present = clean_column(given, empty_values)
            assert out.tolist() == want
            assert present.tolist() == [w is not None for w in want]
            out, present, joined = clean_joined(given, empty_values, keep=False)
            assert out.tolist() == want and joined is None
            assert present.tolist() == [w is not None for w in want]
            assert list(given) == before  # the reader's column is never changed


def test_cells_that_are_not_text_are_read_as_text() -> None:
    values: list[Any] = ["a", None, float("nan"), 7, " b ", 1.5, "N/A"]
    out, present = clean_column(values, frozenset({"n/a"}))
    assert out.tolist() == ["a", None, None, "7", "b", "1.5", None]
    assert present.tolist() == [True, False, False, True, True, True, False]


def test_joined_text_is_the_clean_column() -> None:
    for values in columns(5):
        out, _, joined = clean_joined(pd.Series(values, dtype=object))
        if joined is None:
            continue
        assert joined.values is out
        assert joined.raw.isascii()
        parts = joined.text.decode("ascii").split(JOIN_SEP)
        if len(parts) == len(out):
            expect = [
                "!" if i in joined.others else ("" if v is None else v)
                for i, v in enumerate(out.tolist())
            ]
            assert parts == expect
        for i in joined.others:
            assert not out[i].isascii()


def test_url_filter_over_the_joined_column_agrees_with_the_values() -> None:
    rng = random.Random(9)
    hosts = ["a.example.com", "b.example.org:8080", "c-.example", "", "a.example.com"]
    urls = [
        rng.choice(["https://", "HTTP://", "http://", "https:/", " https://", ""])
        + rng.choice(hosts)
        + rng.choice(["", "/", "/p?q=1", "?x", "#f", " x", "\t", "\n", "/p", "/q"])
        for _ in range(4000)
    ]
    for i in rng.sample(range(len(urls)), 100):  # outside ASCII: set aside as "!"
        urls[i] = urls[i].replace("example", rng.choice(["ex\u00e4mple", "exa\u200bmple"]))
    tested = 0
    plain = [v for v in HOSTILE if JOIN_SEP not in v]
    for values in (
        urls,
        [*plain, *urls],
        [v for v in columns(1)[2] if JOIN_SEP not in v],
        [*HOSTILE, *urls],
    ):
        out, present, joined = clean_joined(pd.Series(values, dtype=object))
        if joined is None:
            continue
        full = url_ok_joined(joined)
        if full is None:  # a value holds the separator: the reader tests the values
            assert any(JOIN_SEP in v for v in out[present].tolist())
            continue
        idx = np.flatnonzero(present)
        assert full[idx].tolist() == fast_url_ok(out[idx].tolist()).tolist()
        assert not full[~present].any()
        tested += 1
    assert tested == 3


def test_slug_filter_over_the_joined_column_agrees_with_the_values() -> None:
    from linksync.validate.filters import fast_slug_ok
    from linksync.validate.joined import slug_ok_joined

    rng = random.Random(4)
    good = [f"item-{i}" for i in range(3000)]
    cases = [
        good,
        [*good, ""],
        [*good, "Docs", "ADMIN"],
        [*good, "admin", "api"],
        [g.upper() for g in good],
        [*good, "a--b"],
        [*good, "-a"],
        [*good, "a-"],
        ["-a", *good],
        [*good, "a_b"],
        [*good, "x" * 2048],
        [*good, "x" * 2049],
        [*good, " padded "],
        [*good, "a\u200bb"],
        [*good, "\u212a"],
        ["".join(rng.choices("abZ9-", k=rng.randint(1, 5))) for _ in range(3000)],
        ["a"],
    ]
    seen = 0
    for values in cases:
        out, present, joined = clean_joined(pd.Series(values, dtype=object))
        if joined is None:
            continue
        idx = np.flatnonzero(present)
        vals = out[idx].tolist()
        got = slug_ok_joined(joined, idx, vals)
        if got is None:
            continue
        seen += 1
        assert got.tolist() == fast_slug_ok(vals).tolist(), values[-1]
    assert seen >= 6
