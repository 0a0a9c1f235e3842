"""A title between rows of links is not read past in silence.

A shared campaign sheet ends with last season's rows under a title typed after an empty
row: "Old links (do not use)", "DO NOT USE BELOW THIS LINE", "Archive". The title row was
an error of its own (no URL), and the rows under it were created as any other. Now the
title row and every row under it are errors (``SECTION_TITLE``, naming the title's row):
they are not sent, the rows above are, and a mirror keeps their links as any invalid
row's. A lone slug whose URL was forgotten, and a note with no row under it, are no
titles: they stay what they were."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
from hostile_inputs import Expect, remote, run, validate


def _campaign(path: Path, title: str = "Old links (do not use)") -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = "Links"
    rows = {
        1: ["Back-half", "Destination URL", "Description"],
        2: ["spring", "https://example.com/spring", "Spring sale"],
        3: ["summer", "https://example.com/summer", "Summer sale"],
        7: [title],  # rows 4-6 left empty
        8: ["winter-old", "https://example.com/winter", "Last winter"],
        9: ["autumn-old", "https://example.com/autumn", "Last autumn"],
    }
    for r, values in rows.items():
        for c, value in enumerate(values, start=1):
            ws.cell(row=r, column=c, value=value)
    wb.save(path)
    return path


def test_the_title_and_the_rows_under_it_are_errors(workdir: Path) -> None:
    path = _campaign(workdir / "campaign.xlsx")
    validate(
        path,
        code=1,
        sheet="Links",
        expect=[
            Expect(
                7,
                None,
                "this row reads as a title ('Old links (do not use)': one cell, after an "
                "empty row) that splits the rows of links: the rows under it are not sent",
            ),
            Expect(8, None, "this row is under the title at row 7 ('Old links (do not use)')"),
            Expect(9, None, "delete row 7 if it belongs with the rows above"),
        ],
        good_rows=[2, 3],
    )
    shown = run("validate", str(path)).output
    assert "ERROR   SECTION_TITLE: " in shown and "campaign.xlsx, sheet Links, row 8" in shown
    assert "MISSING_URL" not in shown and "INVALID_SLUG" not in shown, shown


def test_the_rows_above_are_sent_and_those_under_the_title_are_not(workdir: Path) -> None:
    path = _campaign(workdir / "campaign.xlsx", "DO NOT USE BELOW THIS LINE")
    result = run("apply", str(path), "--yes", "--no-progress", "--report", "out/r.json")
    assert result.exit_code == 1, result.output
    assert sorted(remote(workdir)) == ["spring", "summer"]
    rows = {r["row"]: r for r in json.loads((workdir / "out/r.json").read_text())["results"]}
    assert [rows[n]["error_constant"] for n in (7, 8, 9)] == ["SECTION_TITLE"] * 3


def test_a_mirror_leaves_the_links_under_a_title_as_they_are(workdir: Path) -> None:
    (workdir / "all.csv").write_text(
        "slug,url\nspring,https://example.com/spring\nwinter-old,https://example.com/winter-now\n",
        encoding="utf-8",
    )
    assert run("apply", "all.csv", "--yes", "--no-progress").exit_code == 0
    path = _campaign(workdir / "campaign.xlsx")
    mirror = run(
        "apply", str(path), "--yes", "--no-progress", "--mode", "mirror", "--domain", "lnk.test"
    )
    assert mirror.exit_code == 1, mirror.output
    links = remote(workdir)
    assert "winter-old" in links, "a link named under the title was deleted"
    assert links["winter-old"].url == "https://example.com/winter-now", "it was changed"
    assert "autumn-old" not in links, "a link under the title was created"


def test_a_csv_title_in_a_column_of_text_splits_it_too(workdir: Path) -> None:
    path = workdir / "export.csv"
    path.write_text(
        "slug,url,description\na1,https://example.com/a1,x\n,,\n,,Archive\n"
        "b1,https://example.com/b1,y\n",
        encoding="utf-8",
    )
    validate(
        path,
        code=1,
        expect=[Expect(4, None, "('Archive': one cell"), Expect(5, None, "title at row 4")],
        good_rows=[2],
    )


def test_a_forgotten_url_and_a_closing_note_are_no_titles(workdir: Path) -> None:
    path = workdir / "export.csv"
    path.write_text(
        "slug,url,description\na1,https://example.com/a1,x\n,,\nspring-sale,,\n"
        "b1,https://example.com/b1,y\n,,\n,,Note: these go live in May\n",
        encoding="utf-8",
    )
    checked = validate(
        path,
        code=1,
        expect=[Expect(4, "url", "no destination URL"), Expect(7, "url", "no destination URL")],
        good_rows=[2, 5],
    )
    assert "SECTION_TITLE" not in checked.result.output
