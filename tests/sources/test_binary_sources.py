"""A binary file under a text name: a workbook saved as ``.csv``, a
screenshot named ``links.csv``, a PDF named ``links.yaml``. The file is named as what
it looks like, with what to do, and refused (exit 2, nothing read or sent), instead of
being read as a CSV whose header is garbage (``'‰PNG'``)."""

from __future__ import annotations

import gzip
import io
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hostile_inputs import GOOD, remote, run, validate, xlsx
from PIL import Image
from test_encrypted_workbooks import encrypt, xls


def _image(fmt: str) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (4, 4), (200, 30, 30)).save(buf, format=fmt)
    return buf.getvalue()


def _workbook() -> bytes:
    def build(ws: object) -> None:
        ws.append(["slug", "url"])  # type: ignore[attr-defined]
        ws.append(list(GOOD))  # type: ignore[attr-defined]

    return xlsx(build)


def _ods() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
        zf.writestr("content.xml", "<office:document-content/>")
    return buf.getvalue()


def _zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("campaign.csv", f"slug,url\n{GOOD[0]},{GOOD[1]}\n")
    return buf.getvalue()


PDF = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"

CASES: list[tuple[str, str, Callable[[], bytes], str]] = [
    (
        "xlsx",
        "campaign.csv",
        _workbook,
        "looks like an Excel workbook (a zip file), not a CSV file: rename it to .xlsx",
    ),
    ("png", "links.csv", lambda: _image("PNG"), "looks like a PNG image, not a CSV file"),
    ("jpeg", "links.csv", lambda: _image("JPEG"), "looks like a JPEG image, not a CSV file"),
    ("gif", "links.csv", lambda: _image("GIF"), "looks like a GIF image, not a CSV file"),
    ("pdf-yaml", "links.yaml", lambda: PDF, "looks like a PDF document, not a YAML file"),
    ("pdf-csv", "links.csv", lambda: PDF, "looks like a PDF document, not a CSV file"),
    (
        "gzip",
        "links.csv",
        lambda: gzip.compress(f"slug,url\n{GOOD[0]},{GOOD[1]}\n".encode()),
        "looks like a gzip-compressed file, not a CSV file: decompress it",
    ),
    ("zip", "links.csv", _zip, "looks like a zip file, not a CSV file: unpack it"),
    ("ods", "links.csv", _ods, "looks like an OpenDocument spreadsheet (a zip file)"),
    (
        "xls",
        "links.csv",
        lambda: xls(),
        "looks like an Excel 97-2003 workbook or another old Office file (an OLE file), "
        "not a CSV file: rename it to .xls",
    ),
    (
        "encrypted-xlsx",
        "links.yml",
        lambda: encrypt(_workbook()),
        "looks like a password-protected Excel workbook (an encrypted Office file), not a "
        "YAML file: rename it to .xlsx",
    ),
    ("xlsx-tsv", "links.tsv", _workbook, "looks like an Excel workbook (a zip file)"),
]


@pytest.mark.parametrize("name,make,words", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_binary_file_is_named_as_what_it_looks_like(
    workdir: Path, name: str, make: Callable[[], bytes], words: str
) -> None:
    path = workdir / name
    path.write_bytes(make())
    checked = validate(path, code=2, refused_words=words)
    assert "MISSING_URL_COLUMN" not in checked.result.output
    assert f"{path}: {words}" in checked.result.output


def test_plan_and_apply_refuse_it_before_any_request(workdir: Path) -> None:
    (workdir / "campaign.csv").write_bytes(_workbook())
    good = workdir / "good.yaml"
    good.write_text(f"links:\n  - {{slug: other, url: '{GOOD[1]}'}}\n", encoding="utf-8")
    planned = run("plan", "good.yaml", "campaign.csv")
    assert planned.exit_code == 2 and "campaign.csv: looks like an Excel workbook" in planned.output
    applied = run("apply", "good.yaml", "campaign.csv", "--yes", "--no-progress")
    assert applied.exit_code == 2 and "rename it to .xlsx" in applied.output
    assert remote(workdir) == {}


def test_a_binary_yaml_file_in_a_folder_is_named(workdir: Path) -> None:
    folder = workdir / "links"
    folder.mkdir()
    (folder / "a.yaml").write_text(f"links:\n  - {{url: '{GOOD[1]}'}}\n", encoding="utf-8")
    (folder / "logo.yaml").write_bytes(_image("PNG"))
    result = run("validate", "links")
    assert result.exit_code == 2
    assert "links/logo.yaml: looks like a PNG image, not a YAML file" in result.output


@pytest.mark.parametrize(
    "encoding", ["utf-16", "utf-16-le", "utf-8-sig", "cp1252"], ids=lambda e: e
)
def test_text_in_any_encoding_is_never_taken_for_a_binary_file(
    workdir: Path, encoding: str
) -> None:
    path = workdir / "links.csv"
    path.write_bytes(f"slug,url,description\n{GOOD[0]},{GOOD[1]},Früh\n".encode(encoding))
    checked = validate(path, "--encoding", encoding, code=0)
    assert checked.doc["valid"] == 1
