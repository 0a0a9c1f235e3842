"""Validation over what the readers kept (columns made value by distinct value) finds
exactly what it finds without them: every problem, its row, column, constant, message
and severity, and the same values."""

from __future__ import annotations

import csv
import random
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from linksync import rules
from linksync.sources import read_sources
from linksync.validate import validate

NOW = datetime(2026, 6, 1, tzinfo=UTC)

HOSTILE = [
    "",
    " ",
    "N/A",
    " n/a ",
    "#N/A",
    "#VALUE!",
    "TBD",
    "-",
    "\u00a0",
    "\u200b",
    '"',
    "x" * 3000,
]


def _row(i: int, rng: random.Random, neat_slugs: bool) -> list[str]:
    url = f"https://shop.example.com/p/{i}?ref={i % 7}"
    slug = f"item-{i}"
    tags = rng.choice(["sale", "sale, spring", "", "a;b|c", "N/A", "tag\u200b", " x "])
    expiry = rng.choice(["2030-01-01 05:00", "2020-01-01", "31/12/2030", "", "soon"])
    domain = rng.choice(["", "go.example.com", "GO.example.com", "bad domain"])
    ios = rng.choice(["", "https://apps.apple.com/app/id1", "ftp://x"])
    title = "d" * (rules.MAX_DESCRIPTION_CHARS + 1) if i % 1000 == 5 else f"Product {i}"
    row = [url, slug, title, tags, expiry, domain, ios]
    if rng.random() < 0.15:  # a hostile value somewhere (in ASCII among the slugs, so
        at, value = rng.randrange(len(row)), rng.choice(HOSTILE)  # they are tested at once)
        row[at] = value if at != 1 or value.isascii() else "x y"
        row[1] = slug if neat_slugs else row[1]
    if rng.random() < 0.05:
        row[0] = url.replace("shop", rng.choice(["sh\u200bop", "sh op", "sh\u00e9op"]))
    if rng.random() < 0.05:
        odd = ["admin", "Item-1", f"item-{i - 1}", "ITEM-3", "API"]
        row[1] = rng.choice(odd if neat_slugs else [*odd, "a--b", "-x", "x y"])
    return row


def _problems(result: object) -> list[tuple[object, ...]]:
    return [
        (p.constant, p.message, p.provenance, p.field, p.severity, p.column)
        for p in result.problems  # type: ignore[attr-defined]
    ]


@pytest.mark.parametrize(("seed", "neat_slugs"), [(1, False), (2, True)])
@pytest.mark.parametrize("fix", [False, True])
def test_validation_is_the_same_without_what_the_reader_kept(
    tmp_path: Path, seed: int, neat_slugs: bool, fix: bool
) -> None:
    """``neat_slugs``: every slug passes the tests made at once on the joined values
    (reserved words, upper case and duplicates still there)."""
    rng = random.Random(seed)
    path = tmp_path / "links.csv"
    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["Destination URL", "Slug", "Title", "Tags", "Expires", "Domain", "iOS URL"])
        for i in range(6000):
            w.writerow(_row(i, rng, neat_slugs))
    batch = read_sources([path])
    (frame,) = batch.frames
    assert frame.distinct_values("tags") is not None
    assert frame.distinct_values("expires_at") is not None
    assert frame.distinct_values("domain") is not None
    plain = replace(batch, frames=(replace(frame, distinct={}),))
    fast = validate(batch, now=NOW, fix_invisible=fix)
    slow = validate(plain, now=NOW, fix_invisible=fix)
    assert _problems(fast) == _problems(slow)
    assert len(fast.problems) > 100
    assert fast.invalid == slow.invalid
    assert [s for s in fast.iter_specs()] == [s for s in slow.iter_specs()]


def test_distinct_values_know_which_are_set() -> None:
    import pandas as pd

    from linksync.sources.cleaning import clean_column
    from linksync.sources.frame import not_none
    from linksync.sources.table import map_distinct_values

    cells = ["a, b", "", ";", "a,b", " ", "c", "", ";;"] * 50
    text, _ = clean_column(cells)
    for fn in (lambda t: tuple(t.replace(";", "").split(",")) or None, lambda t: None, str.upper):
        column = map_distinct_values(pd.Series(text, dtype=object), fn)
        assert column.present().tolist() == not_none(column.values).tolist()
        assert column.values.tolist() == [None if t is None else fn(t) for t in text.tolist()]
