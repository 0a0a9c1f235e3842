"""Inputs built to exhaust memory or the stack: each is refused before it is read, with
a message naming the file (and sheet) and exit 2; never an abort or a traceback."""

from __future__ import annotations

import re
import struct
from pathlib import Path
from typing import Any

import pytest
from hostile_inputs import GOOD, rezip, validate, xlsx


def _book(**cells: str) -> bytes:
    def build(ws: Any) -> None:
        ws.append(["slug", "url"])
        ws.append(list(GOOD))
        for ref, value in cells.items():
            ws[ref] = value

    return xlsx(build)


def test_one_cell_at_the_last_cell_of_the_sheet(workdir: Path) -> None:
    path = workdir / "far.xlsx"
    path.write_bytes(_book(XFD1048576="x"))
    validate(
        path, code=2, refused_words="sheet Links: the sheet declares a used range of 1,048,576 rows"
    )


def test_far_cell_behind_a_lying_dimension(workdir: Path) -> None:
    def lie(name: str, data: bytes) -> bytes:
        if name != "xl/worksheets/sheet1.xml":
            return data
        data = data.replace(b'<dimension ref="A1:XFD1048576" />', b'<dimension ref="A1:B2" />')
        start = data.index(b'<row r="1048576"')
        end = data.index(b"</row>", start) + len(b"</row>")
        row = data[start:end]  # moved first: rows out of order, as a crafted file may be
        return data[:start].replace(b"<sheetData>", b"<sheetData>" + row) + data[end:]

    path = workdir / "liar.xlsx"
    path.write_bytes(rezip(_book(XFD1048576="x"), lie))
    validate(path, code=2, refused_words="the sheet holds a used range")


def _far_row_first(data: bytes, row: int) -> bytes:
    """The sheet with a dimension that lies and row ``row`` moved to the start."""

    def lie(name: str, xml: bytes) -> bytes:
        if name != "xl/worksheets/sheet1.xml":
            return xml
        xml = re.sub(rb'<dimension ref="[^"]*" ?/>', b'<dimension ref="A1:B2" />', xml)
        start = xml.index(b'<row r="%d"' % row)
        end = xml.index(b"</row>", start) + len(b"</row>")
        far = xml[start:end]
        return xml[:start].replace(b"<sheetData>", b"<sheetData>" + far) + xml[end:]

    return rezip(data, lie)


@pytest.mark.parametrize("ref", ["XFD999999", "XFD100000", "XFD2000000"])
def test_far_cell_out_of_order_below_a_million_rows(workdir: Path, ref: str) -> None:
    """A far cell first, before rows in order, is found whatever its row (calamine
    would allocate hundreds of GiB for it and abort the process)."""
    row = int(re.sub("[A-Z]", "", ref))
    path = workdir / "early.xlsx"
    if row > 1_048_576:  # past Excel's last row: written by hand
        data = rezip(
            _book(),
            lambda name, xml: (
                xml.replace(
                    b"<sheetData>",
                    b'<sheetData><row r="%d"><c r="XFD%d" t="inlineStr"><is><t>x</t></is></c></row>'
                    % (row, row),
                )
                if name == "xl/worksheets/sheet1.xml"
                else xml
            ),
        )
    else:
        data = _far_row_first(_book(**{ref: "x"}), row)
    path.write_bytes(data)
    validate(path, code=2, refused_words=f"the sheet holds a used range of {row:,} rows")


def test_far_cell_with_its_attributes_in_another_order(workdir: Path) -> None:
    """``<c s="0" r="XFD1048576">`` is the same cell to calamine as ``<c r=... s=...>``."""

    def far(name: str, xml: bytes) -> bytes:
        if name != "xl/worksheets/sheet1.xml":
            return xml
        cell = b'<row r="1048576"><c s="0" r="XFD1048576" t="inlineStr"><is><t>x</t></is></c></row>'
        return xml.replace(b"</sheetData>", cell + b"</sheetData>")

    path = workdir / "order.xlsx"
    path.write_bytes(rezip(_book(), far))
    validate(path, code=2, refused_words="1,048,576 rows x 16,384 columns")


def _with_rows(rows: bytes) -> bytes:
    """The book with ``rows`` added at the end of its sheet's data, as written."""

    def add(name: str, xml: bytes) -> bytes:
        if name != "xl/worksheets/sheet1.xml":
            return xml
        return xml.replace(b"</sheetData>", rows + b"</sheetData>")

    return rezip(_book(), add)


def test_a_cell_without_reference_in_a_far_row(workdir: Path) -> None:
    """A cell with no ``r`` takes its row's number: the row's own number counts."""
    path = workdir / "far-row.xlsx"
    far = b'<row r="1048576"><c t="inlineStr"><is><t>y</t></is></c></row>'
    path.write_bytes(
        rezip(
            _book(XFD1="x"),
            lambda n, xml: (
                xml.replace(b"</sheetData>", far + b"</sheetData>")
                if n == "xl/worksheets/sheet1.xml"
                else xml
            ),
        )
    )
    validate(path, code=2, refused_words="1,048,576 rows x 16,384 columns")


