"""QR codes: what each code encodes (decoded back with zxing-cpp), safe and unique file
names, the zip read back, and the QR column of an annotated workbook read back with
openpyxl."""

from __future__ import annotations

import csv
import io
import shutil
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import openpyxl
import pytest
import segno
from PIL import Image

from linksync.model import Action, RemoteLink, RowResult, Status
from linksync.report.annotate import write_annotated
from linksync.report.qr import (
    QrCodes,
    QrLink,
    entry_stems,
    links_of_remote,
    links_of_results,
    render_qr,
    write_qr_zip,
)
from linksync.report.qr_sheet import QR_HEADER, qr_folder

zxingcpp = pytest.importorskip("zxingcpp", reason="pip install zxing-cpp (the test extra)")


def decode(png: bytes) -> list[str]:
    """Every QR code a real decoder finds in the image."""
    found = zxingcpp.read_barcodes(Image.open(io.BytesIO(png)).convert("L"))
    return [b.text for b in found if b.format == zxingcpp.BarcodeFormat.QRCode]


@pytest.mark.parametrize(
    "url",
    [
        "https://lnk.test/spring-sale",
        "https://go.example.com/007",
        "http://lnk.test/a",  # short enough that segno.make would pick a Micro QR
        "https://go.example.com/" + "a-b" * 300,
    ],
)
def test_code_encodes_the_short_url_exactly(url: str) -> None:
    images = render_qr(url)
    assert decode(images.png) == [url]
    code = segno.make_qr(url, error="m")
    assert not code.is_micro and code.designator[-1] in "MQH"
    svg = ElementTree.fromstring(images.svg)
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    assert svg.findtext("{http://www.w3.org/2000/svg}title") == url
    assert render_qr(url) == images  # same link, same bytes


def _png_size(png: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(png)) as img:
        img.verify()
        return img.size


def test_png_is_print_sized_with_the_quiet_zone() -> None:
    images = render_qr("https://lnk.test/spring-sale")
    width, height = _png_size(images.png)
    assert width == height >= (21 + 8) * 10  # version 1 at least, 4-module border, 10 px


def test_names_are_safe_unique_and_readable() -> None:
    hostile = [
        QrLink("lnk.test", "spring-sale", "https://lnk.test/spring-sale"),
        QrLink("lnk.test", "../../etc/passwd", "https://lnk.test/x1"),
        QrLink("lnk.test", ".hidden", "https://lnk.test/x2"),
        QrLink("..", "a/b\\c", "https://x/x3"),
        QrLink("Go.Example.COM", "Caf\u00e9", "https://go.example.com/x4"),
        QrLink("lnk.test", "a" * 2048, "https://lnk.test/x5"),
        QrLink("lnk.test", "a_b", "https://lnk.test/x6"),
        QrLink("lnk.test", "a b", "https://lnk.test/x7"),
        QrLink("lnk.test", "CON", "https://lnk.test/x8"),
    ]
    stems = entry_stems(hostile)
    assert stems[hostile[0]] == "lnk.test/spring-sale"
    assert len({s.lower() for s in stems.values()}) == len(hostile)
    for stem in stems.values():
        folder, name = stem.split("/")
        for part in (folder, name):
            assert part and not part.startswith(".") and ".." not in part
            assert len(part) <= 90 and all(c.isalnum() or c in "._-" for c in part)
            assert part.isascii()


