"""The column cleaning gives each value what it gets alone (tricky and random columns,
through a pandas Series as the CSV reader gives)."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pandas as pd
import pytest

from linksync.sources.cleaning import clean_column

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
    "\x1f\x1f",
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
            assert list(given) == before  # the reader's column is never changed


def test_cells_that_are_not_text_are_read_as_text() -> None:
    values: list[Any] = ["a", None, float("nan"), 7, " b ", 1.5, "N/A"]
    out, present = clean_column(values, frozenset({"n/a"}))
    assert out.tolist() == ["a", None, None, "7", "b", "1.5", None]
    assert present.tolist() == [True, False, False, True, True, True, False]
