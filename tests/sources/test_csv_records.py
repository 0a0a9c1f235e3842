"""A CSV's records read the way Python's csv module reads them, whichever way the
reader goes through a part of the file: split at once where a block of lines has no
quote and the same number of values on each line, the csv module from the first block
that does not. Files bigger than one block (about a MB) put the quote, the ragged row or
the unclosed quote far from the start, as a long export does."""

from __future__ import annotations

import csv
import io
import random
from pathlib import Path

import pytest
from hostile_inputs import Expect, validate

from linksync.sources import read_sources
from linksync.sources.cleaning import clean_column
from linksync.sources.csv_records import PANDAS_FROM, read_records
from support.imports import modules_after

HEAD = "slug,url,description\n"
#: Rows enough to fill more than one block of the reader (about 6 MB).
MANY = 120_000


def _rows(n: int, start: int = 0) -> str:
    return "".join(f"s{i},https://e.com/p/{i},row number {i}\n" for i in range(start, start + n))


def _write(path: Path, text: str, newline: str = "\n") -> Path:
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return path


def _read(path: Path) -> list[tuple[str | None, str | None, str | None, int | None]]:
    batch = read_sources([path])
    return [
        (s.slug, s.url, s.description, s.provenance.row if s.provenance else None)
        for s in batch.specs
    ]


def _as_csv_module_reads(text: str) -> list[tuple[str | None, str | None, str | None, int]]:
    """The rows Python's csv module reads, cleaned as the reader cleans a cell (ASCII
    whitespace trimmed, an empty cell is no value), empty rows left out."""
    records = list(csv.reader(io.StringIO(text, newline="")))[1:]
    out = []
    for k, rec in enumerate(records):
        cells = [(rec[c].strip(" \t\r\n") if c < len(rec) else "") or None for c in range(3)]
        if any(cells):
            out.append((cells[0], cells[1], cells[2], k + 2))
    return out


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_quoted_value_far_down_a_long_file(tmp_path: Path, newline: str) -> None:
    text = HEAD + _rows(MANY) + 'q1,https://e.com/q,"quoted, with a comma\nand a line break"\n'
    text += _rows(3, MANY)
    path = _write(tmp_path / "long.csv", text, newline)
    read = _read(path)
    assert read == _as_csv_module_reads(text.replace("\n", newline))
    assert read[MANY] == (
        "q1",
        "https://e.com/q",
        f"quoted, with a comma{newline}and a line break",
        MANY + 2,
    )
    assert read[-1] == (
        f"s{MANY + 2}",
        f"https://e.com/p/{MANY + 2}",
        f"row number {MANY + 2}",
        MANY + 5,
    )


def test_odd_records_read_as_the_csv_module_reads_them(tmp_path: Path) -> None:
    """Blank lines, short records, a quote inside an unquoted value, values after a
    closing quote, a lone carriage return as a line end, a byte-order mark."""
    odd = (
        "a1,https://e.com/a1\n"  # one value short
        "\n"  # a blank line
        'a2,https://e.com/a2,5" screen\n'
        'a3,https://e.com/a3,"quoted"after\n'
        "a4,https://e.com/a4,  spaced  \r"
        "a5,https://e.com/a5,last\n"
    )
    text = HEAD + _rows(5) + odd + _rows(5, 10)
    path = tmp_path / "odd.csv"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert _read(path) == _as_csv_module_reads(text)


def test_one_column_file_keeps_its_blank_lines_out(tmp_path: Path) -> None:
    path = _write(tmp_path / "one.csv", "url\nhttps://e.com/1\n\nhttps://e.com/2\n")
    assert [(u, r) for _, u, _, r in _read(path)] == [
        ("https://e.com/1", 2),
        ("https://e.com/2", 4),
    ]


def test_a_ragged_row_far_down_a_long_file_is_named(workdir: Path) -> None:
    text = HEAD + _rows(MANY) + "rag,https://e.com/r,d,extra\n" + _rows(2, MANY)
    path = _write(workdir / "ragged.csv", text)
    checked = validate(path, code=1, expect=[Expect(MANY + 2, "D (no header)", "'extra'")])
    assert checked.doc["valid"] == MANY + 2 and checked.doc["invalid"] == 1


