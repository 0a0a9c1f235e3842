"""Encrypted workbooks (a password, or a sensitivity label): named as such and refused
(exit 2, nothing done) without the password; read in memory with it, from a file or
from the variable a profile names; the password never shown anywhere."""

from __future__ import annotations

import io
import json
import struct
from pathlib import Path
from typing import Any

import pytest
from hostile_inputs import GOOD, digest, remote, run, validate, xlsx
from msoffcrypto.format.ooxml import OOXMLFile  # type: ignore[import-untyped]

from linksync.sources.encrypted import OLE_MAGIC, is_encrypted_workbook, read_password_file

PASSWORD = "Fr\u00fchling-2027 s3cr3t!"
ROWS = [list(GOOD), ["good-beta", "https://example.com/beta"]]


def encrypt(data: bytes, password: str = PASSWORD) -> bytes:
    """``data`` (an xlsx) encrypted as Excel does with a password (agile encryption)."""
    out = io.BytesIO()
    OOXMLFile(io.BytesIO(data)).encrypt(password, out)
    return out.getvalue()


# --- a binary .xls (an OLE file too), built by hand: no library here writes one ------

_END, _FREE, _FATSECT, _NOSTREAM = 0xFFFFFFFE, 0xFFFFFFFF, 0xFFFFFFFD, 0xFFFFFFFF


def _entry(name: str, kind: int, child: int, start: int, size: int) -> bytes:
    raw = (name + "\0").encode("utf-16-le") if name else b""
    return (
        raw.ljust(64, b"\0")
        + struct.pack("<HBB", len(raw), kind, 1)
        + struct.pack("<III", _NOSTREAM, _NOSTREAM, child)
        + b"\0" * 16
        + b"\0" * 4
        + b"\0" * 16
        + struct.pack("<IQ", start, size)
    )


