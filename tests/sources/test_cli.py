"""linksync validate / template through click's CliRunner (no network)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from linksync.cli import cli


def test_validate_sample_workbook(samples_dir: Path) -> None:
    res = CliRunner().invoke(cli, ["validate", str(samples_dir / "campaign.xlsx")])
    assert res.exit_code == 1, res.output
    assert "18 row(s): 14 valid, 4 invalid, 1 warning(s)" in res.output
    assert (
        "ERROR   RESERVED_SLUG: "
        + str(samples_dir / "campaign.xlsx")
        + ', sheet Spring, row 11, column "Back-half"'
    ) in res.output


def test_validate_json_and_sheet_filter(samples_dir: Path) -> None:
    res = CliRunner().invoke(
        cli, ["validate", str(samples_dir / "campaign.xlsx"), "--sheet", "Summer", "--json"]
    )
    assert res.exit_code == 1
    doc = json.loads(res.output)
    assert (doc["rows"], doc["invalid"], doc["ok"]) == (8, 1, False)
    assert [(p["sheet"], p["row"], p["column"], p["constant"]) for p in doc["problems"]] == [
        ("Summer", 9, "Expiration", "INVALID_EXPIRY")
    ]


def test_validate_fix_invisible_and_clean_exit(tmp_path: Path) -> None:
    path = tmp_path / "l.csv"
    path.write_text("URL,Slug\nhttps://e.com/\u200ba,a\n", encoding="utf-8")
    assert CliRunner().invoke(cli, ["validate", str(path)]).exit_code == 1
    res = CliRunner().invoke(cli, ["validate", str(path), "--fix-invisible"])
    assert res.exit_code == 0, res.output
    assert (
        "WARNING INVALID_URL" in res.output
        and "U+200B ZERO WIDTH SPACE at position 15" in res.output
    )


def test_validate_map_option(tmp_path: Path) -> None:
    path = tmp_path / "l.csv"
    path.write_text("Where to,Name\nhttps://e.com/a,a\n", encoding="utf-8")
    res = CliRunner().invoke(cli, ["validate", str(path), "--json"])
    assert (
        res.exit_code == 1
        and json.loads(res.output)["problems"][0]["constant"] == "MISSING_URL_COLUMN"
    )
    res = CliRunner().invoke(cli, ["validate", str(path), "--map", "Where to=url", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["rows"] == 1


def test_validate_unreadable_file_exits_2(tmp_path: Path) -> None:
    res = CliRunner().invoke(cli, ["validate", str(tmp_path / "missing.csv")])
    assert res.exit_code == 2 and "no such file" in res.output


@pytest.mark.parametrize("fmt", ["xlsx", "csv", "yaml"])
def test_template_round_trip(tmp_path: Path, fmt: str) -> None:
    out = tmp_path / f"links.{fmt}"
    runner = CliRunner()
    assert runner.invoke(cli, ["template", str(out)]).exit_code == 0
    res = runner.invoke(cli, ["validate", str(out), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["rows"] == 3 and doc["problems"] == []
    again = runner.invoke(cli, ["template", str(out)])
    assert again.exit_code == 2 and "exists" in again.output
    assert runner.invoke(cli, ["template", str(out), "--force"]).exit_code == 0


def test_template_xlsx_has_instructions(tmp_path: Path) -> None:
    from python_calamine import CalamineWorkbook

    out = tmp_path / "t.data"
    assert CliRunner().invoke(cli, ["template", "--format", "xlsx", str(out)]).exit_code == 0
    wb = CalamineWorkbook.from_path(str(out))
    assert wb.sheet_names == ["Links", "Instructions"]
    rows = wb.get_sheet_by_name("Instructions").to_python()
    assert any(r[0] == "Destination URL" for r in rows)


@pytest.mark.parametrize("fmt", ["csv", "xlsx", "yaml"])
def test_template_force_replaces_a_symlink_and_never_writes_through_it(
    tmp_path: Path, fmt: str
) -> None:
    # A symlink at the output path is replaced, the file it points at is left whole
    # (the template is written beside it under a temporary name, then renamed).
    mine = tmp_path / "my-campaign.csv"
    mine.write_text("url\nhttps://example.com/mine\n", encoding="utf-8")
    out = tmp_path / f"links.{fmt}"
    out.symlink_to(mine)
    res = CliRunner().invoke(cli, ["template", str(out), "--force"])
    assert res.exit_code == 0, res.output
    assert not out.is_symlink() and out.stat().st_size > 0
    assert mine.read_text(encoding="utf-8") == "url\nhttps://example.com/mine\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
