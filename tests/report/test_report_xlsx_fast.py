"""The streaming xlsx writer: a well-formed OOXML package that openpyxl reads back, with
Excel's escaping of text XML cannot carry."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from linksync.model import RESULT_COLUMNS, Action, RowResult, RunInfo, Status
from linksync.model.links import column_letter
from linksync.report import ReportOptions, open_writer
from linksync.report.cells import XLSX_MAX_CELL_CHARS
from linksync.report.xlsx import FAILED_FILL, SKIPPED_FILL, XlsxWriter
from linksync.report.xlsx_stream import StreamingWorkbook
from linksync.report.xlsx_xml import CellStyle, escape_text, escape_url

MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
PKG = "{http://schemas.openxmlformats.org/package/2006/relationships}"
CT = "{http://schemas.openxmlformats.org/package/2006/content-types}"

#: Text no spreadsheet should mangle: controls, Excel's own escape, surrogates, unicode.
AWKWARD = {
    "controls": "a\x00b\x01c\x08d\x0be\x0cf\x1fg\rh\ti\nj",
    "literal_escape": "keep _x0041_ as typed",
    "noncharacters": "x\ufffey\uffffz",
    "surrogate": "half \ud83d pair",
    "unicode": "Ünïcødé 漢字 עברית 🚀 \u00a0nbsp",
    "xml": "a & b < c > d \"q\" 'a' ]]> <![CDATA[",
    "edges": "  padded  ",
    "formula": '=HYPERLINK("http://evil","x")',
}


def excel_unescape(raw: str) -> str:
    """What Excel shows for stored text: ``_xHHHH_`` decoded, ``_x005F_`` first."""
    return re.sub(r"_x([0-9A-Fa-f]{4})_", lambda m: chr(int(m.group(1), 16)), raw)


def expected_shown(text: str) -> str:
    """``text`` as Excel shows it after the round trip: surrogates cannot be stored."""
    return re.sub("[\ud800-\udfff]", "\ufffd", text)


def parts(path: Path) -> dict[str, ET.Element]:
    """Every XML part of the package, parsed (which fails on malformed XML)."""
    with zipfile.ZipFile(path) as z:
        assert z.testzip() is None
        return {name: ET.fromstring(z.read(name)) for name in z.namelist()}


def _info() -> RunInfo:
    return RunInfo(target="https://api.example.com/v1", duration_s=1.0, requests=3)


def _write(path: Path, results: list[RowResult], **kw: Any) -> Path:
    writer = open_writer(path, kw.pop("options", None))
    for r in results:
        writer.write(r)
    return writer.close(_info(), **kw)


def test_escape_text_round_trips_through_excels_decoding() -> None:
    for text in AWKWARD.values():
        escaped = escape_text(text)
        ET.fromstring(f"<t>{escaped}</t>".encode())  # well-formed, encodable
        shown = excel_unescape(ET.fromstring(f"<t>{escaped}</t>").text or "")
        assert shown == expected_shown(text)
    assert escape_text("plain text") == "plain text"
    assert escape_text("\r") == "_x000D_"
    assert escape_text("_x0041_") == "_x005F_x0041_"


def test_escape_url_encodes_what_excel_encodes_once() -> None:
    assert escape_url("https://x.test/a b") == "https://x.test/a%20b"
    assert escape_url('https://x.test/{"a"}[b]^`<>') == (
        "https://x.test/%7b%22a%22%7d%5bb%5d%5e%60%3c%3e"
    )
    assert escape_url("https://x.test/a%20b c") == "https://x.test/a%20b c"  # already encoded
    assert escape_url("https://x.test/?a=1&b=2") == "https://x.test/?a=1&b=2"


def test_column_letters() -> None:
    assert [column_letter(c) for c in (0, 25, 26, 51, 701, 702, 16383)] == [
        "A",
        "Z",
        "AA",
        "AZ",
        "ZZ",
        "AAA",
        "XFD",
    ]


def test_awkward_text_is_well_formed_and_reads_back(tmp_path: Path) -> None:
    results = [
        RowResult(Action.CREATE, Status.FAILED, slug=name, url=text, message=text)
        for name, text in AWKWARD.items()
    ]
    path = _write(tmp_path / "out.xlsx", results)
    xml = parts(path)
    assert set(xml) >= {
        "[Content_Types].xml",
        "_rels/.rels",
        "xl/workbook.xml",
        "xl/_rels/workbook.xml.rels",
        "xl/styles.xml",
        "xl/worksheets/sheet1.xml",
        "xl/worksheets/sheet2.xml",
    }
    ws = openpyxl.load_workbook(path)["Results"]
    for row, text in enumerate(AWKWARD.values(), start=2):
        for name in ("url", "message"):
            cell = ws.cell(row, RESULT_COLUMNS.index(name) + 1)
            assert cell.data_type == "s"
            # openpyxl hands back the stored text; Excel decodes its escapes.
            assert excel_unescape(cell.value) == expected_shown(text)
    assert ws.cell(8, RESULT_COLUMNS.index("message") + 1).value == "  padded  "
    with zipfile.ZipFile(path) as z:
        assert b"<f>" not in z.read("xl/worksheets/sheet2.xml")


def test_text_longer_than_a_cell_is_cut_with_a_mark(tmp_path: Path) -> None:
    long = "é" * (XLSX_MAX_CELL_CHARS + 10)
    path = _write(tmp_path / "out.xlsx", [RowResult(Action.CREATE, Status.OK, message=long)])
    parts(path)
    value = openpyxl.load_workbook(path)["Results"].cell(2, RESULT_COLUMNS.index("message") + 1)
    assert len(value.value) == XLSX_MAX_CELL_CHARS
    assert value.value == "é" * (XLSX_MAX_CELL_CHARS - 1) + "\u2026"


def test_package_structure_summary_first_and_active(tmp_path: Path) -> None:
    results = [
        RowResult(Action.CREATE, Status.OK, short_url=f"https://l.test/{i}", row=i)
        for i in range(3)
    ]
    path = _write(tmp_path / "out.xlsx", results)
    xml = parts(path)
    overrides = {
        o.get("PartName"): o.get("ContentType")
        for o in xml["[Content_Types].xml"].iter(f"{CT}Override")
    }
    for name in xml:
        if name.endswith(".xml") and name != "[Content_Types].xml":
            assert "/" + name in overrides, name
    book = xml["xl/workbook.xml"]
    assert [s.get("name") for s in book.iter(f"{MAIN}sheet")] == ["Summary", "Results"]
    view = book.find(f"{MAIN}bookViews/{MAIN}workbookView")
    assert view is not None and view.get("activeTab") == "0"
    filter_name = book.find(f"{MAIN}definedNames/{MAIN}definedName")
    assert filter_name is not None and filter_name.get("name") == "_xlnm._FilterDatabase"
    assert filter_name.get("localSheetId") == "1"
    assert filter_name.text == "Results!$A$1:$P$4"
    rels = {
        r.get("Id"): r.get("Target")
        for r in xml["xl/_rels/workbook.xml.rels"].iter(f"{PKG}Relationship")
    }
    for sheet in book.iter(f"{MAIN}sheet"):
        assert "xl/" + rels[sheet.get(f"{REL}id")] in xml
    summary, data = xml["xl/worksheets/sheet1.xml"], xml["xl/worksheets/sheet2.xml"]
    assert summary.find(f"{MAIN}sheetViews/{MAIN}sheetView").get("tabSelected") == "1"  # type: ignore[union-attr]
    assert data.find(f"{MAIN}sheetViews/{MAIN}sheetView").get("tabSelected") is None  # type: ignore[union-attr]
    assert data.find(f"{MAIN}dimension").get("ref") == "A1:P4"  # type: ignore[union-attr]
    # Every hyperlink points at an external relationship of its sheet.
    sheet_rels = {
        r.get("Id"): r
        for r in xml["xl/worksheets/_rels/sheet2.xml.rels"].iter(f"{PKG}Relationship")
    }
    links = list(data.iter(f"{MAIN}hyperlink"))
    assert [h.get("ref") for h in links] == ["F2", "F3", "F4"]
    for h, i in zip(links, range(3), strict=True):
        rel = sheet_rels[h.get(f"{REL}id")]
        assert rel.get("Target") == f"https://l.test/{i}"
        assert rel.get("TargetMode") == "External"
    wb = openpyxl.load_workbook(path)
    assert wb.sheetnames == ["Summary", "Results"] and wb.active.title == "Summary"  # type: ignore[union-attr]


def test_link_targets_are_encoded_and_link_cells_styled(tmp_path: Path) -> None:
    url = "https://go.test/a{b}|c?x=1&y=<2>"
    results = [
        RowResult(Action.CREATE, Status.OK, short_url=url),
        RowResult(Action.CREATE, Status.FAILED, short_url="https://go.test/f"),
        RowResult(Action.DELETE, Status.SKIPPED, short_url="https://go.test/s"),
    ]
    path = _write(tmp_path / "out.xlsx", results)
    parts(path)
    ws = openpyxl.load_workbook(path)["Results"]
    col = RESULT_COLUMNS.index("short_url") + 1
    assert ws.cell(2, col).value == url
    assert ws.cell(2, col).hyperlink.target == "https://go.test/a%7bb%7d|c?x=1&y=%3c2%3e"  # type: ignore[union-attr]
    for row, fill in ((3, FAILED_FILL), (4, SKIPPED_FILL)):
        cell = ws.cell(row, col)
        assert cell.hyperlink is not None and cell.font.underline == "single"
        assert cell.fill.fgColor.rgb == "FF" + fill[1:]
        assert ws.cell(row, 1).fill.fgColor.rgb == "FF" + fill[1:]  # blank, still red/amber


def test_many_rows_keep_filter_dimension_and_widths(tmp_path: Path) -> None:
    n = 2500
    results = [
        RowResult(
            Action.CREATE,
            Status.OK,
            row=i,
            slug=f"s{i}",
            short_url=f"https://l.test/s{i}",
            url="https://example.com/" + "p" * (i % 90),
            attempts=1,
        )
        for i in range(n)
    ]
    path = _write(tmp_path / "out.xlsx", results)
    ws = openpyxl.load_workbook(path)["Results"]
    assert ws.max_row == n + 1
    assert ws.auto_filter.ref == f"A1:P{n + 1}"
    assert ws.freeze_panes == "A2"
    assert ws.cell(n + 1, RESULT_COLUMNS.index("row") + 1).value == n - 1
    assert ws.column_dimensions["G"].width == pytest.approx(60.71, abs=0.01)  # capped
    assert ws.column_dimensions["C"].width >= len("row") + 3


def test_secrets_never_reach_any_part(tmp_path: Path) -> None:
    secret = "sk_live_abc"
    r = RowResult(Action.CREATE, Status.FAILED, message=f"Bearer {secret} rejected")
    options = ReportOptions(secrets=(secret,), title=f"run with {secret}")
    path = _write(tmp_path / "out.xlsx", [r], options=options)
    with zipfile.ZipFile(path) as z:
        for name in z.namelist():
            assert secret.encode() not in z.read(name)
    wb = openpyxl.load_workbook(path)
    assert wb["Results"].cell(2, RESULT_COLUMNS.index("message") + 1).value == "Bearer *** rejected"
    assert wb["Summary"].cell(1, 1).value == "run with ***"


def test_sheet_stream_numbers_styles_and_blank_cells(tmp_path: Path) -> None:
    wb = StreamingWorkbook()
    bold = wb.add_style(CellStyle(bold=True, size=14, font_color="#9C0006"))
    fill = wb.add_style(CellStyle(fill="#FFEB9C", bottom_border=True))
    sheet = wb.add_sheet("Data")
    sheet.append(["n", 0, -3, 1.5, 1e300], bold)
    sheet.append([None, "", "x"], fill, {2: 0})
    sheet.append([])
    sheet.append([None, None, None, "far"])
    sheet.autofilter = (1, 0, 4, 3)
    path = tmp_path / "s.xlsx"
    wb.save(path)
    wb.close()
    xml = parts(path)
    ref = xml["xl/workbook.xml"].find(f"{MAIN}definedNames/{MAIN}definedName")
    assert ref is not None and ref.text == "Data!$A$1:$D$4"
    ws = openpyxl.load_workbook(path)["Data"]
    assert [c.value for c in ws[1]] == ["n", 0, -3, 1.5, 1e300]
    assert ws.cell(1, 1).font.bold and ws.cell(1, 1).font.sz == 14
    assert ws.cell(1, 1).font.color.rgb == "FF9C0006"
    assert ws.cell(2, 1).fill.fgColor.rgb == "FFFFEB9C"  # styled blank
    assert ws.cell(2, 1).border.bottom.style == "thin"
    assert ws.cell(2, 3).fill.fill_type is None  # per-cell style override
    assert ws.cell(4, 4).value == "far"
    assert sheet.max_chars[:4] == [1, 1, 2, 3]


def test_failed_close_leaves_no_file(tmp_path: Path) -> None:
    target = tmp_path / "out.xlsx"
    writer = XlsxWriter(target)
    writer.write(RowResult(Action.CREATE, Status.OK, slug="a"))
    target.mkdir()  # the final rename cannot replace a directory
    with pytest.raises(OSError):
        writer.close(_info())
    assert [p.name for p in tmp_path.iterdir()] == ["out.xlsx"] and target.is_dir()
