"""The quick look at the sources before a run reads them: how many rows, about, whether
they name domains, and whether the reading could refuse the run (then nothing is asked
of the service before the reading)."""

from __future__ import annotations

from pathlib import Path

import openpyxl

from linksync.model import LinkSpec
from linksync.pipeline.sizes import SMALL_CSV, look_at


def test_a_csv_counts_its_lines_under_the_header(tmp_path: Path) -> None:
    csv = tmp_path / "links.csv"
    csv.write_text("slug,Destination URL\na,https://e.com/a\nb,https://e.com/b", "utf-8")
    seen = look_at([csv])
    assert (seen.rows, seen.names_domain, seen.refusable) == (2, False, False)
    csv.write_text("Slug,URL,Short domain\na,https://e.com/a\n", "utf-8")
    assert look_at([csv]).names_domain


def test_a_long_csv_counts_every_line_whatever_its_line_ends(tmp_path: Path) -> None:
    """A file of several MB (read a MB at a time), lines ending in CRLF, the last one
    without a line end, or a file of a header line alone ending without one."""
    rows = [f"s{i},https://e.com/{i},row {i}" for i in range(200_000)]
    csv = tmp_path / "links.csv"
    csv.write_bytes(("slug,url,Domain\r\n" + "\r\n".join(rows)).encode())
    seen = look_at([csv])
    assert (seen.rows, seen.names_domain, seen.refusable) == (200_000, True, False)
    csv.write_bytes(("slug,url\n" + "\n".join(rows) + "\n").encode())
    assert look_at([csv]).rows == 200_000
    csv.write_bytes(b"slug,url")
    assert look_at([csv]).refusable
    csv.write_bytes(("slug,url,Domain\r" + "\r".join(rows)).encode())  # a classic Mac file
    seen = look_at([csv])
    assert (seen.rows, seen.names_domain, seen.refusable) == (200_000, True, False)


def test_a_csv_past_the_small_size_counts_its_lines_as_well(tmp_path: Path) -> None:
    """A small file's lines are counted without numpy (the look comes before the first
    request); a file past ``SMALL_CSV`` with numpy: the same rows either way."""
    row = "s{},https://example.com/landing/{},a row of a big file\r\n"
    csv = tmp_path / "links.csv"
    with csv.open("w", encoding="utf-8", newline="") as fh:
        fh.write("slug,url,description\r\n")
        rows = 0
        while fh.tell() <= SMALL_CSV:
            fh.writelines(row.format(rows + i, rows + i) for i in range(10_000))
            rows += 10_000
        fh.write("last,https://example.com/last,no line end")
    assert csv.stat().st_size > SMALL_CSV
    seen = look_at([csv])
    assert (seen.rows, seen.names_domain, seen.refusable) == (rows + 1, False, False)


def test_yaml_counts_its_url_keys_block_and_flow(tmp_path: Path) -> None:
    yml = tmp_path / "links.yaml"
    yml.write_text(
        "links:\n  - slug: a\n    url: https://e.com/a\n    short_url: x\n"
        "  - {slug: b, url: https://e.com/b}\n",
        "utf-8",
    )
    assert look_at([yml]).rows == 2
    yml.write_text("defaults:\n  domain: go.example.com\nlinks: []\n", "utf-8")
    seen = look_at([yml])
    assert (seen.rows, seen.names_domain, seen.refusable) == (0, True, False)


def test_what_the_reading_may_refuse_is_refusable(tmp_path: Path) -> None:
    header = tmp_path / "header.csv"
    header.write_text("slug,url\n", "utf-8")
    binary = tmp_path / "export.csv"
    binary.write_bytes(b"PK\x03\x04\0\0binary")
    empty = tmp_path / "empty.yaml"
    empty.write_text("", "utf-8")
    stray = tmp_path / "links"
    stray.mkdir()
    (stray / "a.yaml").write_text("links:\n  - {slug: a, url: https://e.com/a}\n", "utf-8")
    (stray / "notes.xlsx").write_bytes(b"")
    for source in (header, binary, empty, stray, tmp_path / "missing.csv", tmp_path / "x.json"):
        assert look_at([source]).refusable, source
    assert look_at([]).refusable  # no source declares nothing
    (stray / "notes.xlsx").unlink()
    assert look_at([stray]).rows == 1 and not look_at([stray]).refusable


def test_a_workbook_is_not_counted_and_specs_are(tmp_path: Path) -> None:
    book = openpyxl.Workbook()
    book.active.append(["slug", "url"])
    book.active.append(["a", "https://e.com/a"])
    book.save(tmp_path / "links.xlsx")
    seen = look_at([tmp_path / "links.xlsx"])
    assert seen.rows is None and not seen.refusable
    specs = [LinkSpec(url=f"https://e.com/{i}", slug=str(i)) for i in range(3)]
    assert look_at(specs).rows == 3 and not look_at(specs).names_domain
    assert look_at(
        [LinkSpec(url="https://e.com/d", slug="d", domain="go.example.com")]
    ).names_domain
