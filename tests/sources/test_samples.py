"""The committed samples read cell by cell as make_samples.py declares them."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import ModuleType

from linksync.model import Severity
from linksync.sources import read_sources
from linksync.validate import validate

FIELDS = ("url", "slug", "description", "tags", "expires_at", "apple", "google")


def _rows(path: Path) -> list[tuple[object, ...]]:
    out: list[tuple[object, ...]] = []
    for s in read_sources([path]).specs:
        assert s.provenance is not None
        out.append((s.provenance.sheet, s.provenance.row, *(getattr(s, f) for f in FIELDS)))
    return out


def test_workbook_reads_every_cell(samples_dir: Path, samples_def: ModuleType) -> None:
    got = _rows(samples_dir / "campaign.xlsx")
    assert got == samples_def.EXPECTED_SPRING + samples_def.EXPECTED_SUMMER


def test_workbook_bad_rows_have_constant_sheet_row_and_column(
    samples_dir: Path, samples_def: ModuleType
) -> None:
    result = validate(read_sources([samples_dir / "campaign.xlsx"]))
    errors = [
        (p.provenance.sheet, p.provenance.row, p.field, p.constant)
        for p in result.errors
        if p.provenance
    ]
    assert errors == samples_def.EXPECTED_PROBLEMS
    columns = {p.constant: p.to_dict()["column"] for p in result.errors}
    assert columns == {
        "INVALID_URL": "Destination URL",
        "RESERVED_SLUG": "Back-half",
        "DUPLICATE_IN_SOURCE": "Custom ending",
        "INVALID_EXPIRY": "Expiration",
    }
    zwsp = next(p for p in result.errors if p.constant == "INVALID_URL")
    assert "U+200B ZERO WIDTH SPACE at position 33" in zwsp.message
    dup = next(p for p in result.errors if p.constant == "DUPLICATE_IN_SOURCE")
    assert "sheet Spring, row 9" in dup.message
    # The one unknown column is reported once, as a warning, not per row.
    assert [
        (w.constant, w.provenance.sheet if w.provenance else None) for w in result.warnings
    ] == [("UNKNOWN_COLUMN", "Spring")]
    assert len(result.invalid) == 4 and result.total == 18


def test_csv_is_the_same_campaign(samples_dir: Path, samples_def: ModuleType) -> None:
    got = _rows(samples_dir / "campaign.csv")
    expected = samples_def.EXPECTED_SPRING + samples_def.EXPECTED_SUMMER
    # One sheet: the Summer rows follow the Spring rows (rows 14-21), no sheet name.
    want = [(None, 4 + i, *row[2:]) for i, row in enumerate(expected)]
    assert got == want
    raw = (samples_dir / "campaign.csv").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and b"\r\n" in raw


def test_csv_bad_rows(samples_dir: Path) -> None:
    result = validate(read_sources([samples_dir / "campaign.csv"]))
    got = [(p.provenance.row if p.provenance else None, p.constant) for p in result.errors]
    assert got == [
        (8, "INVALID_URL"),
        (11, "RESERVED_SLUG"),
        (16, "DUPLICATE_IN_SOURCE"),
        (19, "INVALID_EXPIRY"),
    ]


def test_make_samples_is_reproducible(
    samples_dir: Path, samples_def: ModuleType, tmp_path: Path
) -> None:
    samples_def.write_csv(tmp_path / "c.csv")
    assert (tmp_path / "c.csv").read_bytes() == (samples_dir / "campaign.csv").read_bytes()
    samples_def.write_xlsx(tmp_path / "c.xlsx")
    assert _rows(tmp_path / "c.xlsx") == _rows(samples_dir / "campaign.xlsx")


def test_yaml_tree(samples_dir: Path, tmp_path: Path) -> None:
    tree = tmp_path / "links"
    shutil.copytree(samples_dir / "links", tree)
    batch = read_sources([tree])
    got = {s.slug: s for s in batch.specs}
    assert list(got) == [
        "api-guide",
        "quickstart",
        "sdk-python",
        "plans",
        "changelog",
        "no",
        "0123",
        "offsite-2030",
        "town-hall",
    ]
    assert got["quickstart"].url == "https://docs.example.com/quickstart"
    assert got["sdk-python"].expires_at == "2030-06-30T00:00:00.000Z"
    assert got["plans"].url == (
        "https://www.example.com/pricing?utm_source=website&utm_medium=referral"
    )
    assert got["plans"].tags == ("product", "sales")
    assert got["0123"].tags == ("product", "support", "2025-12-31")
    assert got["offsite-2030"].expires_at == "2030-03-01T08:00:00.000Z"
    assert got["offsite-2030"].tags == ("events", "internal")
    town = got["town-hall"]
    assert town.description is None and town.tags == ()
    assert {"description", "tags"} <= town.managed
    prov = got["offsite-2030"].provenance
    assert prov is not None and prov.source == str(tree / "team" / "events.yml") and prov.row == 2
    result = validate(batch)
    assert result.ok, [p.message for p in result.problems]
    assert [p for p in result.problems if p.severity is Severity.WARNING] == []
