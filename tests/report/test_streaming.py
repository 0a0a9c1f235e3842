from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from linksync.model import RESULT_COLUMNS, Action, RowResult, RunInfo, Status
from linksync.report import ReportOptions, open_writer, report_row
from linksync.report.cells import FORMULA_PREFIXES, neutralize
from linksync.report.streaming import CsvWriter


def _csv_cell(value: object) -> str:
    if value is None:
        return ""
    return neutralize(value) if isinstance(value, str) else str(value)


def _expected_csv(result: RowResult) -> dict[str, str]:
    return {k: _csv_cell(v) for k, v in report_row(result).items()}


def test_csv_round_trip(tmp_path: Path, results: list[RowResult], info: RunInfo) -> None:
    path = tmp_path / "out.csv"
    writer = open_writer(path)
    for r in results:
        writer.write(r)
    assert writer.close(info) == path
    # A byte order mark first, so Excel reads the file as UTF-8 (accents intact).
    assert path.read_bytes().startswith(b"\xef\xbb\xbfsource,")
    with open(path, encoding="utf-8-sig", newline="") as f:
        reader = csv.DictReader(f)
        assert tuple(reader.fieldnames or ()) == RESULT_COLUMNS
        rows = list(reader)
    assert rows == [_expected_csv(r) for r in results]
    # The multi-line message survived as one cell.
    assert rows[2]["message"] == "Destination URL malformed | line one\nline two"


@pytest.mark.parametrize("prefix", FORMULA_PREFIXES)
def test_csv_neutralises_each_dangerous_first_character(
    tmp_path: Path, info: RunInfo, prefix: str
) -> None:
    path = tmp_path / "out.csv"
    evil = f"{prefix}cmd|' /C calc'!A0"
    writer = CsvWriter(path)
    writer.write(RowResult(Action.CREATE, Status.FAILED, slug=evil, message=evil, url=evil))
    writer.close(info)
    with open(path, encoding="utf-8-sig", newline="") as f:
        row = next(csv.DictReader(f))
    for column in ("slug", "message", "url"):
        assert row[column] == "'" + evil


def test_csv_streams_to_a_temporary_file_and_keeps_the_previous_report_whole(
    tmp_path: Path, results: list[RowResult], info: RunInfo
) -> None:
    path = tmp_path / "out.csv"
    path.write_text("the previous report\n", encoding="utf-8")
    writer = CsvWriter(path)
    writer.write(results[0])
    writer.write(results[1])
    writer.flush()
    (tmp,) = [p for p in tmp_path.iterdir() if p.name.startswith(".out.")]
    with open(tmp, encoding="utf-8-sig", newline="") as f:
        assert len(list(csv.DictReader(f))) == 2  # the rows are on disk as they come
    assert path.read_text(encoding="utf-8") == "the previous report\n"
    writer.abort()
    assert path.read_text(encoding="utf-8") == "the previous report\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]
    writer = CsvWriter(path)
    writer.write(results[0])
    writer.close(info)
    assert "the previous report" not in path.read_text(encoding="utf-8-sig")


def test_jsonl_round_trip_and_streaming(
    tmp_path: Path, results: list[RowResult], info: RunInfo
) -> None:
    path = tmp_path / "out.jsonl"
    writer = open_writer(path)
    writer.write(results[0])
    writer.flush()
    (tmp,) = [p for p in tmp_path.iterdir() if p.name.startswith(".out.")]
    assert json.loads(tmp.read_text(encoding="utf-8")) == report_row(results[0])
    assert not path.exists()  # appears only when complete
    for r in results[1:]:
        writer.write(r)
    writer.close(info)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [report_row(r) for r in results]
    assert list(json.loads(lines[0])) == list(RESULT_COLUMNS)


def test_secrets_never_reach_streamed_reports(tmp_path: Path, info: RunInfo) -> None:
    secret = "sk_live_abc"
    r = RowResult(Action.CREATE, Status.FAILED, message=f"Bearer {secret} rejected")
    options = ReportOptions(secrets=(secret,))
    for name in ("a.csv", "a.jsonl"):
        writer = open_writer(tmp_path / name, options)
        writer.write(r)
        writer.close(info)
        text = (tmp_path / name).read_text(encoding="utf-8")
        assert secret not in text
        assert "Bearer *** rejected" in text
