"""A sheet the workbook hides is not read, and says so when it holds links.

A marketer keeps last season's links on a sheet and hides it (right-click > Hide), or
a macro keeps a "very hidden" one. Only visible sheets are read, as before; but a
hidden sheet with a header naming links and rows under it used to be passed over in
silence, and a mirror then deleted the links it names, exit 0. Now it gets a warning
naming it, a mirror deletes nothing while it is unread, ``--include-hidden`` reads it
and ``--strict`` stops the run. A hidden sheet of lists (an export template's dropdown
values) is passed over without a word."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
from hostile_inputs import remote, run

import linksync

SEED = "slug,url\nnow-1,https://example.com/now\nold-1,https://example.com/old\n"


def _book(path: Path, state: str = "hidden", lists: bool = False) -> Path:
    """Sheet "Links" (now-1), sheet "Last season" hidden in ``state`` (old-1), and with
    ``lists`` a hidden sheet of dropdown values, as the export template writes."""
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = "Links"
    ws.append(["Destination URL", "Back-half"])
    ws.append(["https://example.com/now", "now-1"])
    old = wb.create_sheet("Last season")
    old.append(["Destination URL", "Back-half"])
    old.append(["https://example.com/old", "old-1"])
    old.sheet_state = state
    if lists:
        values = wb.create_sheet("Values")
        values.append(["lnk.test"])
        values.append(["spring"])
        values.sheet_state = "hidden"
    wb.save(path)
    return path


def _seed(workdir: Path) -> None:
    (workdir / "seed.csv").write_text(SEED, encoding="utf-8")
    seeded = run("apply", "seed.csv", "--yes", "--no-progress")
    assert seeded.exit_code == 0, seeded.output
    assert sorted(remote(workdir)) == ["now-1", "old-1"]


def test_validate_names_a_hidden_sheet_of_links_and_reads_only_the_visible(
    workdir: Path,
) -> None:
    path = _book(workdir / "campaign.xlsx", lists=True)
    result = run("validate", str(path))
    assert result.exit_code == 0, result.output
    assert (
        f"WARNING HIDDEN_SHEET: {path}, sheet Last season: the sheet is hidden and was not "
        "read: 1 row under a header naming links; --include-hidden reads it" in result.output
    )
    assert "Values" not in result.output  # a hidden sheet of lists: nothing to say
    planned = linksync.plan([str(path)])
    assert [c.slug for c in planned.plan.changes if c.action.value == "create"] == ["now-1"]


def test_a_very_hidden_sheet_is_named_too(workdir: Path) -> None:
    path = _book(workdir / "campaign.xlsx", state="veryHidden")
    result = run("validate", str(path))
    assert f"HIDDEN_SHEET: {path}, sheet Last season: the sheet is hidden" in result.output


def test_mirror_deletes_nothing_while_a_hidden_sheet_is_unread(workdir: Path) -> None:
    _seed(workdir)
    path = _book(workdir / "campaign.xlsx")
    mirror = ["apply", str(path), "--yes", "--no-progress", "--mode", "mirror"]
    refused = run(*mirror, "--domain", "lnk.test", "--report", "out/m.json")
    assert refused.exit_code == 1, refused.output
    assert (
        "not deleted: 1 hidden sheet(s) of the sources were not read (first: "
        f"{path}, sheet Last season) and may name this link" in refused.output
    )
    assert sorted(remote(workdir)) == ["now-1", "old-1"], "the hidden sheet's link was deleted"
    rows = json.loads((workdir / "out/m.json").read_text())["results"]
    refusal = next(r for r in rows if r["slug"] == "old-1")
    assert refusal["action"] == "invalid" and refusal["error_constant"] == "HIDDEN_SHEET"
    read = run(*mirror, "--domain", "lnk.test", "--include-hidden")
    assert read.exit_code == 0, read.output
    assert "HIDDEN_SHEET" not in read.output
    assert sorted(remote(workdir)) == ["now-1", "old-1"]


def test_include_hidden_reads_it_and_sheet_names_choose(workdir: Path) -> None:
    path = _book(workdir / "campaign.xlsx", lists=True)
    result = run("apply", str(path), "--yes", "--no-progress", "--include-hidden")
    assert result.exit_code == 0, result.output
    assert sorted(remote(workdir)) == ["now-1", "old-1"]
    assert "Values" not in result.output
    named = run("validate", str(path), "--sheet", "Links")
    assert named.exit_code == 0 and "HIDDEN_SHEET" not in named.output, named.output


def test_strict_stops_on_a_hidden_sheet_of_links(workdir: Path) -> None:
    path = _book(workdir / "campaign.xlsx")
    result = run("apply", str(path), "--yes", "--no-progress", "--strict")
    assert result.exit_code == 1, result.output
    assert "the sources have file-level errors; nothing applied" in result.output
    assert "HIDDEN_SHEET" in result.output
    assert remote(workdir) == {}