def test_an_unclosed_quote_far_down_a_long_file_keeps_the_rows_before(workdir: Path) -> None:
    text = HEAD + _rows(MANY) + 'open,"https://e.com/q,d\n' + _rows(2, MANY)
    path = _write(workdir / "open.csv", text)
    checked = validate(path, code=1, expect=[Expect(MANY + 2, "url", "never closes")])
    assert checked.doc["valid"] == MANY and checked.doc["invalid"] == 1
    assert "2 line(s) after it were not read" in checked.result.output


def test_a_closed_quote_on_the_last_line_without_a_line_break(workdir: Path) -> None:
    text = HEAD + _rows(2) + 'end,https://e.com/end,"closed, at the end"'
    path = _write(workdir / "end.csv", text)
    assert _read(path)[-1] == ("end", "https://e.com/end", "closed, at the end", 4)
    validate(path, code=0, good_rows=[2, 3, 4])


def _quoted_rows(n: int, start: int = 0, pad: str = "") -> str:
    return "".join(
        f's{i},https://e.com/p/{i},"row, number {i}{pad}"\n' for i in range(start, start + n)
    )


def test_a_big_quoted_file_names_its_ragged_row_and_unclosed_quote(workdir: Path) -> None:
    """Quoted values from the start of a file bigger than ``PANDAS_FROM`` (pandas' C
    parser reads it): the same findings as in a small file."""
    many = 80_000  # about 35 MB
    text = (
        HEAD
        + _quoted_rows(many, pad=" " + "x" * 400)
        + "rag,https://e.com/r,d,extra\n"
        + _quoted_rows(1, many)
    )
    text += 'open,"https://e.com/q,d\n' + _rows(2, many + 1)  # no quote after it
    path = _write(workdir / "big.csv", text)
    assert path.stat().st_size > PANDAS_FROM
    expect = [Expect(many + 2, "D (no header)", "'extra'"), Expect(many + 4, "url", "never closes")]
    checked = validate(path, code=1, expect=expect)
    assert checked.doc["valid"] == many + 1 and checked.doc["invalid"] == 2


def test_a_small_quoted_file_is_read_without_pandas(tmp_path: Path) -> None:
    (tmp_path / "q.csv").write_text(HEAD + _quoted_rows(3) + 'x,"https://e.com/x",\n')
    modules, proc = modules_after(tmp_path, "validate", "q.csv")
    assert proc.returncode == 0, proc.stderr
    assert "4 row(s)" in proc.stdout or "4 rows" in proc.stdout, proc.stdout
    assert "pandas" not in modules


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_a_quoted_last_line_without_a_line_break_is_the_last_record(
    tmp_path: Path, newline: str
) -> None:
    """The records end with the file's last line: no record of empty cells after it,
    whether the file is read from its path or as decoded text."""
    text = HEAD + _rows(2) + 'end,https://e.com/end,"closed, at the end"'
    path = _write(tmp_path / "end.csv", text, newline)
    want = {
        0: ["s0", "s1", "end"],
        1: ["https://e.com/p/0", "https://e.com/p/1", "https://e.com/end"],
        2: ["row number 0", "row number 1", "closed, at the end"],
    }
    for source in (path, path.read_bytes().decode("utf-8")):
        enc = "utf-8" if isinstance(source, Path) else None
        got = read_records(source, encoding=enc, delimiter=",", skip=1, width=3, wanted=[0, 1, 2])
        assert (got.columns, got.whole, got.unclosed) == (want, True, None)


#: Cells of unquoted exports: trimmed, padded with spaces or tabs, empty, not ASCII.
_CELLS = ["a", "bc", "", " ", " a", "a ", "\ta", "a\t", "a b", "é", " é ", "x-1", "\t"]
#: Trimmed cells, long enough for the file to span several blocks.
_PLAIN = ["abcdefghij", "https://e.com/p/1", "row number 1"]


