from __future__ import annotations

import csv
import json
from pathlib import Path

import openpyxl
import pytest

from linksync.errors import ConfigError
from linksync.model import RESULT_COLUMNS, RowResult, RunInfo
from linksync.report import WRITERS, ReportSet, open_writer, report_format
from linksync.report.cells import is_formula_like
from linksync.report.markdown import MarkdownWriter
from linksync.report.xlsx import XlsxWriter


def _plain(cell: str) -> str:
    """A CSV cell as it was before neutralisation."""
    return cell[1:] if cell.startswith("'") and is_formula_like(cell[1:]) else cell


ALL = ["r.csv", "r.xlsx", "r.json", "r.jsonl", "r.md", "r.xml"]


@pytest.mark.parametrize("name", ALL)
def test_open_writer_by_extension(tmp_path: Path, name: str) -> None:
    writer = open_writer(tmp_path / name.upper().replace("R.", "r."))
    assert isinstance(writer, WRITERS[Path(name).suffix])
    writer.abort()


def test_unknown_extension_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"use one of \.csv"):
        report_format("out.txt")
    assert report_format("OUT.XLSX") == ".xlsx"
    assert XlsxWriter is WRITERS[".xlsx"] and MarkdownWriter is WRITERS[".md"]


def test_report_set_rejects_the_same_path_twice(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="twice"):
        ReportSet([tmp_path / "a.csv", tmp_path / "." / "a.csv"])
    assert list(tmp_path.iterdir()) == []


def test_every_format_carries_the_same_rows(
    tmp_path: Path, results: list[RowResult], info: RunInfo
) -> None:
    paths = [tmp_path / "sub" / n for n in ALL]
    with ReportSet(paths) as reports:
        for r in results:
            reports.write(r)
        written = reports.close(info)
    assert written == paths
    assert all(p.exists() for p in paths)
    assert reports.counts().total == len(results)
    keys = [(r.source, r.sheet, r.row, r.slug) for r in results]

    def key(row: dict[str, object]) -> tuple[object, ...]:
        return tuple(
            None if row[k] in ("", None) else row[k] for k in ("source", "sheet", "row", "slug")
        )

    with open(paths[0], encoding="utf-8-sig", newline="") as f:
        csv_rows = [
            {**row, "row": int(row["row"]) if row["row"] else None, "slug": _plain(row["slug"])}
            for row in csv.DictReader(f)
        ]
    assert [key(r) for r in csv_rows] == keys
    ws = openpyxl.load_workbook(paths[1])["Results"]
    xlsx_rows = [
        dict(zip(RESULT_COLUMNS, r, strict=True)) for r in ws.iter_rows(min_row=2, values_only=True)
    ]
    assert [key(r) for r in xlsx_rows] == keys
    assert [key(r) for r in json.loads(paths[2].read_text())["results"]] == keys
    jsonl = [json.loads(line) for line in paths[3].read_text().splitlines()]
    assert [key(r) for r in jsonl] == keys
    # The tree holds only the reports: no temporary files left behind.
    assert sorted(p.name for p in (tmp_path / "sub").iterdir()) == sorted(ALL)


def test_leaving_without_close_aborts(tmp_path: Path, results: list[RowResult]) -> None:
    paths = [tmp_path / n for n in ALL]
    for p in paths:
        p.write_text("previous\n", encoding="utf-8")
    with pytest.raises(KeyboardInterrupt), ReportSet(paths) as reports:
        reports.write(results[0])
        raise KeyboardInterrupt
    # No report is left half-written, streamed or not: the previous files stay whole
    # and no temporary file is left behind (the run journal records the rows).
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in paths)
    assert {p.read_text(encoding="utf-8") for p in paths} == {"previous\n"}
