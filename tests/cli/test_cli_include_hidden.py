"""``--include-hidden``: a flag of validate, plan and apply, the profile key
``include_hidden:`` and the library's ``Reading(include_hidden=...)``: rows
a workbook hides are skipped unless one of them says to read them; the flag wins over
the profile both ways."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest
from click.testing import CliRunner, Result

import linksync
from linksync.cli import cli


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def book(workdir: Path) -> Path:
    """Three links, the second hidden by hand."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["slug", "Destination URL"])
    for slug in ("one", "two", "three"):
        ws.append([slug, f"https://example.com/{slug}"])
    ws.row_dimensions[3].hidden = True
    path = workdir / "links.xlsx"
    wb.save(path)
    return path


@pytest.mark.parametrize("command", ["validate", "plan", "apply"])
def test_the_flag_is_offered_and_says_what_it_does(command: str) -> None:
    shown = " ".join(run(command, "--help").output.split())
    assert "--include-hidden / --no-include-hidden" in shown
    assert "Read the rows a workbook hides" in shown and "include_hidden: true" in shown


def test_the_profile_key_reads_them_and_the_flag_overrides_it(workdir: Path, book: Path) -> None:
    skipped = run("plan", str(book))
    assert skipped.exit_code == 0, skipped.output
    assert "Plan: 2 create, 1 skip" in skipped.output
    assert "1 hidden row skipped (row 3); --include-hidden reads it" in skipped.output
    (workdir / "linksync.yaml").write_text("include_hidden: true\n", encoding="utf-8")
    read = run("plan", str(book))
    assert "Plan: 3 create" in read.output and "hidden" not in read.output
    assert "1 hidden row skipped" in run("validate", str(book), "--no-include-hidden").output
    assert "hidden" not in run("validate", str(book)).output
    applied = run("apply", str(book), "--yes", "--no-include-hidden")
    assert applied.exit_code == 0 and "skipped 1" in applied.output


def test_the_profile_key_must_be_true_or_false(workdir: Path, book: Path) -> None:
    (workdir / "linksync.yaml").write_text("include_hidden: yes please\n", encoding="utf-8")
    refused = run("validate", str(book))
    assert refused.exit_code == 2
    assert "include_hidden must be true or false" in refused.output


def test_the_library_keyword(workdir: Path, book: Path) -> None:
    assert linksync.plan([str(book)]).plan.counts["skip"] == 1
    results = linksync.apply(
        [str(book)],
        reading=linksync.Reading(include_hidden=True),
        outputs=linksync.Outputs(journal=False),
    )
    assert [r.slug for r in results.rows] == ["one", "two", "three"]
