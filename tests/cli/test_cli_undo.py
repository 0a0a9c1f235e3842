"""``linksync undo``: an apply of creates, updates, a replace and mirror deletes, undone,
leaves the workspace as it was before (every field but passwords, link by link through
the client); the undo of the undo brings the apply's result back; a link edited between
the apply and the undo is left as it is and named. Run ids, journal paths, ``--last``,
a run that wrote nothing, another target's journal, the profile's target."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from linksync.config import resolve
from support.cli_runs import remote_links, run
from support.journals import read_journal

DOMAIN = "lnk.test"

#: The workspace before the apply (seeded by an apply of its own).
BEFORE = (
    "slug,url,description,tags,expires,apple,google,password\n"
    "keep,https://example.com/keep,Kept,a,,,,\n"
    "upd,https://example.com/upd,Old title,a;b,,https://apps.apple.com/old,,\n"
    "lock,https://example.com/lock,Locked later,,,,,\n"
    "edited,https://example.com/edited,Before,,,,,\n"
    "rep,https://example.com/rep,Replaced,r,2030-01-01T00:00:00Z,,,\n"
    "gone,https://example.com/gone,Gone,g1;g2,2031-06-30T12:00:00Z,https://apps.apple.com/g,"
    "https://play.google.com/g,s3cret-gone\n"
    "gone2,https://example.com/gone2,,,,,,\n"
)
#: The sheet applied, in mirror mode: gone and gone2 left it.
AFTER = (
    "slug,url,description,tags,expires,apple,google,password\n"
    "keep,https://example.com/keep,Kept,a,,,,\n"
    "upd,https://example.com/upd-new,New title,a;c,,https://apps.apple.com/new,,\n"
    "lock,https://example.com/lock,Locked later,,,,,pw-added\n"
    "edited,https://example.com/edited-by-run,By the run,,,,,\n"
    "rep,https://example.com/rep,Replaced,r,2032-01-01T00:00:00Z,,,\n"
    "new,https://example.com/new,Brand new,n,,,,\n"
    "new2,https://example.com/new2,,,,,,new-pw\n"
)


def snapshot(workdir: Path, *, passwords: bool = True) -> dict[str, dict[str, Any]]:
    """Every link of the sandbox, field by field (tags as a set), read through the client."""
    out = {}
    for link in remote_links(workdir):
        fields = {
            "url": link.url,
            "description": link.description,
            "tags": sorted(link.tags),
            "apple": link.apple,
            "google": link.google,
            "expires_at": link.expires_at,
        }
        if passwords:
            fields["has_password"] = link.has_password
        out[f"{link.domain}/{link.slug}"] = fields
    return out


def edit(workdir: Path, slug: str, fields: dict[str, Any]) -> None:
    """Someone edits a link by hand (through the client)."""
    settings = resolve(cwd=workdir, env={}, sandbox=True)

    async def go() -> None:
        async with settings.open_client() as client:
            await client.update_link(slug, fields, domain=DOMAIN)

    asyncio.run(go())


def apply_sheet(workdir: Path, text: str, *more: str) -> Result:
    (workdir / "links.csv").write_text(text, encoding="utf-8")
    return run("apply", "links.csv", "--yes", "--no-progress", *more)


def run_id(result: Result) -> str:
    found = re.search(r"`linksync undo (\S+)`", result.output)
    assert found is not None, result.output
    return found.group(1)


MIRROR = ("--mode", "mirror", "--domain", DOMAIN, "--allow-replace", "--force")


def test_undo_sets_the_workspace_back_and_an_undo_of_it_brings_the_apply_back(
    workdir: Path,
) -> None:
    assert apply_sheet(workdir, BEFORE).exit_code == 0
    before = snapshot(workdir)
    applied = apply_sheet(workdir, AFTER, *MIRROR)
    assert applied.exit_code == 0, applied.output
    assert "Done: 2 created, 3 updated, 1 replaced, 2 deleted, 1 unchanged" in applied.output
    after_apply = snapshot(workdir)
    edit(workdir, "edited", {"description": "Edited by hand"})
    edited = snapshot(workdir)[f"{DOMAIN}/edited"]

    undone = run("undo", run_id(applied), "--yes", "--no-progress")
    # A link of the run left as it is: not fully undone, which a rollback job must see.
    assert undone.exit_code == 1, undone.output
    assert "Exit code 1: not fully undone: 1 link the run wrote left as it is" in undone.output
    assert f"Undo of run {run_id(applied)}" in undone.output
    assert (
        "skip      lnk.test/edited  [(remote)]\n"
        "            changed since the run: left as it is (description)"
    ) in undone.output
    assert "linksync undo: built-in sandbox" in undone.output
    assert "Done: 2 created, 2 updated, 1 replaced, 2 deleted, 1 skipped" in undone.output
    now = snapshot(workdir)
    assert now.pop(f"{DOMAIN}/edited") == edited  # left as it is
    want = {k: v for k, v in before.items() if k != f"{DOMAIN}/edited"}
    # Every field but passwords is as before; a deleted link comes back without its own.
    assert {k: {**v, "has_password": None} for k, v in now.items()} == {
        k: {**v, "has_password": None} for k, v in want.items()
    }
    assert now[f"{DOMAIN}/gone"]["has_password"] is False  # it had one: said on the row
    assert "created again without its password" in undone.output
    assert now[f"{DOMAIN}/lock"]["has_password"] is False  # the run's password removed

    again = run("undo", run_id(undone), "--yes", "--no-progress")
    assert again.exit_code == 1, again.output  # lock's password cannot be set back
    assert "not fully undone: 1 link the run wrote left as it is" in again.output
    back = snapshot(workdir, passwords=False)
    assert back.pop(f"{DOMAIN}/edited")["description"] == "Edited by hand"
    want_back = {
        k: {n: v for n, v in fields.items() if n != "has_password"}
        for k, fields in after_apply.items()
        if k != f"{DOMAIN}/edited"
    }
    assert back == want_back


def test_the_journal_holds_each_written_links_before_and_after(workdir: Path) -> None:
    apply_sheet(workdir, BEFORE)
    applied = apply_sheet(workdir, AFTER, *MIRROR)
    records = read_journal(workdir / ".linksync" / "runs" / f"{run_id(applied)}.jsonl")
    assert records[0]["event"] == "start" and records[0]["format"] == 2
    results = {r["slug"]: r for r in records if r["event"] == "result"}
    assert results["new"]["before"] is None
    assert results["new"]["after"]["url"] == "https://example.com/new"
    assert results["upd"]["before"] == {
        "url": "https://example.com/upd",
        "description": "Old title",
        "tags": ["a", "b"],
        "apple": "https://apps.apple.com/old",
    }
    assert set(results["upd"]["after"]) == {"url", "description", "tags", "apple", "updatedAt"}
    assert results["lock"]["before"] == {"hasPassword": False}
    gone = results["gone"]
    assert gone["after"] is None and gone["before"]["hasPassword"] is True
    assert gone["before"]["expiresAt"] == "2031-06-30T12:00:00.000Z"
    assert results["rep"]["before"]["expiresAt"] == "2030-01-01T00:00:00.000Z"
    assert results["rep"]["after"]["expiresAt"] == "2032-01-01T00:00:00.000Z"
    assert "before" not in results["keep"]  # unchanged: nothing written
    text = (workdir / ".linksync" / "runs" / f"{run_id(applied)}.jsonl").read_text()
    assert "s3cret-gone" not in text and "new-pw" not in text and "pw-added" not in text


def test_last_path_and_nothing_to_undo(workdir: Path) -> None:
    seeded = apply_sheet(workdir, BEFORE)
    same = apply_sheet(workdir, BEFORE)
    assert "Done: 7 unchanged" in same.output and "linksync undo" not in same.output
    nothing = run("undo", "--last", "--yes")
    assert nothing.exit_code == 0, nothing.output
    assert "Nothing to undo: run" in nothing.output and "wrote nothing" in nothing.output
    journals = sorted((workdir / ".linksync" / "runs").glob("*.jsonl"))
    assert len(journals) == 2  # no journal for an undo that did nothing
    first = workdir / ".linksync" / "runs" / f"{run_id(seeded)}.jsonl"
    by_path = run("undo", str(first), "--yes", "--no-progress")
    assert by_path.exit_code == 0, by_path.output
    assert "Done: 7 deleted" in by_path.output and snapshot(workdir) == {}
    # the links no file declares are not the undo's business, and it says why it did not count
    assert "unmanaged: not counted (an undo reads only the links its run wrote)" in by_path.output


def test_a_second_undo_last_is_refused_and_names_the_undo_to_give(workdir: Path) -> None:
    """A double click: the second ``undo --last`` would undo the first undo and bring the
    apply back; it is refused (exit 2, nothing done), naming the run id to give when that
    is what is meant, and naming it does it."""
    assert apply_sheet(workdir, BEFORE).exit_code == 0
    applied = apply_sheet(workdir, AFTER, *MIRROR)
    assert applied.exit_code == 0, applied.output
    after_apply = snapshot(workdir, passwords=False)
    first = run("undo", "--last", "--yes", "--no-progress")
    assert first.exit_code == 0, first.output
    undone = snapshot(workdir, passwords=False)
    assert undone != after_apply

    second = run("undo", "--last", "--yes", "--no-progress")
    assert second.exit_code == 2, second.output
    assert f"is the undo of run {run_id(applied)}" in second.output
    assert f"linksync undo {run_id(first)} (nothing done)" in second.output
    assert snapshot(workdir, passwords=False) == undone  # nothing changed

    named = run("undo", run_id(first), "--yes", "--no-progress")
    assert named.exit_code == 1, named.output  # a password cannot be set back: said
    assert "not fully undone" in named.output
    assert snapshot(workdir, passwords=False) == after_apply


def test_what_is_refused_and_what_a_declined_plan_does(workdir: Path) -> None:
    applied = apply_sheet(workdir, BEFORE)
    neither = run("undo")
    assert neither.exit_code == 2 and "give the run to undo: RUN" in neither.output
    both = run("undo", run_id(applied), "--last")
    assert both.exit_code == 2 and "not both" in both.output
    unknown = run("undo", "20200101T000000Z-abcdef")
    assert unknown.exit_code == 2
    assert "no journal of run 20200101T000000Z-abcdef in .linksync/runs" in unknown.output
    stray = workdir / "notes.jsonl"
    stray.write_text('{"hello": 1}\n', encoding="utf-8")
    assert "is not a linksync journal" in run("undo", str(stray)).output
    declined = run("undo", "--last", input="n\n")
    assert declined.exit_code == 2 and "pass --yes" in declined.output  # no terminal
    assert len(snapshot(workdir)) == 7


def test_a_journal_of_another_target_is_refused_and_the_profile_names_the_target(
    workdir: Path,
) -> None:
    applied = apply_sheet(workdir, BEFORE)
    (workdir / "linksync.yaml").write_text(
        "default_profile: main\nprofiles:\n  main:\n    sandbox: true\n"
        "  other:\n    sandbox: true\n    sandbox_db: other.db\n",
        encoding="utf-8",
    )
    refused = run("undo", run_id(applied), "--profile", "other", "--yes")
    assert refused.exit_code == 2, refused.output
    said = " ".join(refused.output.split())
    assert re.search(
        r"was a run against built-in sandbox \(\.linksync/sandbox\.db\), not built-in "
        r"sandbox \(\S*other\.db\): undo it with the target it ran against \(nothing done\)",
        said,
    ), said
    assert len(snapshot(workdir)) == 7  # nothing done
    other = apply_sheet(workdir, BEFORE.replace("keep,", "kept,"), "--profile", "other")
    assert other.exit_code == 0
    mine = run("undo", "--last", "--profile", "other", "--yes", "--no-progress")
    assert mine.exit_code == 0 and "Done: 7 deleted" in mine.output
    assert len(snapshot(workdir)) == 7  # the default target's links untouched


def test_reports_and_the_json_of_an_undo(workdir: Path) -> None:
    apply_sheet(workdir, BEFORE)
    applied = apply_sheet(workdir, AFTER, *MIRROR)
    edit(workdir, "edited", {"description": "Edited by hand"})
    undone = run(
        "undo", run_id(applied), "--yes", "--no-progress", "--report", "undo.json",
        "--journal", "undo.jsonl",
    )  # fmt: skip
    assert undone.exit_code == 1, undone.output  # the edited link is not undone
    report = json.loads((workdir / "undo.json").read_text(encoding="utf-8"))
    rows = {r["slug"]: r for r in report["results"]}
    assert rows["edited"]["action"] == "skip" and rows["edited"]["status"] == "skipped"
    assert "changed since the run: left as it is" in rows["edited"]["message"]
    assert rows["new"]["action"] == "delete" and rows["new"]["status"] == "ok"
    assert "undoes the create of links.csv, row 7" in rows["new"]["message"]
    assert report["run"]["mode"] == "undo"
    redo = run("undo", "undo.jsonl", "--yes", "--no-progress")
    assert redo.exit_code == 1, redo.output
    assert "Done: 2 created, 1 updated, 1 replaced, 2 deleted, 1 skipped" in redo.output
    assert "only its password changed, and a password cannot be set back" in redo.output


@pytest.mark.parametrize("flag", ["--last", "--runs-dir", "--journal", "--report"])
def test_help_names_the_options(flag: str) -> None:
    shown = run("undo", "--help").output
    assert flag in shown and "changed since the run is left as it is" in " ".join(shown.split())


def test_a_rollback_job_reads_the_exit_code_as_fully_undone_or_not(workdir: Path) -> None:
    """0 only when every link the run wrote is set back; a link left as it is (changed
    since the run) makes the undo exit 1, its summary and report say how many."""
    sheet = "slug,url\na,https://example.com/a\nb,https://example.com/b\n"
    apply_sheet(workdir, sheet)
    moved = sheet.replace("/a\n", "/a2\n").replace("/b\n", "/b2\n")
    clean = apply_sheet(workdir, moved)
    undone = run("undo", run_id(clean), "--yes", "--no-progress")
    assert undone.exit_code == 0, undone.output
    assert "Exit code 0: all rows fine" in undone.output

    applied = apply_sheet(workdir, moved)
    edit(workdir, "b", {"url": "https://example.com/by-hand"})
    partly = run("undo", run_id(applied), "--yes", "--no-progress", "--report", "u.json")
    assert partly.exit_code == 1, partly.output
    assert "Exit code 1: not fully undone: 1 link the run wrote left as it is" in partly.output
    rows = {r["slug"]: r for r in json.loads((workdir / "u.json").read_text())["results"]}
    assert rows["b"]["status"] == "skipped" and rows["a"]["status"] == "ok"
    urls = {k: v["url"] for k, v in snapshot(workdir).items()}
    assert urls == {
        "lnk.test/a": "https://example.com/a",
        "lnk.test/b": "https://example.com/by-hand",
    }
