"""Sheet names with any character Excel allows, control and direction marks included:
read, chosen with --sheet (as typed raw, or as linksync prints them), and shown escaped
on the terminal and in every report, so none of them acts on a terminal or reorders
a line (a raw U+202E would)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hostile_inputs import GOOD, remote, rezip, run, validate, xlsx
from python_calamine import CalamineWorkbook

NAME = "Links\u202e\u0007"
SHOWN = "Links\\u202e\\u0007"
#: What a terminal or a report must never receive raw.
RAW = ("\u202e", "\u0007")

#: How workbook.xml may spell the name: the controls XML 1.0 forbids, raw or as
#: character references (calamine reads each; Python's XML parser refuses them).
SPELLINGS = {
    "raw": "Links\u202e\u0007".encode(),
    "hex-reference": "Links\u202e&#x7;".encode(),
    "decimal-references": b"Links&#8238;&#7;",
}


def _rows(ws: Any) -> None:
    ws.append(["slug", "url"])
    ws.append(list(GOOD))
    ws.append(["good-beta", "https://example.com/beta"])


def book(path: Path, spelling: bytes, build: Any = _rows) -> Path:
    def rename(name: str, data: bytes) -> bytes:
        if name == "xl/workbook.xml":
            return data.replace(b'name="Links"', b'name="' + spelling + b'"')
        return data

    path.write_bytes(rezip(xlsx(build), rename))
    assert CalamineWorkbook.from_path(str(path)).sheet_names == [NAME]
    return path


def _no_raw(*texts: str) -> None:
    for text in texts:
        for ch in RAW:
            assert ch not in text, f"raw {ch!r} in {text[:300]!r}"


@pytest.mark.parametrize("spelling", list(SPELLINGS.values()), ids=list(SPELLINGS))
def test_the_sheet_is_read_and_shown_escaped(workdir: Path, spelling: bytes) -> None:
    path = book(workdir / "book.xlsx", spelling)
    checked = validate(path, code=0, good_rows=[2, 3])
    [sheet] = checked.doc["sheets"]
    assert (sheet["sheet"], sheet["rows"]) == (NAME, 2)  # JSON: the exact name, escaped
    text = run("validate", str(path))
    assert text.exit_code == 0 and SHOWN in text.output
    _no_raw(text.output, checked.result.output)


@pytest.mark.parametrize("typed", [NAME, SHOWN, "Links\\u202e\\x07"])
def test_sheet_chooses_it_raw_or_as_printed(workdir: Path, typed: str) -> None:
    path = book(workdir / "book.xlsx", SPELLINGS["hex-reference"])
    checked = validate(path, "--sheet", typed, code=0, good_rows=[2, 3])
    assert checked.doc["rows"] == 2


def test_a_wrong_sheet_lists_the_names_escaped(workdir: Path) -> None:
    path = book(workdir / "book.xlsx", SPELLINGS["raw"])
    checked = validate(path, "--sheet", "Links", code=2, refused_words="no sheet named 'Links'")
    assert "Links\\u202e\\x07" in checked.result.output
    _no_raw(checked.result.output)


def test_an_error_naming_the_sheet_shows_it_escaped(workdir: Path) -> None:
    def far(ws: Any) -> None:
        _rows(ws)
        ws["XFD1048576"] = "x"

    path = book(workdir / "far.xlsx", SPELLINGS["raw"], far)
    checked = validate(path, code=2, refused_words=f"sheet {SHOWN}: the sheet declares")
    _no_raw(checked.result.output)


def test_apply_reports_and_annotated_copy(workdir: Path) -> None:
    path = book(workdir / "book.xlsx", SPELLINGS["raw"])
    reports = [f"out/r.{ext}" for ext in ("csv", "json", "jsonl", "md", "xml", "xlsx")]
    args = [a for r in reports for a in ("--report", r)]
    result = run("apply", str(path), "--yes", "--no-progress", *args, "--annotate", "copy.xlsx")
    assert result.exit_code == 0, result.output
    assert sorted(remote(workdir)) == sorted([GOOD[0], "good-beta"])
    _no_raw(result.output)
    for report in reports:
        if report.endswith(".xlsx"):
            with zipfile.ZipFile(workdir / report) as zf:
                texts = [zf.read(n).decode() for n in zf.namelist() if n.endswith(".xml")]
        else:
            texts = [(workdir / report).read_text(encoding="utf-8-sig")]
        _no_raw(*texts)
        assert any(SHOWN in t or SHOWN.replace("\\", "\\\\") in t for t in texts), report
    doc = json.loads((workdir / "out/r.json").read_text())
    assert {r["sheet"] for r in doc["results"]} == {SHOWN}
    # The annotated copy keeps the sheet's own name, with the short links filled in.
    copy = CalamineWorkbook.from_path(str(workdir / "copy.xlsx"))
    assert copy.sheet_names == [NAME]
    rows = copy.get_sheet_by_name(NAME).to_python()
    assert rows[0][2:4] == ["Short link", "Status"]
    assert [r[2] for r in rows[1:]] == [f"https://lnk.test/{GOOD[0]}", "https://lnk.test/good-beta"]
