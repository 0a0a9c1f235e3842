"""The annotated copy of the sample campaign files, on rows as the real readers number
them: the appended columns must land on the row each link was read from."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import openpyxl
import pytest

from linksync.model import Action, LinkSpec, RowResult, Status
from linksync.report import ANNOTATION_HEADERS, write_annotated
from linksync.report.csvformat import decode_csv
from linksync.sources import read_sources

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def _results(specs: tuple[LinkSpec, ...]) -> list[RowResult]:
    out = []
    for i, spec in enumerate(specs):
        p = spec.provenance
        assert p is not None
        failed = i % 4 == 3
        out.append(
            RowResult(
                Action.CREATE,
                Status.FAILED if failed else Status.OK,
                source=p.source,
                sheet=p.sheet,
                row=p.row,
                slug=spec.slug,
                short_url=None if failed else f"https://lnk.test/{spec.slug or i}",
                error_constant="INVALID_URL" if failed else None,
                message="Destination URL malformed" if failed else None,
            )
        )
    return out


@pytest.mark.skipif(not (SAMPLES / "campaign.xlsx").exists(), reason="no sample workbook")
def test_sample_workbook_annotated_on_the_rows_read(tmp_path: Path) -> None:
    source = tmp_path / "campaign.xlsx"
    source.write_bytes((SAMPLES / "campaign.xlsx").read_bytes())
    specs = read_sources([source]).specs
    assert specs
    results = _results(specs)
    original = openpyxl.load_workbook(source)
    out = write_annotated(source, results, tmp_path / "campaign.annotated.xlsx")
    wb = openpyxl.load_workbook(out)
    assert wb.sheetnames == original.sheetnames
    for name in original.sheetnames:
        before, after = original[name], wb[name]
        width = before.max_column
        for row in before.iter_rows():
            for cell in row:
                assert after[cell.coordinate].value == cell.value, (name, cell.coordinate)
        annotated = [r for r in results if r.sheet == name]
        if not annotated:
            assert after.max_column == width
            continue
        header_row = min(r.row or 0 for r in annotated) - 1
        head = [after.cell(header_row, width + i).value for i in (1, 2, 3, 4)]
        assert tuple(head) == ANNOTATION_HEADERS
        for r in annotated:
            assert r.row is not None
            link, status, error = (after.cell(r.row, width + i).value for i in (1, 2, 3))
            slug_cell = [str(c.value) for c in after[r.row] if c.value is not None]
            assert r.slug is None or r.slug in slug_cell  # the row the link came from
            assert link == r.short_url
            assert status == ("failed" if r.status == Status.FAILED else "created")
            assert error == (f"{r.error_constant}: {r.message}" if r.error_constant else None)


@pytest.mark.skipif(not (SAMPLES / "campaign.csv").exists(), reason="no sample CSV")
def test_sample_csv_annotated_on_the_rows_read(tmp_path: Path) -> None:
    source = tmp_path / "campaign.csv"
    raw = (SAMPLES / "campaign.csv").read_bytes()
    source.write_bytes(raw)
    results = _results(read_sources([source]).specs)
    out = write_annotated(source, results, tmp_path / "campaign.annotated.csv")
    text, fmt = decode_csv(out.read_bytes(), "out")
    before_text, before_fmt = decode_csv(raw, "in")
    assert (fmt.encoding, fmt.delimiter, fmt.lineterminator) == (
        before_fmt.encoding,
        before_fmt.delimiter,
        before_fmt.lineterminator,
    )
    before = list(csv.reader(io.StringIO(before_text, newline="")))
    after = list(csv.reader(io.StringIO(text, newline="")))
    assert len(after) == len(before)
    width = max(len(r) for r in before[fmt.header_record :])
    assert tuple(after[fmt.header_record][width:]) == ANNOTATION_HEADERS
    for old, new in zip(before, after, strict=True):
        assert new[: len(old)] == old
    for r in results:
        assert r.row is not None
        record = after[r.row - 1]
        assert r.slug is None or r.slug in record
        assert record[width] == (r.short_url or "")
