"""A visible sheet of links without a header is not passed over as if it held none.

A campaign workbook has its "Links" sheet with a header, and a second sheet where
someone pasted more links without one. That sheet was skipped with the warning every
sheet of notes gets, and a mirror deleted the links it names, exit 0. Now a sheet
skipped for want of a header that holds web addresses gets its own warning
(``UNREAD_SHEET``: how many, the first cell), and a mirror deletes nothing while it is
unread; ``--sheet`` names the sheets to read instead. A sheet of notes without a web
address is skipped as before."""

from __future__ import annotations

from pathlib import Path

import openpyxl
from hostile_inputs import Expect, remote, run, validate


def _workbook(path: Path) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = "Links"
    ws.append(["Back-half", "Destination URL"])
    ws.append(["spring", "https://example.com/spring"])
    more = wb.create_sheet("More")  # pasted without a header
    more.append(["summer", "https://example.com/summer"])
    more.append(["autumn", " https://example.com/autumn"])
    notes = wb.create_sheet("Plan")  # notes, no web address
    notes.append(["Ask legal before the launch"])
    wb.save(path)
    return path


def _published(workdir: Path) -> None:
    (workdir / "all.csv").write_text(
        "slug,url\nspring,https://example.com/spring\nsummer,https://example.com/summer\n"
        "autumn,https://example.com/autumn\n",
        encoding="utf-8",
    )
    assert run("apply", "all.csv", "--yes", "--no-progress").exit_code == 0


def test_a_sheet_of_links_without_a_header_is_named(workdir: Path) -> None:
    path = _workbook(workdir / "campaign.xlsx")
    checked = validate(
        path,
        code=0,
        sheet="More",
        expect=[
            Expect(
                None,
                None,
                "sheet skipped: no header row naming a destination URL column "
                '(e.g. "Destination URL") in its first 30 rows, though it holds 2 web '
                'addresses (first: B1 "https://example.com/summer"): its rows are not read, '
                "and a mirror deletes nothing while it is unread",
                "warning",
            )
        ],
    )
    by_sheet = {p["sheet"]: p["constant"] for p in checked.problems}
    assert by_sheet == {"More": "UNREAD_SHEET", "Plan": "MISSING_URL_COLUMN"}, by_sheet


def test_a_mirror_deletes_nothing_while_it_is_unread(workdir: Path) -> None:
    _published(workdir)
    _workbook(workdir / "campaign.xlsx")
    args = ["--yes", "--no-progress", "--mode", "mirror", "--domain", "lnk.test"]
    mirror = run("apply", "campaign.xlsx", *args)
    assert mirror.exit_code == 1, mirror.output
    assert sorted(remote(workdir)) == ["autumn", "spring", "summer"]
    assert (
        "not deleted: 1 sheet(s) without a header of the sources were not read (first: "
        "campaign.xlsx, sheet More) and may name this link; give a header row to a sheet "
        "without one, or name the sheets with --sheet"
    ) in mirror.output, mirror.output
    # Naming the sheets to read says the others are not sources: the mirror goes on.
    named = run("apply", "campaign.xlsx", "--sheet", "Links", *args)
    assert named.exit_code == 0, named.output
    assert sorted(remote(workdir)) == ["spring"]


def test_strict_refuses_it(workdir: Path) -> None:
    path = _workbook(workdir / "campaign.xlsx")
    result = run("apply", str(path), "--strict", "--yes", "--no-progress")
    assert result.exit_code == 1, result.output
    assert "UNREAD_SHEET" in result.output and remote(workdir) == {}


def _notes_workbook(path: Path) -> Path:
    """A campaign workbook whose sheet named "Notes" has links pasted on it, and whose
    "Instructions" sheet is prose with no web address."""
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = "Links"
    ws.append(["Back-half", "Destination URL"])
    ws.append(["spring", "https://example.com/spring"])
    notes = wb.create_sheet("Notes")
    notes.append(["Also add these for the summer push:"])
    notes.append(["summer", "https://example.com/summer"])
    notes.append(["autumn", "https://example.com/autumn"])
    help_ = wb.create_sheet("Instructions")
    help_.append(["Fill one row a link; the back-half is optional."])
    help_.append(["Ask legal before the launch."])
    wb.save(path)
    return path


def test_links_on_a_sheet_named_notes_are_named(workdir: Path) -> None:
    path = _notes_workbook(workdir / "campaign.xlsx")
    checked = validate(
        path,
        code=0,
        sheet="Notes",
        expect=[
            Expect(
                None,
                None,
                "though it holds 2 web addresses (first: B2 "
                '"https://example.com/summer"): its rows are not read, and a mirror '
                "deletes nothing while it is unread",
                "warning",
            )
        ],
    )
    # The sheet of prose says nothing, as before.
    assert [(p["sheet"], p["constant"]) for p in checked.problems] == [("Notes", "UNREAD_SHEET")], (
        checked.problems
    )


def test_a_mirror_keeps_the_links_a_notes_sheet_names(workdir: Path) -> None:
    _published(workdir)
    _notes_workbook(workdir / "campaign.xlsx")
    args = ["--yes", "--no-progress", "--mode", "mirror", "--domain", "lnk.test"]
    mirror = run("apply", "campaign.xlsx", *args)
    assert mirror.exit_code == 1, mirror.output
    assert sorted(remote(workdir)) == ["autumn", "spring", "summer"]
    assert "sheet Notes) and may name this link" in mirror.output, mirror.output
