"""A folder of link files as people keep them: every file that is not read
is an error naming it (a typo'd extension, a JSON file, a dangling symbolic link, an
empty or comment-only YAML file), hidden entries (``.git/``, ``.DS_Store``) and the
schema ``linksync export`` writes are left alone, and validate exits 1."""

from __future__ import annotations

import json
import os
from pathlib import Path

from hostile_inputs import GOOD, digest, remote, run, validate

from linksync.export.schema import SCHEMA_ID, render_schema
from linksync.sources.folders import SCHEMA_ID as READ_SCHEMA_ID

GOOD_FILE = f"links:\n  - slug: {GOOD[0]}\n    url: {GOOD[1]}\n"


def _folder(workdir: Path) -> Path:
    """links/ with one good file and every kind of stray entry."""
    folder = workdir / "links"
    (folder / "team").mkdir(parents=True)
    (folder / "a.yaml").write_text(GOOD_FILE, encoding="utf-8")
    (folder / "team" / "more.ymal").write_text(
        "links:\n  - {slug: more, url: 'https://example.com/more'}\n", encoding="utf-8"
    )
    (folder / "notes.json").write_text('{"links": []}\n', encoding="utf-8")
    (folder / "b.yaml").write_text("", encoding="utf-8")
    (folder / "c.yml").write_text("# to do: the autumn links\n", encoding="utf-8")
    os.symlink(folder / "gone.yaml", folder / "d.yaml")
    (folder / ".git").mkdir()
    (folder / ".git" / "config").write_text("[core]\n", encoding="utf-8")
    (folder / ".git" / "old.yaml").write_text("links: 5\n", encoding="utf-8")
    (folder / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1")
    (folder / "links.schema.json").write_text(render_schema(), encoding="utf-8")
    return folder


def test_every_file_not_read_is_named_and_validate_exits_1(workdir: Path) -> None:
    folder = _folder(workdir)
    checked = validate(folder, code=1, good_rows=[2])
    assert checked.doc["valid"] == 1
    named = {
        Path(p["source"]).relative_to(folder).as_posix(): p["message"]
        for p in checked.problems
        if p["constant"] == "EMPTY_SOURCE"
    }
    assert set(named) == {"team/more.ymal", "notes.json", "b.yaml", "c.yml", "d.yaml"}
    assert all(
        p["severity"] == "error" for p in checked.problems if p["constant"] == "EMPTY_SOURCE"
    )
    assert "its extension is .ymal (a typo for .yaml?)" in named["team/more.ymal"]
    assert "its extension is .json" in named["notes.json"]
    assert "the file is empty" in named["b.yaml"]
    assert "holds only comments" in named["c.yml"]
    assert "a symbolic link to" in named["d.yaml"] and "does not exist" in named["d.yaml"]
    text = run("validate", "links")
    assert text.exit_code == 1
    for name in ("links/team/more.ymal", "links/notes.json", "links/b.yaml", "links/d.yaml"):
        assert f"ERROR   EMPTY_SOURCE: {name}: " in text.output
    # Hidden entries and linksync's own schema are left alone, in silence.
    for quiet in (".git", ".DS_Store", "links.schema.json"):
        assert quiet not in text.output


def test_apply_of_a_folder_with_a_file_not_read_sends_nothing(workdir: Path) -> None:
    folder = _folder(workdir)
    before = digest(folder)
    result = run("apply", "links", "--yes", "--no-progress")
    assert result.exit_code == 1 and "nothing applied" in result.output
    assert digest(folder) == before
    assert remote(workdir) == {}


def test_a_symbolic_link_to_a_folder_is_named(workdir: Path) -> None:
    elsewhere = workdir / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.yaml").write_text(GOOD_FILE, encoding="utf-8")
    folder = workdir / "links"
    folder.mkdir()
    (folder / "a.yaml").write_text(
        "links:\n  - {slug: other, url: 'https://example.com/o'}\n", encoding="utf-8"
    )
    os.symlink(elsewhere, folder / "shared")
    checked = validate(folder, code=1)
    (problem,) = [p for p in checked.problems if p["constant"] == "EMPTY_SOURCE"]
    assert problem["source"] == str(folder / "shared")
    assert "a symbolic link to a folder" in problem["message"]


def test_a_folder_of_files_that_declare_no_links_on_purpose(workdir: Path) -> None:
    folder = workdir / "links"
    folder.mkdir()
    (folder / "a.yaml").write_text("links: []\n", encoding="utf-8")
    (folder / "b.yml").write_text("links: {}\n", encoding="utf-8")
    checked = validate(folder, code=0)
    assert checked.problems == [] and checked.doc["rows"] == 0


def test_an_exported_folder_plans_back_without_a_word_about_its_schema(workdir: Path) -> None:
    assert run("apply", str(_good(workdir)), "--yes", "--no-progress").exit_code == 0
    exported = run("export", "out", "--split-by", "domain")
    assert exported.exit_code == 0, exported.output
    assert any(p.name.endswith(".schema.json") for p in (workdir / "out").iterdir())
    planned = run("plan", "out", "--format", "json")
    assert planned.exit_code == 0, planned.output
    assert "EMPTY_SOURCE" not in planned.output


def test_the_schema_id_is_the_one_export_writes() -> None:
    assert READ_SCHEMA_ID == SCHEMA_ID
    assert json.loads(render_schema())["$id"] == READ_SCHEMA_ID


def _good(workdir: Path) -> Path:
    path = workdir / "seed.yaml"
    path.write_text(GOOD_FILE, encoding="utf-8")
    return path