def ole_file(stream_name: str, data: bytes) -> bytes:
    """A minimal OLE compound file (version 3) holding one stream of 4,096 bytes or more."""
    data = data.ljust(max(4096, -(-len(data) // 512) * 512), b"\0")
    n = len(data) // 512
    header = (
        bytes.fromhex("D0CF11E0A1B11AE1")
        + b"\0" * 16
        + struct.pack("<HHHHH", 0x3E, 3, 0xFFFE, 9, 6)
        + b"\0" * 6
        + struct.pack("<IIIIIIIII", 0, 1, 1, 0, 4096, _END, 0, _END, 0)
        + struct.pack("<I", 0)
        + struct.pack("<I", _FREE) * 108
    )
    fat = [_FATSECT, _END] + [3 + i for i in range(n - 1)] + [_END]
    fat_sector = struct.pack(f"<{len(fat)}I", *fat) + struct.pack("<I", _FREE) * (128 - len(fat))
    directory = (
        _entry("Root Entry", 5, 1, _END, 0)
        + _entry(stream_name, 2, _NOSTREAM, 2, len(data))
        + _entry("", 0, _NOSTREAM, 0, 0) * 2
    )
    return header + fat_sector + directory + data


def xls(*records: bytes) -> bytes:
    """A BIFF8 workbook stream: BOF, ``records``, EOF, in an OLE file."""
    bof = struct.pack("<HH", 0x0809, 16) + struct.pack("<HHHHII", 0x0600, 0x0005, 0, 0, 0, 0)
    eof = struct.pack("<HH", 0x000A, 0)
    return ole_file("Workbook", bof + b"".join(records) + eof)


def _rows(ws: Any) -> None:
    ws.append(["slug", "url"])
    for row in ROWS:
        ws.append(row)


@pytest.fixture
def book(workdir: Path) -> Path:
    path = workdir / "campaign.xlsx"
    path.write_bytes(encrypt(xlsx(_rows)))
    return path


@pytest.fixture
def password_file(workdir: Path) -> Path:
    path = workdir / "pw.txt"
    path.write_text(PASSWORD + "\n", encoding="utf-8")  # as an editor saves it
    return path


def _no_password_anywhere(workdir: Path, *outputs: str) -> None:
    for text in outputs:
        assert PASSWORD not in text
    for path in workdir.rglob("*"):
        if path.is_file() and path.name != "pw.txt":
            assert PASSWORD.encode() not in path.read_bytes(), path


def test_the_test_workbook_is_really_encrypted(book: Path) -> None:
    assert book.read_bytes().startswith(OLE_MAGIC)
    assert is_encrypted_workbook(book)
    assert not is_encrypted_workbook(book.with_name("plain.xlsx")), "a missing file"
    plain = book.with_name("plain.xlsx")
    plain.write_bytes(xlsx(_rows))
    assert not is_encrypted_workbook(plain)


def test_without_a_password_it_is_named_and_refused(workdir: Path, book: Path) -> None:
    checked = validate(book, code=2, refused_words="this workbook is encrypted")
    assert "--workbook-password-file" in checked.result.output
    assert "not a zip" not in checked.result.output
    plan = run("plan", str(book))
    assert plan.exit_code == 2 and "this workbook is encrypted" in plan.output
    apply = run("apply", str(book), "--yes", "--no-progress")
    assert apply.exit_code == 2 and "this workbook is encrypted" in apply.output
    assert remote(workdir) == {}


def test_with_the_password_file_its_rows_are_read(workdir: Path, book: Path) -> None:
    pw = workdir / "pw.txt"
    pw.write_text(PASSWORD + "\r\n", encoding="utf-8")
    checked = validate(book, "--workbook-password-file", str(pw), code=0, good_rows=[2, 3])
    assert checked.doc["rows"] == 2
    plan = run("plan", str(book), "--workbook-password-file", str(pw))
    assert plan.exit_code == 0, plan.output
    assert "2 create" in plan.output
    _no_password_anywhere(workdir, checked.result.output, plan.output)


def test_apply_writes_the_links_and_never_the_password(
    workdir: Path, book: Path, password_file: Path
) -> None:
    before = digest(book)
    result = run(
        "apply",
        str(book),
        "--log-format",
        "json",
        "--workbook-password-file",
        str(password_file),
        "--yes",
        "--no-progress",
        "--report",
        "out/r.json",
        "--report",
        "out/r.csv",
        "--report",
        "out/r.md",
    )
    assert result.exit_code == 0, result.output
    assert digest(book) == before
    assert sorted(remote(workdir)) == sorted(r[0] for r in ROWS)
    doc = json.loads((workdir / "out/r.json").read_text())
    assert [r["status"] for r in doc["results"]] == ["ok", "ok"]
    _no_password_anywhere(workdir, result.output, result.stderr)


def test_the_profile_names_an_environment_variable(
    workdir: Path, book: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (workdir / "linksync.yaml").write_text("workbook_password_env: CAMPAIGN_PW\n")
    monkeypatch.delenv("CAMPAIGN_PW", raising=False)
    unset = run("plan", str(book))
    assert unset.exit_code == 2 and "this workbook is encrypted" in unset.output
    monkeypatch.setenv("CAMPAIGN_PW", PASSWORD)
    plan = run("plan", str(book))
    assert plan.exit_code == 0, plan.output
    assert "2 create" in plan.output
    checked = validate(book, code=0, good_rows=[2, 3])
    assert checked.doc["rows"] == 2
    _no_password_anywhere(workdir, plan.output, checked.result.output)


def test_a_wrong_password_is_refused(workdir: Path, book: Path) -> None:
    wrong = workdir / "wrong.txt"
    wrong.write_text("not-the-password\n")
    checked = validate(
        book,
        "--workbook-password-file",
        str(wrong),
        code=2,
        refused_words="the password given does not open it",
    )
    assert "not-the-password" not in checked.result.output
    apply = run("apply", str(book), "--workbook-password-file", str(wrong), "--yes")
    assert apply.exit_code == 2 and remote(workdir) == {}


def test_a_missing_or_empty_password_file_is_a_usage_error(workdir: Path, book: Path) -> None:
    missing = run("validate", str(book), "--workbook-password-file", "nope.txt")
    assert missing.exit_code == 2 and "nope.txt" in missing.output
    (workdir / "empty.txt").write_text("\n")
    empty = run("validate", str(book), "--workbook-password-file", "empty.txt")
    assert empty.exit_code == 2 and "empty" in empty.output


def test_only_one_trailing_line_break_is_stripped(workdir: Path) -> None:
    path = workdir / "p.txt"
    path.write_text(" two spaces and a break \n\n", encoding="utf-8")
    assert read_password_file(path) == " two spaces and a break \n"


def test_the_sheet_guard_applies_to_the_decrypted_bytes(workdir: Path, password_file: Path) -> None:
    def far(ws: Any) -> None:
        _rows(ws)
        ws["XFD1048576"] = "x"

    path = workdir / "far.xlsx"
    path.write_bytes(encrypt(xlsx(far)))
    validate(
        path,
        "--workbook-password-file",
        str(password_file),
        code=2,
        refused_words="the sheet declares a used range of 1,048,576 rows",
    )


def test_an_annotated_copy_of_an_encrypted_workbook_is_refused_before_any_request(
    workdir: Path, book: Path, password_file: Path
) -> None:
    result = run(
        "apply",
        str(book),
        "--workbook-password-file",
        str(password_file),
        "--yes",
        "--annotate",
        "copy.xlsx",
    )
    assert result.exit_code == 2, result.output
    assert "encrypted" in result.output and "decrypted copy" in result.output
    assert not (workdir / "copy.xlsx").exists()
    assert remote(workdir) == {}


def test_a_plain_xls_is_not_taken_for_an_encrypted_workbook(workdir: Path) -> None:
    """An .xls is an OLE file as an encrypted workbook is: only its FilePass record
    (msoffcrypto's is_encrypted) says it is encrypted."""
    path = workdir / "old.xls"
    path.write_bytes(xls())
    assert path.read_bytes().startswith(OLE_MAGIC) and not is_encrypted_workbook(path)
    result = run("validate", str(path))
    assert "encrypted" not in result.output
    assert "the workbook has no sheet" in result.output  # read, and found empty

    locked = workdir / "locked.xls"
    file_pass = struct.pack("<HHH", 0x002F, 2, 0x0001)  # FilePass: RC4
    locked.write_bytes(xls(file_pass))
    assert is_encrypted_workbook(locked)
    validate(locked, code=2, refused_words="this workbook is encrypted")
