"""Rows a workbook hides, by its filter or by hand, are skipped and named.

A marketer filters the sheet to ``Status = live``: Excel hides the ``cancelled`` rows
(``hidden="1"`` on each row, and the filter in ``<autoFilter>``). They used to be
created. Now each hidden row holding a value is skipped: one warning for the sheet
names them, each is a skipped row of the plan and the report, no link of the workspace
is deleted while they are skipped (mirror), and ``--include-hidden`` reads them.
Hidden columns are read, with a warning naming them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hostile_inputs import Expect, remote, run, validate, xlsx

import linksync

HEADER = ["Destination URL", "Back-half", "Title", "Status"]
ROWS = [
    ["https://example.com/a", "live-a", "A", "live"],
    ["https://example.com/b", "gone-b", "B", "cancelled"],
    ["https://example.com/c", "live-c", "C", "live"],
    ["https://example.com/d", "gone-d", "D", "cancelled"],
    ["https://example.com/e", "live-e", "E", "live"],
]


def filtered(ws: Any) -> None:
    """The sheet as Excel saves it filtered to Status = live."""
    ws.append(HEADER)
    for row in ROWS:
        ws.append(row)
    ws.auto_filter.ref = f"A1:D{len(ROWS) + 1}"
    ws.auto_filter.add_filter_column(3, ["live"])
    for n, row in enumerate(ROWS, start=2):
        if row[3] == "cancelled":
            ws.row_dimensions[n].hidden = True


def by_hand(ws: Any) -> None:
    ws.append(HEADER)
    for row in ROWS:
        ws.append(row)
    ws.row_dimensions[4].hidden = True  # live-c, hidden with right-click > Hide
    ws.row_dimensions[20].hidden = True  # a hidden empty row: nothing to say
    ws.row_dimensions[21].hidden = True


def _hidden(problems: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The problems about hidden rows (a Status column may have warnings of its own)."""
    return [p for p in problems if p["constant"] == "HIDDEN_ROW"]


def _book(workdir: Path, build: Any = filtered, name: str = "campaign.xlsx") -> Path:
    path = workdir / name
    path.write_bytes(xlsx(build))
    return path


def test_validate_names_the_rows_a_filter_hides(workdir: Path) -> None:
    path = _book(workdir)
    each = 'hidden row (filtered out by the sheet\'s filter on "Status"): not read'
    checked = validate(
        path,
        code=0,
        sheet="Links",
        expect=[
            Expect(None, None, "2 hidden rows skipped (rows 3, 5", "warning"),
            Expect(3, None, each, "warning"),
            Expect(5, None, each, "warning"),
        ],
        good_rows=[2, 3, 4, 5, 6],
    )
    assert len(_hidden(checked.problems)) == 3
    text = run("validate", str(path))
    assert text.exit_code == 0
    assert (
        f"{path}, sheet Links: 2 hidden rows skipped (rows 3, 5: filtered out by the "
        'sheet\'s filter on "Status"); --include-hidden reads them'
    ) in text.output


def test_apply_skips_hidden_rows_and_reports_each(workdir: Path) -> None:
    path = _book(workdir)
    result = run("apply", str(path), "--yes", "--no-progress", "--report", "out/r.json")
    assert result.exit_code == 0, result.output
    assert "2 hidden rows skipped (rows 3, 5" in result.output
    assert "skip      (row not read)" in result.output
    assert sorted(remote(workdir)) == ["live-a", "live-c", "live-e"]
    rows = {r["row"]: r for r in json.loads((workdir / "out/r.json").read_text())["results"]}
    assert sorted(rows) == [2, 3, 4, 5, 6]
    for n in (3, 5):
        assert rows[n]["status"] == "skipped" and rows[n]["action"] == "skip"
        assert "hidden row" in rows[n]["message"] and "not read" in rows[n]["message"]
        assert rows[n]["slug"] is None and rows[n]["url"] is None
    assert {rows[n]["status"] for n in (2, 4, 6)} == {"ok"}


def test_include_hidden_reads_them(workdir: Path) -> None:
    path = _book(workdir)
    checked = validate(path, "--include-hidden", code=0, good_rows=[2, 3, 4, 5, 6])
    assert _hidden(checked.problems) == []
    result = run("apply", str(path), "--yes", "--no-progress", "--include-hidden")
    assert result.exit_code == 0, result.output
    assert "hidden row" not in result.output
    assert sorted(remote(workdir)) == ["gone-b", "gone-d", "live-a", "live-c", "live-e"]


def test_a_row_hidden_by_hand_is_skipped_and_hidden_empty_rows_are_not_named(
    workdir: Path,
) -> None:
    path = _book(workdir, by_hand)
    checked = validate(
        path,
        code=0,
        expect=[
            Expect(
                None, None, "1 hidden row skipped (row 4); --include-hidden reads it", "warning"
            ),
            Expect(4, None, "hidden row: not read (--include-hidden reads it)", "warning"),
        ],
    )
    assert len(_hidden(checked.problems)) == 2, checked.problems
    planned = linksync.plan([str(path)])
    assert planned.plan.counts["skip"] == 1 and planned.plan.counts["create"] == 4
    assert (
        linksync.plan([str(path)], reading=linksync.Reading(include_hidden=True)).plan.counts[
            "create"
        ]
        == 5
    )


def test_strict_makes_a_hidden_row_an_error(workdir: Path) -> None:
    path = _book(workdir, by_hand)
    validate(path, "--strict", code=1, expect=[Expect(4, None, "not read", "error")])


def test_mirror_deletes_nothing_while_rows_are_skipped_unread(workdir: Path) -> None:
    path = _book(workdir)
    assert run("apply", str(path), "--yes", "--include-hidden").exit_code == 0
    assert len(remote(workdir)) == 5
    mirror = ["apply", str(path), "--yes", "--no-progress", "--mode", "mirror"]
    refused = run(*mirror, "--domain", "lnk.test", "--report", "out/m.json")
    assert refused.exit_code == 1, refused.output
    assert "not deleted: 2 hidden row(s) of the sources were not read" in refused.output
    assert len(remote(workdir)) == 5, "a hidden row's link was deleted"
    rows = json.loads((workdir / "out/m.json").read_text())["results"]
    refusals = [r for r in rows if r["action"] == "invalid" and r["row"] is None]
    assert sorted(r["slug"] for r in refusals) == ["gone-b", "gone-d"]
    read = run(*mirror, "--domain", "lnk.test", "--include-hidden")
    assert read.exit_code == 0, read.output
    assert len(remote(workdir)) == 5


def test_a_hidden_column_is_read_with_a_warning(workdir: Path) -> None:
    def build(ws: Any) -> None:
        filtered(ws)
        ws.column_dimensions["B"].hidden = True  # the back-half, worked out elsewhere

    path = _book(workdir, build)
    validate(
        path,
        "--include-hidden",
        code=0,
        expect=[Expect(None, None, 'hidden column(s) read: "Back-half" (B) as slug', "warning")],
    )
    assert run("apply", str(path), "--yes", "--include-hidden").exit_code == 0
    assert "live-a" in remote(workdir)