def test_zip_holds_an_svg_and_a_png_per_link_and_an_index(tmp_path: Path) -> None:
    links = [
        QrLink("lnk.test", "spring-sale", "https://lnk.test/spring-sale"),
        QrLink("go.example.com", "007", "https://go.example.com/007"),
        QrLink("lnk.test", "spring-sale", "https://lnk.test/spring-sale"),  # once only
    ]
    out = tmp_path / "codes.zip"
    info = write_qr_zip(links, out)
    assert info.path == out and info.links == 2 and info.left_out == ()
    with zipfile.ZipFile(out) as archive:
        assert archive.testzip() is None
        assert archive.namelist() == [
            "go.example.com/007.svg",
            "go.example.com/007.png",
            "lnk.test/spring-sale.svg",
            "lnk.test/spring-sale.png",
            "index.csv",
        ]
        assert decode(archive.read("lnk.test/spring-sale.png")) == ["https://lnk.test/spring-sale"]
        ElementTree.fromstring(archive.read("go.example.com/007.svg"))
        index = list(csv.reader(io.StringIO(archive.read("index.csv").decode("utf-8-sig"))))
    assert index[0] == ["domain", "slug", "short_url", "svg", "png"]
    assert index[1] == [
        "go.example.com",
        "007",
        "https://go.example.com/007",
        "go.example.com/007.svg",
        "go.example.com/007.png",
    ]
    first = out.read_bytes()
    write_qr_zip(links, out)  # replaced whole; same input, same bytes
    assert out.read_bytes() == first
    assert [p.name for p in tmp_path.iterdir()] == ["codes.zip"]  # no temporary file left


def test_a_link_too_long_for_a_qr_code_is_named_not_dropped(tmp_path: Path) -> None:
    long_url = "https://lnk.test/" + "x" * 3000
    links = [QrLink("lnk.test", "ok", "https://lnk.test/ok"), QrLink("lnk.test", "long", long_url)]
    info = write_qr_zip(links, tmp_path / "codes.zip", left_out=["lnk.test/gone: no short URL"])
    assert info.links == 1
    assert info.left_out[0] == "lnk.test/gone: no short URL"
    assert info.left_out[1].startswith("lnk.test/long: the short URL is too long for a QR code")


def _row(status: Status, action: Action, slug: str, short: str | None, row: int) -> RowResult:
    return RowResult(
        action,
        status,
        source="campaign.xlsx",
        sheet="Spring",
        row=row,
        domain="lnk.test",
        slug=slug,
        short_url=short,
    )


def test_codes_are_for_the_links_a_run_left_in_place() -> None:
    rows = [
        _row(Status.OK, Action.CREATE, "new", "https://lnk.test/new", 3),
        _row(Status.OK, Action.UNCHANGED, "same", "https://lnk.test/same", 4),
        _row(Status.OK, Action.DELETE, "gone", "https://lnk.test/gone", 5),
        _row(Status.FAILED, Action.CREATE, "failed", None, 6),
        _row(Status.INVALID, Action.INVALID, "admin", None, 7),
        _row(Status.OK, Action.UPDATE, "nourl", None, 8),
    ]
    links, missing = links_of_results(rows)
    assert [ln.slug for ln in links] == ["new", "same"]
    assert missing == ["lnk.test/nourl: the service returned no short URL"]
    remote = [RemoteLink("lnk.test", "a", "https://e.com", short_url="https://lnk.test/a")]
    assert links_of_remote(remote) == ([QrLink("lnk.test", "a", "https://lnk.test/a")], [])


# --- the annotated workbook -----------------------------------------------------------


def _campaign(path: Path, rows: int) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Spring"
    ws.append(["Spring campaign"])
    ws.append(["Destination URL", "Back-half"])
    for i in range(rows):
        ws.append([f"https://example.com/{i}", f"s{i}"])
    wb.save(path)
    return path


def _results(rows: int) -> list[RowResult]:
    out = [
        _row(Status.OK, Action.CREATE, f"s{i}", f"https://lnk.test/s{i}", i + 3)
        for i in range(rows)
    ]
    out[1] = _row(Status.INVALID, Action.INVALID, "s1", None, 4)
    return out


def _images_by_row(ws: object) -> dict[int, bytes]:
    out = {}
    for image in ws._images:  # type: ignore[attr-defined]
        start = image.anchor._from
        out[start.row + 1] = (start.col + 1, image._data())
    return out  # type: ignore[return-value]