@pytest.mark.parametrize("seed", range(8))
def test_cells_split_at_once_are_cleaned_as_the_csv_module_reads_them(
    tmp_path: Path, seed: int
) -> None:
    """Blocks without a quote, split at once, some of whose cells are padded or empty,
    in any column, at the start or the end of a line or of a block, in the first block
    or a later one only: each cell comes out as the ``csv`` module reads it, then
    trimmed, an empty one as no value."""
    rng = random.Random(seed)
    width = rng.choice([1, 2, 3, 4])
    newline = rng.choice(["\n", "\r\n"])
    count = rng.choice([5, 100_000])
    # Per column, from which line on its cells may be padded or empty (never: count).
    odd_from = [rng.choice([0, count // 2, count - 1, count]) for _ in range(width)]
    lines = [
        ",".join(rng.choice(_CELLS if k >= odd_from[c] else _PLAIN) for c in range(width))
        for k in range(count)
    ]
    head = ",".join(f"h{c}" for c in range(width))
    text = head + newline + newline.join(lines) + rng.choice(["", newline])
    path = tmp_path / "cells.csv"
    path.write_bytes(text.encode("utf-8"))
    records = read_records(
        path, encoding="utf-8", delimiter=",", skip=1, width=width, wanted=list(range(width))
    )
    expected = list(csv.reader(io.StringIO(text, newline="")))[1:]
    for c in range(width):
        cells = [rec[c] if c < len(rec) else "" for rec in expected]
        got = clean_column(records.columns[c])[0].tolist()
        assert got == [cell.strip(" \t\r\n") or None for cell in cells], (c, width, newline)


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "cp1252"])
def test_blocks_cut_anywhere_in_the_bytes_read_as_the_whole_text(
    tmp_path: Path, encoding: str
) -> None:
    """A file read a MB at a time: characters of several bytes wherever a read ends, a
    line longer than a read, no line end at the end; each cell as in the decoded text."""
    word = "café€ß" if encoding == "cp1252" else "café中😀"
    lines = [f"s{i},https://e.com/{word}{i},{word * (i % 7)}" for i in range(60_000)]
    lines[30_000] = "long,https://e.com/long," + "é" * 1_500_000  # more than one read
    text = "slug,url,description\n" + "\n".join(lines)
    path = tmp_path / "cut.csv"
    path.write_bytes(text.encode(encoding))
    records = read_records(
        path, encoding=encoding, delimiter=",", skip=1, width=3, wanted=[0, 1, 2]
    )
    expected = [line.split(",") for line in lines]  # (no quote, no padded cell)
    for c in range(3):
        got = clean_column(records.columns[c])[0].tolist()
        assert got == [rec[c] or None for rec in expected], c


@pytest.mark.parametrize("delimiter", [",", ";", "\t"])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_bom_file_split_at_once_then_by_the_csv_module(
    tmp_path: Path, delimiter: str, newline: str
) -> None:
    """A UTF-8 file with a byte-order mark, not ASCII, several blocks split at once,
    then a short record, a ragged record and a lone carriage return far down without a
    quote (read from there by the csv module): every cell as the csv module reads the
    decoded text (the lone carriage return a line end), the ragged record's extra
    value named on its row, nothing else."""
    d = delimiter
    lines = [f"s{i}{d}https://e.com/é/{i}{d}ligne n° {i}" for i in range(MANY)]
    lines += [f"short{d}https://e.com/short", f"rag{d}https://e.com/rag{d}d{d}extra"]
    lines += [f"cr{d}https://e.com/cr{d}a\rb", f"z{d}https://e.com/z{d}"]
    text = d.join(["slug", "url", "description"]) + newline + newline.join(lines) + newline
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    records = read_records(
        path, encoding="utf-8-sig", delimiter=d, skip=1, width=3, wanted=[0, 1, 2]
    )
    expected = list(csv.reader(io.StringIO(text, newline=""), delimiter=d))[1:]
    assert not records.whole and records.unclosed is None
    for c in range(3):
        cells = [rec[c] if c < len(rec) else "" for rec in expected]
        got = clean_column(records.columns[c])[0].tolist()
        assert got == [cell.strip(" \t\r\n") or None for cell in cells], (c, newline)
    read = read_sources([path])
    found = [(p.provenance.row, p.column) for f in read.frames for _, p in f.row_problems]
    assert found == [(MANY + 3, "D (no header)")] and not read.problems
    assert len(read.specs) == MANY + 5 and read.specs[0].description == "ligne n° 0"
