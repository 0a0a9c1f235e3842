"""Links as code that is not what it seems: unknown and repeated keys, wrong
structures, folders with nothing (or the wrong things) to read."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile_inputs import GOOD, Expect, validate, xlsx

GOOD_ENTRY = f"  - slug: {GOOD[0]}\n    url: {GOOD[1]}\n"


def _yaml(workdir: Path, name: str, text: str) -> Path:
    path = workdir / name
    path.write_text(text, encoding="utf-8")
    return path


def test_unknown_key_is_named_with_its_line(workdir: Path) -> None:
    text = (
        "links:\n" + GOOD_ENTRY + "  - slug: typo\n    url: https://e.com/t\n    desciption: hi\n"
    )
    path = _yaml(workdir, "typo.yaml", text)
    # An error on its link, not a warning: the link is not sent.
    validate(
        path,
        code=1,
        expect=[Expect(4, "desciption", 'line 6 (did you mean "description"?)')],
        good_rows=[2],
    )


def test_unknown_top_level_key_is_named_with_its_line(workdir: Path) -> None:
    path = _yaml(workdir, "top.yaml", "defaults: {}\nlinkz:\n  - x\nlinks:\n" + GOOD_ENTRY)
    validate(path, code=1, expect=[Expect(2, None, '"linkz"')], good_rows=[5])


def test_key_given_twice_names_both_lines(workdir: Path) -> None:
    text = (
        "links:\n"
        + GOOD_ENTRY
        + "  - slug: twice\n    url: https://e.com/a\n    url: https://e.com/b\n"
    )
    path = _yaml(workdir, "twice.yaml", text)
    validate(path, code=1, expect=[Expect(4, "url", "(line 6) repeats")], good_rows=[2])


def test_wire_and_snake_names_of_one_field(workdir: Path) -> None:
    text = (
        "links:\n" + GOOD_ENTRY + "  - slug: both\n    url: https://e.com/b\n"
        "    expiresAt: 2031-01-01\n    expires_at: 2032-01-01\n"
    )
    path = _yaml(workdir, "both.yaml", text)
    validate(path, code=1, expect=[Expect(4, "expires_at", '"expiresAt"')], good_rows=[2])


def test_links_given_twice_at_the_top(workdir: Path) -> None:
    path = _yaml(workdir, "two.yaml", "links:\n" + GOOD_ENTRY + "links:\n" + GOOD_ENTRY)
    validate(path, code=1, expect=[Expect(4, None, "given twice")])


def test_links_of_the_wrong_shape(workdir: Path) -> None:
    path = _yaml(workdir, "shape.yaml", "links: 5\n")
    validate(path, code=1, expect=[Expect(1, None, "links: must be a list")])


def test_defaults_of_the_wrong_shape(workdir: Path) -> None:
    path = _yaml(
        workdir, "defaults.yaml", "defaults: [domain, go.example.com]\nlinks:\n" + GOOD_ENTRY
    )
    validate(path, code=1, expect=[Expect(1, None, "defaults: must be a mapping")], good_rows=[3])


@pytest.mark.parametrize("depth", [65, 999, 1_001, 10_000])
def test_nested_too_deep_is_refused_with_one_message(workdir: Path, depth: int) -> None:
    """Past 64 levels the walk refuses; libyaml (PyYAML >= 6.0.4) refuses past its own
    limit and the pure-Python parser runs out of stack: one message for all three."""
    deep = "[" * depth + "]" * depth
    path = _yaml(
        workdir,
        "deep.yaml",
        "links:\n" + GOOD_ENTRY + f"  - slug: deep\n    url: https://e.com\n    tags: {deep}\n",
    )
    validate(path, code=2, refused_words="nested deeper than 64 levels")


def test_empty_yaml_file_has_nothing_to_read(workdir: Path) -> None:
    path = _yaml(workdir, "empty.yaml", "# only a comment\n")
    validate(path, code=1, expect=[Expect(None, None, "nothing to read")])


def test_folder_without_yaml(workdir: Path) -> None:
    folder = workdir / "links"
    folder.mkdir()
    (folder / "README.md").write_text("nothing here\n", encoding="utf-8")
    validate(folder, code=1, expect=[Expect(None, None, "no .yaml or .yml file")])


def test_folder_with_spreadsheets_next_to_yaml(workdir: Path) -> None:
    folder = workdir / "repo"
    folder.mkdir()
    (folder / "a.yaml").write_text("links:\n" + GOOD_ENTRY, encoding="utf-8")
    (folder / "campaign.csv").write_text("slug,url\nx,https://e.com/x\n", encoding="utf-8")
    (folder / "sheet.xlsx").write_bytes(xlsx(lambda ws: ws.append(["slug", "url"])))
    checked = validate(
        folder,
        code=1,
        expect=[Expect(None, None, "a spreadsheet, which a folder source does not read")],
    )
    named = {p["source"] for p in checked.problems if p["constant"] == "EMPTY_SOURCE"}
    assert named == {str(folder / "campaign.csv"), str(folder / "sheet.xlsx")}
    # The YAML beside them is still read and checked.
    assert checked.doc["rows"] == 1 and checked.doc["valid"] == 1


def test_strict_from_the_profile(workdir: Path) -> None:
    (workdir / "linksync.yaml").write_text("strict: true\n", encoding="utf-8")
    text = (
        "links:\n" + GOOD_ENTRY + "  - slug: typo\n    url: https://e.com/t?utm_source=x\n"
        "    utm: {source: news}\n"
    )
    path = _yaml(workdir, "p.yaml", text)
    validate(path, code=1, expect=[Expect(4, "utm", "--strict")], good_rows=[2])
    # --no-strict on the command line wins over the profile: the same file passes, the
    # replaced parameter still named as a warning.
    loose = validate(path, "--no-strict", code=0, good_rows=[2, 4])
    (warning,) = [p for p in loose.doc["problems"] if p["column"] == "utm"]
    assert warning["severity"] == "warning"
