"""A sheet's frame: the fields it has no column for cost it no memory of their own."""

from __future__ import annotations

from pathlib import Path

from linksync.model import LINK_FIELDS
from linksync.sources import read_sources


def test_the_fields_a_sheet_has_no_column_for_share_one_mask(tmp_path: Path) -> None:
    lines = ["slug,url,description"] + [f"s{i},https://example.com/{i}," for i in range(500)]
    (tmp_path / "links.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (frame,) = read_sources([tmp_path / "links.csv"]).frames
    absent = [f for f in LINK_FIELDS if f not in ("slug", "url", "description")]
    masks = {id(frame.managed[f]) for f in absent}
    assert len(masks) == 1
    assert not frame.managed[absent[0]].any()
    specs = list(frame.iter_specs())
    assert [s.managed for s in specs[:2]] == [frozenset({"slug", "url"})] * 2
    assert all(s.description is None for s in specs)
