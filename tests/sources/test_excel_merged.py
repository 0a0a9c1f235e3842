"""Merged cells over data rows give their value to every row they cover.

A marketer merges the Title, Tags and Expiry cells of three rows of one campaign: the
sheet shows "Spring" on each row, but the workbook stores it in the first cell only,
and the other rows lost their title, tags and expiry. Now every covered row reads the
value, with a warning naming the range; a group cell merged over a two-row header is
still read as a header."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hostile_inputs import GOOD, Expect, remote, run, validate, xlsx

from linksync.sources import read_sources


def spring(ws: Any) -> None:
    ws.append(["Destination URL", "Slug", "Title", "Tags", "Expiry"])
    ws.append([GOOD[1], GOOD[0], "Alpha", "alpha", None])
    ws.append(["https://example.com/s1", "spring-1", "Spring", "spring, sale", "2031-03-31"])
    ws.append(["https://example.com/s2", "spring-2", None, None, None])
    ws.append(["https://example.com/s3", "spring-3", None, None, None])
    ws.append(["https://example.com/z", "other", "Other", None, None])
    for col in "CDE":
        ws.merge_cells(f"{col}3:{col}5")


def test_each_covered_row_reads_the_merged_value(workdir: Path) -> None:
    path = workdir / "spring.xlsx"
    path.write_bytes(xlsx(spring))
    words = 'C3:C5 is merged: its value "Spring" is read for rows 3-5'
    checked = validate(
        path,
        code=0,
        expect=[Expect(4, "Title", words, "warning"), Expect(5, "Title", words, "warning")],
        good_rows=[2, 3, 4, 5, 6],
    )
    merged = [p for p in checked.problems if p["constant"] == "MERGED_CELLS"]
    assert sorted({p["row"] for p in merged}) == [4, 5], "the first row has its own value"
    assert {p["column"] for p in merged} == {"Title", "Tags", "Expiry"}
    result = run("apply", str(path), "--yes", "--no-progress", "--report", "out/r.json")
    assert result.exit_code == 0, result.output
    links = remote(workdir)
    for slug in ("spring-1", "spring-2", "spring-3"):
        link = links[slug]
        assert link.description == "Spring", slug
        assert set(link.tags) == {"spring", "sale"}, slug
        assert link.expires_at is not None and link.expires_at.startswith("2031-03-31"), slug
    assert links["other"].description == "Other" and not links["other"].tags
    rows = {r["row"]: r for r in json.loads((workdir / "out/r.json").read_text())["results"]}
    assert "warning MERGED_CELLS" in rows[4]["message"]


def test_a_merge_across_columns_says_the_other_columns_read_empty(workdir: Path) -> None:
    def build(ws: Any) -> None:
        ws.append(["Destination URL", "Slug", "Title", "Tags"])
        ws.append(["https://example.com/a", "a", "A long title over the tags", None])
        ws.append(["https://example.com/b", "b", "Bee", "bee"])
        ws.merge_cells("C2:D2")

    path = workdir / "wide.xlsx"
    path.write_bytes(xlsx(build))
    validate(
        path,
        code=0,
        expect=[Expect(2, "Title", 'column(s) "Tags" are read as empty', "warning")],
        good_rows=[2, 3],
    )
    [a, b] = read_sources([path]).specs
    assert a.description == "A long title over the tags" and a.tags is None
    assert b.tags == ("bee",)


def test_a_merged_group_cell_over_a_two_row_header_still_works(workdir: Path) -> None:
    def build(ws: Any) -> None:
        ws.append(["Destination URL", "Slug", "UTM", None, None])
        ws.append([None, None, "Source", "Medium", "Campaign"])
        ws.merge_cells("A1:A2")
        ws.merge_cells("B1:B2")
        ws.merge_cells("C1:E1")
        ws.append(["https://example.com/n1", "n1", "news", "email", "spring26"])
        ws.append(["https://example.com/n2", "n2", None, "email", None])
        ws.merge_cells("C3:C4")  # one source for both rows

    path = workdir / "two.xlsx"
    path.write_bytes(xlsx(build))
    checked = validate(path, code=0, good_rows=[3, 4])
    assert [p["row"] for p in checked.problems if p["constant"] == "MERGED_CELLS"] == [4]
    urls = [s.url for s in read_sources([path]).specs]
    assert urls == [
        "https://example.com/n1?utm_source=news&utm_medium=email&utm_campaign=spring26",
        "https://example.com/n2?utm_source=news&utm_medium=email",
    ]
