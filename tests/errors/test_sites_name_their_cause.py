"""Each reader site driven with an input that triggers it: the constant a user sees
names the cause (an empty file is EMPTY_SOURCE, not MISSING_URL; an unknown column is
UNKNOWN_COLUMN, not INVALID_FIELD...), with its severity."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import openpyxl
import pytest

from linksync.model import Severity
from linksync.sources import read_sources
from linksync.validate import validate

NOW = datetime(2026, 6, 1, tzinfo=UTC)
E, W = Severity.ERROR, Severity.WARNING


def _text(name: str, text: str, encoding: str = "utf-8") -> Callable[[Path], Path]:
    def make(tmp: Path) -> Path:
        path = tmp / name
        path.write_bytes(text.encode(encoding))
        return path

    return make


def _mixed(tmp: Path) -> Path:
    path = tmp / "mixed.csv"
    path.write_bytes(
        b"slug,url,description\n"
        + b"".join(f"s{i},https://e.com/{i},caf\xc3\xa9\n".encode("latin-1") for i in range(40))
        + b"x,https://e.com/x,caf\xe9\n"
    )
    return path


def _sheet(rows: list[list[object]]) -> Callable[[Path], Path]:
    def make(tmp: Path) -> Path:
        wb = openpyxl.Workbook()
        ws = wb.active
        for row in rows:
            ws.append(row)
        path = tmp / "book.xlsx"
        wb.save(path)
        return path

    return make


def _empty_dir(tmp: Path) -> Path:
    (tmp / "links").mkdir()
    return tmp / "links"


CASES: list[tuple[str, Callable[[Path], Path], tuple[str, Severity], dict[str, str]]] = [
    ("empty csv", _text("a.csv", ""), ("EMPTY_SOURCE", E), {}),
    ("header only", _text("a.csv", "slug,url\n"), ("EMPTY_SOURCE", E), {}),
    ("no url column", _text("a.csv", "Name,Clicks\nx,1\n"), ("MISSING_URL_COLUMN", E), {}),
    (
        "unknown column",
        _text("a.csv", "slug,url,Colour\na,https://e.com/a,red\n"),
        ("UNKNOWN_COLUMN", W),
        {},
    ),
    (
        "two url columns that differ",
        _text("a.csv", "url,Destination URL,slug\nhttps://e.com/a,https://e.com/b,a\n"),
        ("CONFLICTING_COLUMNS", W),
        {},
    ),
    (
        "utm column over the url's",
        _text("a.csv", "slug,url,utm_source\na,https://e.com/a?utm_source=x,news\n"),
        ("URL_PARAM_REPLACED", W),
        {},
    ),
    ("mixed encodings", _mixed, ("MIXED_ENCODING", W), {}),
    ("row without url", _text("a.csv", "slug,url,description\na,,hi\n"), ("MISSING_URL", E), {}),
    ("empty yaml", _text("a.yaml", "# nothing\n"), ("EMPTY_SOURCE", E), {}),
    (
        "unknown yaml key",
        _text("a.yaml", "- {slug: a, url: 'https://e.com/a', colour: red}\n"),
        ("UNKNOWN_KEY", E),
        {},
    ),
    (
        "misspelt yaml defaults key",
        _text("a.yaml", "defaults: {domian: go.example.com}\nlinks: []\n"),
        ("UNKNOWN_KEY", E),
        {},
    ),
    (
        "yaml without links:",
        _text("a.yaml", "link:\n  - https://e.com/a\n"),
        ("EMPTY_SOURCE", E),
        {},
    ),
    (
        "yaml utm over the url's",
        _text("a.yaml", "- {slug: a, url: 'https://e.com/a?utm_source=x', utm: {source: n}}\n"),
        ("URL_PARAM_REPLACED", W),
        {},
    ),
    (
        "yaml password in clear",
        _text("a.yaml", "links: {vip: {url: 'https://e.com/a', password: hunter22}}\n"),
        ("SECRET_IN_SOURCE", W),
        {},
    ),
    (
        "yaml password from a variable not set",
        _text("a.yaml", "links: {vip: {url: 'https://e.com/a', password: {env: NO_SUCH_PW_9}}}\n"),
        ("MISSING_SECRET", E),
        {},
    ),
    ("folder without yaml", _empty_dir, ("EMPTY_SOURCE", E), {}),
    ("sheet without url header", _sheet([["Name"], ["x"]]), ("MISSING_URL_COLUMN", W), {}),
    ("sheet with header only", _sheet([["slug", "url"]]), ("EMPTY_SOURCE", W), {}),
    (
        "time the zone skips",
        _text("a.csv", "slug,url,expires\na,https://e.com/a,2027-03-14 02:30\n"),
        ("INVALID_EXPIRY", E),
        {"timezone": "America/New_York"},
    ),
    (
        "time the zone repeats",
        _text("a.csv", "slug,url,expires\na,https://e.com/a,2027-11-07 01:30\n"),
        ("AMBIGUOUS_TIME", W),
        {"timezone": "America/New_York"},
    ),
]


@pytest.mark.parametrize("make,expected,options", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_the_site_names_its_cause(
    tmp_path: Path,
    make: Callable[[Path], Path],
    expected: tuple[str, Severity],
    options: dict[str, str],
) -> None:
    batch = read_sources([make(tmp_path)], **options)  # type: ignore[arg-type]
    seen = [(p.constant, p.severity) for p in validate(batch, now=NOW).problems]
    assert expected in seen, seen
