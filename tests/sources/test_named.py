"""A source read under a name of its own (``linksync.sources.named.NamedSource``): the
file at its path, every link, problem, error and column preview naming it as given;
a plain path is named as it was typed."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest

from linksync.errors import SourceError
from linksync.sources import read_sources
from linksync.sources.named import NamedSource, shown_names
from linksync.sources.preview import preview

NAME = 'Q2 budget "final"?.xlsx'


def _workbook(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "Spring"
    sheet.append(["Destination URL", "Slug", "Approver"])  # a column linksync does not know
    sheet.append(["https://shop.example.com/a", "spring-a", "Ana"])
    sheet.append(["https://shop.example.com/b", "spring-b", "Ben"])
    sheet.auto_filter.ref = "A1:C3"
    book.save(path)
    return path


def test_every_link_and_problem_names_the_file_by_its_name(tmp_path: Path) -> None:
    kept = _workbook(tmp_path / "upload-7f3a" / "Q2 budget _final__.xlsx")
    read = read_sources([NamedSource(kept, NAME)])
    assert [s.provenance.source for s in read.specs if s.provenance] == [NAME, NAME]
    assert read.specs[0].provenance is not None and read.specs[0].provenance.sheet == "Spring"
    assert read.problems and {p.provenance.source for p in read.problems if p.provenance} == {NAME}
    (sheet,) = preview([NamedSource(kept, NAME)], None)
    assert (sheet.source, sheet.sheet) == (NAME, "Spring")
    assert shown_names([NamedSource(kept, NAME), tmp_path / "other.csv"]) == {kept: NAME}


def test_a_file_that_cannot_be_read_is_named_by_its_name(tmp_path: Path) -> None:
    broken = tmp_path / "upload-1" / "q.xlsx"
    broken.parent.mkdir()
    broken.write_bytes(b"PK\x03\x04 not a workbook")
    with pytest.raises(SourceError) as caught:
        read_sources([NamedSource(broken, "Q3 plan.xlsx")])
    assert caught.value.path == "Q3 plan.xlsx"
    assert str(caught.value).startswith("Q3 plan.xlsx: ") and str(tmp_path) not in str(caught.value)


def test_a_path_is_named_as_it_was_typed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _workbook(tmp_path / "sheets" / "q2.xlsx")
    read = read_sources(["./sheets/q2.xlsx"])
    assert {s.provenance.source for s in read.specs if s.provenance} == {"./sheets/q2.xlsx"}
