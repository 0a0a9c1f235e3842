"""A sheet's frame: the fields it has no column for cost it no memory of their own, and
each spec it makes is its own row."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from linksync.model import LINK_FIELDS, LinkSpec
from linksync.model.numbers import shared_ints
from linksync.sources import read_sources
from linksync.sources.frame import SpecFrame


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


def test_a_frames_specs_are_its_rows_one_by_one(tmp_path: Path) -> None:
    """Made a block at a time, each spec is still its own row: its values, the fields
    its cells set and its provenance (as ``SpecFrame.provenance`` gives it), across a
    block's end, for a sheet and for a frame of ready-made specs (a YAML file's)."""
    n = 8192 + 300  # more than one block (``frame._BLOCK``)
    lines = ["slug,url,description,tags"] + [
        f"s{i},https://example.com/{i},{'about' if i % 3 else ''},{'a;b' if i % 5 == 0 else ''}"
        for i in range(n)
    ]
    (tmp_path / "links.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (frame,) = read_sources([tmp_path / "links.csv"]).frames
    specs = list(frame.iter_specs())
    one_by_one = [
        LinkSpec(
            *(frame.values[f][i] for f in LINK_FIELDS),
            managed=frozenset(f for f in LINK_FIELDS if frame.managed[f][i]),
            provenance=frame.provenance(i),
        )
        for i in range(n)
    ]
    assert specs == one_by_one
    assert {s.managed for s in specs} == {
        frozenset({"slug", "url"}),
        frozenset({"slug", "url", "description"}),
        frozenset({"slug", "url", "tags"}),
        frozenset({"slug", "url", "description", "tags"}),
    }
    assert [s.provenance.row for s in specs[8190:8194] if s.provenance] == [8192, 8193, 8194, 8195]
    assert list(SpecFrame.from_specs(specs).iter_specs()) == specs


def test_each_spec_names_its_own_row_with_the_shared_number(tmp_path: Path) -> None:
    """Blocks of consecutive rows and blocks with empty rows left out (gaps in the row
    numbers): each spec names its sheet row, the one object the process has for it."""
    n = 3 * 8192
    lines = ["slug,url"] + [
        "," if 9000 <= i < 9100 or i == 20000 else f"s{i},https://example.com/{i}" for i in range(n)
    ]
    (tmp_path / "links.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (frame,) = read_sources([tmp_path / "links.csv"]).frames
    rows = [s.provenance.row for s in frame.iter_specs() if s.provenance]
    assert rows == [i + 2 for i in range(n) if not (9000 <= i < 9100 or i == 20000)]
    ints = shared_ints(n + 2)
    assert all(r is ints[r] for r in rows)


def test_rows_out_of_order_are_named_as_given() -> None:
    """A frame whose rows are not in sheet order (made in Python): each spec keeps the
    row number it was given."""
    rows = np.array([2, 4, 3, 5], dtype=np.int64)
    urls = np.array([f"https://example.com/{r}" for r in rows.tolist()], dtype=object)
    frame = SpecFrame.from_columns("made.csv", None, rows, {"url": urls}, {"url": "url"})
    assert [(s.url, s.provenance.row) for s in frame.iter_specs() if s.provenance] == [
        (f"https://example.com/{r}", r) for r in (2, 4, 3, 5)
    ]