@pytest.mark.parametrize(
    "cell",
    [
        b'<c r = "XFD1048576" t="inlineStr"><is><t>x</t></is></c>',
        b"<c r='XFD1048576' t=\"inlineStr\"><is><t>x</t></is></c>",
        b'<c\tr="XFD1048576" t="inlineStr"><is><t>x</t></is></c>',
        b'<c\n r="XFD1048576" t="inlineStr"><is><t>x</t></is></c>',
    ],
    ids=["spaces around =", "single quotes", "tab", "line break"],
)
def test_a_far_cell_whose_reference_is_written_otherwise(workdir: Path, cell: bytes) -> None:
    """XML allows these spellings and calamine reads them; the guard's searches do
    not: refused (calamine aborted the process on each)."""
    path = workdir / "spelled.xlsx"
    path.write_bytes(_with_rows(b'<row r="1048576">' + cell + b"</row>"))
    validate(path, code=2, refused_words="written in a form linksync does not check")


def test_an_odd_reference_after_the_same_spelling_in_a_cells_text(workdir: Path) -> None:
    """Every occurrence is looked at, not the first of a spelling: text with a tab
    before an r first, then a cell whose second r follows a tab."""
    path = workdir / "both.xlsx"
    text = b'<row r="3"><c r="C3" t="inlineStr"><is><t>a\tr b</t></is></c></row>'
    far = b'<row r="4"><c r="A4" t="inlineStr"\tr="XFD1048576"><is><t>x</t></is></c></row>'
    path.write_bytes(_with_rows(text + far))
    validate(path, code=2, refused_words="written in a form linksync does not check")


def test_cells_without_reference_wide_enough_to_reach_the_last_column(workdir: Path) -> None:
    path = workdir / "wide.xlsx"
    wide = b'<c t="inlineStr"><is><t>x</t></is></c>' * 16_384
    path.write_bytes(
        _with_rows(
            b'<row r="3">'
            + wide
            + b'</row><row r="1048576"><c r="A1048576" t="inlineStr"><is><t>y</t></is></c></row>'
        )
    )
    validate(path, code=2, refused_words="16,384 of its cells have no reference")


def test_a_reference_spelled_oddly_inside_a_cells_text_is_only_text(workdir: Path) -> None:
    """The same spellings in a cell's own text (an inline string of the sheet) are
    text: the sheet is read."""
    path = workdir / "text.xlsx"
    text = b"<t>see r = 'b' and\tr=\"c\"</t>"
    path.write_bytes(
        _with_rows(b'<row r="3"><c r="C3" t="inlineStr"><is>' + text + b"</is></c></row>")
    )
    checked = validate(path, code=0)
    assert checked.doc["valid"] == 1


def _declare(data: bytes, part: str, size: int) -> bytes:
    """The zip with ``part``'s uncompressed size set to ``size`` in both its headers."""
    raw = bytearray(data)
    name = part.encode()
    at = 0
    while (at := raw.find(name, at)) >= 0:
        if raw[at - 30 : at - 26] == b"PK\x03\x04":
            raw[at - 30 + 22 : at - 30 + 26] = struct.pack("<I", size)
        elif raw[at - 46 : at - 42] == b"PK\x01\x02":
            raw[at - 46 + 24 : at - 46 + 28] = struct.pack("<I", size)
        at += 1
    return bytes(raw)


def test_zip_bomb_declared_size(workdir: Path) -> None:
    """A part that says it inflates to 3.2 GB is refused before anything inflates."""
    path = workdir / "bomb.xlsx"
    path.write_bytes(_declare(_book(), "xl/worksheets/sheet1.xml", 3_200_000_000))
    validate(path, code=2, refused_words="zip bomb")


def test_zip_bomb_lying_about_its_size(workdir: Path) -> None:
    """A part that inflates past the size it declares (the bomb hiding from the check
    above) fails its size and CRC check while inflating, before calamine reads it."""

    def grow(name: str, data: bytes) -> bytes:
        if name == "xl/styles.xml":
            return data.replace(b"</styleSheet>", b" " * (4 << 20) + b"</styleSheet>")
        return data

    path = workdir / "lying.xlsx"
    path.write_bytes(_declare(rezip(_book(), grow), "xl/styles.xml", 2000))
    validate(path, code=2, refused_words="corrupt")


def test_csv_header_of_a_million_columns(workdir: Path) -> None:
    path = workdir / "wide.csv"
    path.write_text(
        ",".join(f"c{i}" for i in range(1_000_000)) + "\nhttps://e.com,a\n", encoding="utf-8"
    )
    validate(path, code=2, refused_words="first line is longer than 256 KB")


def test_csv_header_wider_than_excel(workdir: Path) -> None:
    path = workdir / "wide2.csv"
    path.write_text(
        "url," + ",".join(f"c{i}" for i in range(20_000)) + "\nhttps://e.com\n", encoding="utf-8"
    )
    validate(path, code=2, refused_words="20,001 columns; at most 16,384")
