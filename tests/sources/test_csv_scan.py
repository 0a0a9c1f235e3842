"""The structural scan of CSV files against the csv module, on generated files: the
same records are found with values beyond the header, whatever the chunk size (so a
chunk boundary inside a quoted value, a CRLF or a doubled quote changes nothing), and a
lone carriage return ends a record for both."""

from __future__ import annotations

import csv
import io
import random

import pytest

from linksync.sources.csv_scan import scan


def _field(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.5:
        return rng.choice(["a", "bb", "", "x y", "ü"])
    if r < 0.85:
        return '"' + rng.choice(["a,b", 'say ""hi""', "line\nbreak", "", ",,"]) + '"'
    return rng.choice(['5" tv', "z", "x\ry"])  # a quote, a lone CR inside an unquoted value


def _expected(text: str, width: int) -> list[int]:
    old = csv.field_size_limit(1 << 30)
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    finally:
        csv.field_size_limit(old)
    return [
        rec
        for rec, fields in enumerate(rows)
        if rec >= 1 and len(fields) > width and any(v.strip() for v in fields[width:])
    ]


@pytest.mark.parametrize("seed", range(4))
def test_scan_agrees_with_the_csv_module(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(100):
        width = rng.randint(1, 4)
        lines = []
        for _ in range(rng.randint(1, 12)):
            n = rng.choice([width, width, width + 1, width + 2, max(1, width - 1)])
            lines.append(",".join(_field(rng) for _ in range(n)))
        text = "\n".join(lines) + rng.choice(["", "\n", "\r\n"])
        want = _expected(text, width)
        for chunk in (3, 7, 1 << 20):
            got = [
                r.record for r in scan(text.encode(), ",", width, first_data=1, chunk=chunk).ragged
            ]
            assert got == want, (chunk, text)
