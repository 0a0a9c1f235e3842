"""CSV: encodings, delimiters, text cells, title rows, row numbers."""

from __future__ import annotations

import codecs
import csv
import io
from pathlib import Path

import pytest

from linksync.errors import SourceError
from linksync.sources import read_sources

ROWS = [
    ["Destination URL", "Slug", "Title", "Tags"],
    ["https://example.com/café", "NA", "Café crème", "a, b"],
    ["https://example.com/2", "null", "naïve", "a;a"],
    ["https://example.com/3", "nan", "", ""],
    ["https://example.com/4", "007", "€ price", "x | y"],
]


def _write(path: Path, encoding: str, delim: str, bom: bytes = b"") -> Path:
    buf = io.StringIO()
    csv.writer(buf, delimiter=delim, lineterminator="\r\n").writerows(ROWS)
    path.write_bytes(bom + buf.getvalue().encode(encoding))
    return path


CASES = [
    ("utf-8", b""),
    ("utf-8", codecs.BOM_UTF8),
    ("utf-16-le", codecs.BOM_UTF16_LE),
    ("utf-16-be", codecs.BOM_UTF16_BE),
    ("cp1252", b""),
]


@pytest.mark.parametrize("encoding,bom", CASES, ids=[f"{e}{'-bom' if b else ''}" for e, b in CASES])
@pytest.mark.parametrize("delim", [",", ";", "\t"], ids=["comma", "semicolon", "tab"])
def test_encodings_and_delimiters(tmp_path: Path, encoding: str, bom: bytes, delim: str) -> None:
    path = _write(tmp_path / "links.csv", encoding, delim, bom)
    specs = read_sources([path]).specs
    got = [
        (s.url, s.slug, s.description, s.tags, s.provenance.row if s.provenance else 0)
        for s in specs
    ]
    assert got == [
        ("https://example.com/café", "NA", "Café crème", ("a", "b"), 2),
        ("https://example.com/2", "null", "naïve", ("a",), 3),
        ("https://example.com/3", "nan", None, None, 4),
        ("https://example.com/4", "007", "€ price", ("x", "y"), 5),
    ]
    # An empty cell is not managed: the remote value is left alone.
    assert specs[2].managed == frozenset({"url", "slug"})


def test_title_row_sep_line_blank_lines_and_quoted_newlines(tmp_path: Path) -> None:
    path = tmp_path / "c.csv"
    path.write_text(
        "sep=;\n"
        "Campaign export;;\n"
        "Long URL;Key;Memo\n"
        'https://example.com/a;a;"two\nlines"\n'
        ";;\n"
        "https://example.com/b;b;x\n",
        encoding="utf-8",
    )
    specs = read_sources([path]).specs
    assert [(s.slug, s.description, s.provenance.row if s.provenance else 0) for s in specs] == [
        ("a", "two\nlines", 3),
        ("b", "x", 5),
    ]
    assert specs[0].provenance is not None
    assert dict(specs[0].provenance.columns) == {
        "url": "Long URL",
        "slug": "Key",
        "description": "Memo",
    }


def test_missing_file_and_unknown_type(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no such file"):
        read_sources([tmp_path / "nope.csv"])
    (tmp_path / "x.pdf").write_bytes(b"%PDF")
    with pytest.raises(SourceError, match="unknown source type"):
        read_sources([tmp_path / "x.pdf"])


def test_file_without_url_column_is_a_file_problem(tmp_path: Path) -> None:
    path = tmp_path / "c.csv"
    path.write_text("Name,Clicks\nfoo,3\n", encoding="utf-8")
    batch = read_sources([path])
    assert batch.specs == ()
    assert [p.constant for p in batch.problems] == ["MISSING_URL_COLUMN"]


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "c.csv"
    path.write_bytes(b"")
    batch = read_sources([path])
    assert len(batch) == 0 and [p.constant for p in batch.problems] == ["EMPTY_SOURCE"]


def test_short_url_column_split_and_explicit_columns_win(tmp_path: Path) -> None:
    path = tmp_path / "c.csv"
    path.write_text(
        "Short URL,Long URL,Slug\n"
        "https://Go.Example.com/spring,https://example.com/s,\n"
        "go.example.com/summer,https://example.com/u,custom\n"
        "not a short url,https://example.com/v,\n",
        encoding="utf-8",
    )
    specs = read_sources([path]).specs
    assert [(s.domain, s.slug) for s in specs] == [
        ("go.example.com", "spring"),
        ("go.example.com", "custom"),
        (None, None),
    ]
    only_short = tmp_path / "d.csv"
    only_short.write_text("Short link,URL\nhttps://dub.sh/x,https://example.com/x\n", "utf-8")
    [spec] = read_sources([only_short]).specs
    assert (spec.domain, spec.slug) == ("dub.sh", "x")
    assert spec.provenance is not None
    assert spec.provenance.column_of("slug") == "Short link"
    assert spec.provenance.column_of("domain") == "Short link"