def test_annotated_workbook_has_a_qr_image_in_each_row(tmp_path: Path) -> None:
    source = _campaign(tmp_path / "campaign.xlsx", 3)
    out = tmp_path / "done.xlsx"
    write_annotated(source, _results(3), out, qr=QrCodes())
    ws = openpyxl.load_workbook(out)["Spring"]
    assert [c.value for c in ws[2]] == [
        "Destination URL",
        "Back-half",
        "Short link",
        "Status",
        "Error",
        "Expires",
        QR_HEADER,
    ]
    images = _images_by_row(ws)
    assert sorted(images) == [3, 5]  # the invalid row 4 has no link, so no code
    for row, (col, png) in images.items():
        assert col == 7
        assert decode(png) == [ws.cell(row, 3).value]
    assert ws.row_dimensions[3].height >= 57
    assert not qr_folder(out).exists()

    # The annotated copy used as the source of the next run, annotated again.
    rerun = [_row(Status.OK, Action.UNCHANGED, f"s{i}", f"https://lnk.test/s{i}", i + 3)
             for i in (0, 2)]  # fmt: skip
    second = tmp_path / "second"
    second.mkdir()
    shutil.copy(out, second / "campaign.xlsx")
    write_annotated(second / "campaign.xlsx", rerun, second / "done.xlsx", qr=QrCodes())
    ws = openpyxl.load_workbook(second / "done.xlsx")["Spring"]
    assert [c.value for c in ws[2]][2:] == ["Short link", "Status", "Error", "Expires", QR_HEADER]
    assert ws.max_column == 7
    assert sorted(_images_by_row(ws)) == [3, 5] and len(ws._images) == 2  # not doubled

    shutil.copy(second / "done.xlsx", second / "campaign.xlsx")
    write_annotated(second / "campaign.xlsx", rerun, second / "plain.xlsx")  # no --qr
    ws = openpyxl.load_workbook(second / "plain.xlsx")["Spring"]
    assert ws._images == [] and ws.cell(2, 7).value is None  # no stale codes
    assert ws.cell(3, 4).value == "unchanged"


def test_a_large_sheet_links_to_png_files_beside_the_workbook(tmp_path: Path) -> None:
    source = _campaign(tmp_path / "campaign.xlsx", 3)
    out = tmp_path / "done.xlsx"
    write_annotated(source, _results(3), out, qr=QrCodes(sheet_image_limit=1))
    ws = openpyxl.load_workbook(out)["Spring"]
    assert ws._images == []
    cell = ws.cell(3, 7)
    assert cell.value == "done-qr/lnk.test/s0.png"
    assert cell.hyperlink.target == "done-qr/lnk.test/s0.png"
    assert ws.cell(4, 7).value is None
    assert decode((tmp_path / cell.value).read_bytes()) == ["https://lnk.test/s0"]


def test_annotating_keeps_the_images_of_the_users_workbook(tmp_path: Path) -> None:
    from openpyxl.drawing.image import Image as SheetImage

    source = _campaign(tmp_path / "campaign.xlsx", 2)
    wb = openpyxl.load_workbook(source)
    logo = io.BytesIO()
    Image.new("RGB", (40, 20), "red").save(logo, "PNG")
    wb["Spring"].add_image(SheetImage(logo), "D1")
    wb.save(source)
    out = tmp_path / "done.xlsx"
    write_annotated(source, _results(2), out)
    ws = openpyxl.load_workbook(out)["Spring"]
    assert len(ws._images) == 1 and ws._images[0].anchor._from.col == 3


def test_run_zip_from_results(tmp_path: Path) -> None:
    links, missing = links_of_results(_results(3))
    info = write_qr_zip(links, tmp_path / "run.zip", left_out=missing)
    assert info.links == 2
    with zipfile.ZipFile(info.path) as archive:
        assert "lnk.test/s2.svg" in archive.namelist()
