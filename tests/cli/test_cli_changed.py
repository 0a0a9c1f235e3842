"""``--changed-since REF`` on ``plan``, ``apply`` and ``validate``, from the command line,
in a real git repository (git of the OS) against a sandbox that counts what it is
asked: only the files changed since the ref are read, only the links declared
differently are planned and read from the workspace (one ``GET /links/:slug`` each, no
listing), a mirror deletes only the links removed from those files, and a ref git
does not know, or a folder outside git, is exit 2."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import Result

from linksync.config import resolve
from linksync.sandbox import DEFAULT_FULL_KEY
from support.cli_runs import run
from support.counted_sandbox import Repo, Requests, counted_sandbox

MIRROR = ("--mode", "mirror", "--domain", "lnk.test")
#: Ten files of ten links each, and 400 links of the workspace declared in no file.
FILES = {
    f"f{f}": {f"f{f}-l{i}": f"https://example.com/f{f}/{i}" for i in range(10)} for f in range(10)
}
OTHERS = {f"other-{n}": f"https://example.com/other/{n}" for n in range(400)}
#: The links of f3 carry another owner's tag; the others none.
SHOP = dict.fromkeys(FILES["f3"], ("owner:shop",))


def yaml_of(links: dict[str, str]) -> str:
    return "links:\n" + "".join(f"  {slug}: {url}\n" for slug, url in links.items())


@pytest.fixture
def asked(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Requests]:
    """``workdir`` a git repository (``links/``: FILES, committed on main, then a branch
    ``feature``) against a served sandbox holding FILES and OTHERS; what the sandbox
    is asked, from the first run on."""
    declared = {slug: url for links in FILES.values() for slug, url in links.items()}
    state = tmp_path_factory.mktemp("sandbox")
    with counted_sandbox(state, {**declared, **OTHERS}, SHOP) as (handle, requests):
        monkeypatch.setenv("LINKSYNC_BASE_URL", handle.base_url)
        monkeypatch.setenv("LINKSYNC_API_KEY", DEFAULT_FULL_KEY)
        (workdir / "linksync.yaml").write_text(
            "default_profile: team\nprofiles:\n  team:\n    system_domain: lnk.test\n",
            encoding="utf-8",
        )
        repo = Repo.init(workdir)
        for name, links in FILES.items():
            repo.write(f"links/{name}.yaml", yaml_of(links))
        repo.commit("links")
        repo.git("checkout", "-q", "-b", "feature")
        yield requests


def change_three(workdir: Path) -> Repo:
    """A new URL for f0-l0, a new link in f1, f2-l9 removed; committed on ``feature``."""
    repo = Repo(workdir)
    repo.write("links/f0.yaml", yaml_of({**FILES["f0"], "f0-l0": "https://example.com/new"}))
    repo.write("links/f1.yaml", yaml_of({**FILES["f1"], "f1-new": "https://example.com/f1/new"}))
    repo.write("links/f2.yaml", yaml_of({k: v for k, v in FILES["f2"].items() if k != "f2-l9"}))
    repo.commit("three links")
    return repo


def planned(result: Result) -> dict[str, str]:
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    return {c["slug"]: c["action"] for c in plan["changes"]}


def slugs(workdir: Path) -> dict[str, str]:
    import asyncio

    async def go() -> dict[str, str]:
        async with resolve(cwd=workdir).open_client() as client:
            return {link.slug: link.url for link in await client.list_links()}

    return asyncio.run(go())


@pytest.mark.parametrize("ref", ["main", "HEAD~1"])
def test_a_plan_since_a_ref_reads_and_plans_only_the_three_links_changed(
    workdir: Path, asked: Requests, ref: str
) -> None:
    change_three(workdir)
    result = run("plan", "links/", "--changed-since", ref, *MIRROR, "--format", "json")
    assert planned(result) == {"f0-l0": "update", "f1-new": "create", "f2-l9": "delete"}
    assert asked.slugs_read() == ["f0-l0", "f1-new", "f2-l9"]
    kinds = asked.kinds()
    assert kinds["GET /links/:slug"] == 3 and kinds["GET /links"] == 0  # no listing
    assert set(kinds) == {"GET /links/:slug", "GET /domains", "GET /organizations/current"}
    plan = json.loads(result.stdout)
    assert plan["partial"]["files"] == [
        {"file": f"links/f{n}.yaml", "status": "modified"} for n in range(3)
    ]
    assert "3 source file(s) changed: links/f0.yaml (modified)" in result.stderr
    assert plan["unmanaged"]["why_not"] == "a partial plan reads only the links it names"


def test_an_apply_since_a_ref_writes_the_three_and_deletes_no_link_of_a_file_not_read(
    workdir: Path, asked: Requests
) -> None:
    change_three(workdir)
    result = run("apply", "links/", "--changed-since", "main", *MIRROR, "--yes", "--no-progress")
    assert result.exit_code == 0, result.output
    assert "1 created, 1 updated, 1 deleted" in result.output
    assert asked.kinds()["GET /links"] == 0
    assert asked.slugs_read() == ["f0-l0", "f1-new", "f2-l9"]
    now = slugs(workdir)
    assert now["f0-l0"] == "https://example.com/new" and "f1-new" in now
    assert "f2-l9" not in now
    assert all(slug in now for slug in OTHERS)  # in no file: a full mirror would delete them
    assert len(now) == 100 + 400


def test_a_full_plan_of_the_same_change_is_the_reconciliation(
    workdir: Path, asked: Requests
) -> None:
    change_three(workdir)
    result = run("plan", "links/", *MIRROR, "--format", "json", "--force")
    actions = planned(result)
    assert sum(1 for a in actions.values() if a == "delete") == 1 + 400
    assert asked.kinds()["GET /links"] >= 5  # the scope listed, 100 links a page


def test_links_moved_between_files_and_a_renamed_file_plan_nothing(
    workdir: Path, asked: Requests
) -> None:
    repo = Repo(workdir)
    repo.git("mv", "links/f3.yaml", "links/renamed.yaml")
    moved = dict(list(FILES["f4"].items())[:5])
    repo.write("links/f4.yaml", yaml_of(dict(list(FILES["f4"].items())[5:])))
    repo.write("links/f5.yaml", yaml_of({**FILES["f5"], **moved}))
    repo.commit("reorganised")
    result = run("plan", "links/", "--changed-since", "main", *MIRROR)
    assert result.exit_code == 0, result.output
    assert "No changes" in result.stdout
    assert "4 source file(s) changed" in result.stderr
    assert "links/f3.yaml (deleted)" in result.stderr
    assert "links/renamed.yaml (added)" in result.stderr
    assert asked.kinds()["GET /links/:slug"] == 0 and asked.kinds()["GET /links"] == 0


def test_uncommitted_and_untracked_files_count_and_ignored_ones_do_not(
    workdir: Path, asked: Requests
) -> None:
    repo = Repo(workdir)
    repo.write(".gitignore", "links/scratch.yaml\n")
    repo.write("links/scratch.yaml", yaml_of({"scratch": "https://example.com/s"}))
    repo.write("links/new.yaml", yaml_of({"brand-new": "https://example.com/b"}))
    repo.write("links/f6.yaml", yaml_of({**FILES["f6"], "f6-l1": "https://example.com/edited"}))
    result = run("plan", "links/", "--changed-since", "HEAD", "--format", "json")
    assert planned(result) == {"brand-new": "create", "f6-l1": "update"}
    assert "links/new.yaml (added)" in result.stderr and "scratch" not in result.stderr


def test_an_unchanged_file_is_not_opened_even_when_it_no_longer_reads(
    workdir: Path, asked: Requests
) -> None:
    repo = Repo(workdir)
    repo.write("links/f9.yaml", "links:\n  f9-l0: [\n")  # broken, and committed so
    repo.commit("f9 broken")
    full = run("plan", "links/", *MIRROR)
    assert full.exit_code == 2 and "links/f9.yaml: not valid YAML" in full.output + full.stderr
    repo.write("links/f0.yaml", yaml_of({**FILES["f0"], "f0-l2": "https://example.com/two"}))
    result = run("plan", "links/", "--changed-since", "HEAD", *MIRROR, "--format", "json")
    assert planned(result) == {"f0-l2": "update"}
    assert "f9.yaml" not in result.stdout + result.stderr
    assert asked.slugs_read() == ["f0-l2"]


def test_a_removed_link_is_deleted_only_within_the_owner_tags_scope(
    workdir: Path, asked: Requests
) -> None:
    repo = Repo(workdir)
    repo.write("links/f3.yaml", yaml_of({k: v for k, v in FILES["f3"].items() if k != "f3-l1"}))
    repo.write("links/f0.yaml", yaml_of({k: v for k, v in FILES["f0"].items() if k != "f0-l9"}))
    shop = ("--mode", "mirror", "--owner-tag", "owner:shop", "--format", "json")
    result = run("plan", "links/", "--changed-since", "HEAD", *shop)
    assert planned(result) == {"f3-l1": "delete"}  # f0-l9 carries no owner:shop tag
    assert asked.slugs_read() == ["f0-l9", "f3-l1"] and asked.kinds()["GET /links"] == 0
    web = run("plan", "links/", "--changed-since", "HEAD", "--mode", "mirror",
              "--owner-tag", "owner:web", "--format", "json")  # fmt: skip
    assert "delete" not in planned(web).values()  # f3-l1 is the shop's, f0-l9 no one's


def test_a_deleted_file_deletes_its_links_in_a_mirror_only(workdir: Path, asked: Requests) -> None:
    repo = Repo(workdir)
    repo.git("rm", "-q", "links/f7.yaml")
    repo.commit("f7 retired")
    upsert = run("plan", "links/", "--changed-since", "main", "--format", "json")
    assert planned(upsert) == {}
    assert asked.kinds()["GET /links/:slug"] == 0  # nothing to read for an upsert
    mirror = run("plan", "links/", "--changed-since", "main", *MIRROR, "--format", "json")
    assert planned(mirror) == dict.fromkeys(FILES["f7"], "delete")


def test_a_changed_file_that_now_declares_nothing_refuses_the_mirror(
    workdir: Path, asked: Requests
) -> None:
    Repo(workdir).write("links/f8.yaml", "# everything moved out\n")
    result = run("plan", "links/", "--changed-since", "main", *MIRROR)
    assert result.exit_code == 2
    assert "mirror refused" in result.output + result.stderr
    assert "links/f8.yaml" in result.output + result.stderr
    Repo(workdir).write("links/f8.yaml", "links: []\n")
    declared = run("plan", "links/", "--changed-since", "main", *MIRROR, "--format", "json")
    assert planned(declared) == dict.fromkeys(FILES["f8"], "delete")


def test_the_markdown_plan_says_it_is_partial_and_names_the_files_read(
    workdir: Path, asked: Requests
) -> None:
    change_three(workdir)
    result = run("plan", "links/", "--changed-since", "main", *MIRROR, "--format", "markdown")
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "Partial plan of the links changed since main" in text
    assert "links/f0.yaml (modified), links/f1.yaml (modified), links/f2.yaml (modified)" in text
    assert "a full run (without --changed-since) reconciles them" in text
    assert "**1 create, 1 update, 1 delete**" in text


def test_a_saved_partial_plan_is_applied_reading_only_its_own_links(
    workdir: Path, asked: Requests, tmp_path_factory: pytest.TempPathFactory
) -> None:
    change_three(workdir)
    saved = tmp_path_factory.mktemp("plans") / "plan.json"
    made = run("plan", "links/", "--changed-since", "main", *MIRROR, "--out", str(saved))
    assert made.exit_code == 0, made.output
    asked.clear()
    result = run("apply", "links/", "--plan", str(saved), "--yes", "--no-progress")
    assert result.exit_code == 0, result.output
    assert "1 created, 1 updated, 1 deleted" in result.output
    assert asked.kinds()["GET /links"] == 0
    assert sorted(set(asked.slugs_read())) == ["f0-l0", "f1-new", "f2-l9"]
    again = run("apply", "links/", "--plan", str(saved), "--changed-since", "main", "--yes")
    assert "--changed-since: not used with a saved plan" in again.output + again.stderr


def test_validate_since_a_ref_checks_every_row_of_the_changed_files_only(
    workdir: Path, asked: Requests
) -> None:
    repo = Repo(workdir)
    repo.write("links/f9.yaml", yaml_of({**FILES["f9"], "bad slug": "https://example.com/x"}))
    repo.commit("f9 broken")
    repo.write("links/f0.yaml", yaml_of({**FILES["f0"], "f0-l3": "ftp://example.com/nope"}))
    result = run("validate", "links/", "--changed-since", "HEAD")
    assert result.exit_code == 1
    assert "1 sheet(s)/file(s), 10 row(s): 9 valid, 1 invalid" in result.stdout
    assert "links/f0.yaml" in result.stdout and "f9.yaml" not in result.stdout
    assert not asked.seen  # offline


def test_a_csv_source_compares_its_rows(workdir: Path, asked: Requests) -> None:
    repo = Repo(workdir)
    rows = "".join(f"{slug},{url}\n" for slug, url in FILES["f0"].items())
    repo.write("sheet.csv", "slug,url\n" + rows)
    repo.commit("a sheet")
    repo.write("sheet.csv", "slug,url\n" + rows.replace("f0/4", "f0/4-new"))
    result = run("plan", "sheet.csv", "--changed-since", "HEAD", "--format", "json")
    assert planned(result) == {"f0-l4": "update"}
    assert asked.slugs_read() == ["f0-l4"]


def test_a_ref_git_does_not_know_is_exit_2_naming_it(workdir: Path, asked: Requests) -> None:
    result = run("plan", "links/", "--changed-since", "origin/main")
    assert result.exit_code == 2
    said = result.output + result.stderr
    assert "--changed-since origin/main: git does not know this ref" in said
    assert "fetch-depth: 0" in said
    assert not asked.seen


def test_outside_a_git_repository_is_exit_2(
    workdir: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = tmp_path_factory.mktemp("no-git")
    (folder / "links.yaml").write_text(yaml_of({"a": "https://example.com/a"}), encoding="utf-8")
    for command in ("validate", "plan", "apply"):
        result = run(command, str(folder / "links.yaml"), "--changed-since", "main")
        assert result.exit_code == 2, (command, result.output)
        assert "is not in a git repository" in result.output + result.stderr


def test_a_changed_file_the_folder_does_not_read_and_a_version_at_the_ref_that_did_not_read(
    workdir: Path, asked: Requests
) -> None:
    repo = Repo(workdir)
    repo.write("links/f9.yaml", "links:\n  f9-l0: [\n")
    repo.commit("f9 broken")
    repo.write("links/f9.yaml", yaml_of(FILES["f9"]))  # mended: compared with nothing
    repo.write("links/sheet.csv", "slug,url\nx,https://example.com/x\n")
    result = run("plan", "links/", "--changed-since", "HEAD", "--format", "json")
    assert result.exit_code == 1  # the spreadsheet, as a full run names it
    said = result.output + result.stderr
    assert "links/sheet.csv: EMPTY_SOURCE: a spreadsheet, which a folder source does not read" in (
        said
    )
    assert "links/f9.yaml at HEAD: links/f9.yaml: not valid YAML" in said
    assert "(not compared: every link of the file counts as changed, none as removed)" in said
    plan = json.loads(result.stdout)
    assert {c["slug"]: c["action"] for c in plan["changes"]} == dict.fromkeys(
        FILES["f9"], "unchanged"
    )


def test_a_changed_profile_is_named_as_a_reason_for_a_full_run(
    workdir: Path, asked: Requests
) -> None:
    config = workdir / "linksync.yaml"
    config.write_text(config.read_text() + "    default_domain: lnk.test\n", encoding="utf-8")
    Repo(workdir).write("links/f0.yaml", yaml_of({**FILES["f0"], "f0-l1": "https://e.com/1"}))
    for args in (("plan",), ("apply", "--yes", "--no-progress")):
        result = run(*args, "links/", "--changed-since", "HEAD")
        assert result.exit_code == 0, result.output
        assert (
            "linksync.yaml changed since HEAD too: its settings apply to every link, and only "
            "the links of the changed files were read with them; run without --changed-since "
            "to plan every link"
        ) in result.stderr
    Repo(workdir).commit("profile")
    quiet = run("plan", "links/", "--changed-since", "HEAD")
    assert "linksync.yaml" not in quiet.stderr


def test_a_deleted_file_retires_its_links_and_the_limit_counts_them_as_deletes(
    workdir: Path, asked: Requests
) -> None:
    repo = Repo(workdir)
    repo.git("rm", "-q", "links/f7.yaml")
    repo.commit("f7 retired")
    retire = ("--retire-to", "https://example.com/ended")
    result = run("plan", "links/", "--changed-since", "main", *MIRROR, *retire, "--format", "json")
    assert planned(result) == dict.fromkeys(FILES["f7"], "retire")
    since = ("--changed-since", "main", *MIRROR, *retire, "--max-deletes", "3")
    capped = run("plan", "links/", *since)
    assert "REFUSED: 10 deletes exceed the maximum of 3 (its 10 retires count as deletes)" in (
        capped.output
    )
    applied = run("apply", "links/", *since, "--yes")
    assert applied.exit_code == 2, applied.output
    assert slugs(workdir)["f7-l0"] == "https://example.com/f7/0"  # nothing retired


def test_links_added_on_main_after_the_branch_left_it_are_not_deleted_by_the_branchs_plan(
    workdir: Path, asked: Requests
) -> None:
    """``--changed-since main`` on a branch that main has moved ahead of compares with
    where the branch left main (their merge base): the links main added since, and
    applied, are not the branch's removals."""
    repo = change_three(workdir)
    repo.git("checkout", "-q", "main")
    repo.write("links/f6.yaml", yaml_of({**FILES["f6"], "f6-main": "https://example.com/m"}))
    repo.write("links/main-only.yaml", yaml_of({"mo-1": "https://example.com/mo"}))
    repo.commit("main moves on")
    applied = run("apply", "links/", "--changed-since", "HEAD~1", *MIRROR, "--yes")
    assert applied.exit_code == 0, applied.output
    assert {"f6-main", "mo-1"} <= set(slugs(workdir))
    repo.git("checkout", "-q", "feature")
    result = run("plan", "links/", "--changed-since", "main", *MIRROR, "--format", "json")
    assert planned(result) == {"f0-l0": "update", "f1-new": "create", "f2-l9": "delete"}
    assert "f6.yaml" not in result.stderr and "main-only.yaml" not in result.stderr
    assert "links/f0.yaml (modified)" in result.stderr
    assert "where this branch left main" in result.stderr
    shown = run("plan", "links/", "--changed-since", "main", *MIRROR, "--format", "markdown")
    assert "Partial plan of the links changed since the merge base of main and HEAD" in (
        shown.stdout
    )
    repo.git("checkout", "-q", "--orphan", "unrelated")
    repo.commit("a history of its own")
    alone = run("plan", "links/", "--changed-since", "main", *MIRROR)
    assert alone.exit_code == 2
    assert "main and HEAD share no history" in alone.output + alone.stderr


def test_a_shallow_clone_that_cannot_tell_where_the_branch_left_the_ref_says_so(
    workdir: Path,
    asked: Requests,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A CI checkout of depth 1 holds no history to find the merge base: the files are
    compared with the ref as it is, and a note says so (and how to fetch the history);
    a ref that is HEAD's parent (a pull request's merge commit) needs no note
    (tests/action/test_action_changed.py)."""
    repo = change_three(workdir)
    repo.write("README.md", "links of the team\n")
    repo.commit("a second commit: main is no longer HEAD's parent")
    clone = tmp_path_factory.mktemp("ci") / "clone"
    Repo(workdir).git("clone", "-q", "--depth", "1", "-b", "feature",
                      f"file://{workdir}", str(clone))  # fmt: skip
    ci = Repo(clone)
    ci.git("fetch", "-q", "--depth", "1", "origin", "main:main")
    (clone / "linksync.yaml").write_text((workdir / "linksync.yaml").read_text())
    deep = repo.git("rev-parse", "main")
    assert deep == ci.git("rev-parse", "main")
    monkeypatch.chdir(clone)
    result = run("plan", "links/", "--changed-since", "main", *MIRROR, "--format", "json")
    assert planned(result) == {"f0-l0": "update", "f1-new": "create", "f2-l9": "delete"}
    said = "the clone is shallow: whether HEAD descends from main cannot be told"
    assert said in result.stderr
    assert "fetch-depth: 0" in result.stderr


def test_a_pull_request_that_changes_no_link_file_says_so_in_its_comment(
    workdir: Path, asked: Requests
) -> None:
    Repo(workdir).write("README.md", "only the readme\n")
    Repo(workdir).commit("docs")
    result = run("plan", "links/", "--changed-since", "main", *MIRROR, "--format", "markdown")
    assert result.exit_code == 0, result.output
    assert "Partial plan of the links changed since main (" in result.stdout
    assert "): no file changed; 0 link(s) declared differently" in result.stdout
    assert "changed: ;" not in result.stdout


def test_each_delete_of_a_partial_plan_names_the_file_and_line_that_declared_it(
    workdir: Path, asked: Requests
) -> None:
    repo = Repo(workdir)
    repo.git("rm", "-q", "links/f7.yaml")
    repo.write("links/f2.yaml", yaml_of({k: v for k, v in FILES["f2"].items() if k != "f2-l9"}))
    repo.commit("f7 retired, f2-l9 removed")
    result = run("plan", "links/", "--changed-since", "main", *MIRROR, "--format", "markdown")
    assert result.exit_code == 0, result.output
    rows = {
        line.split(" | ")[2]: line for line in result.stdout.splitlines() if "| delete |" in line
    }
    rows.pop("11 |")  # the counts table
    assert len(rows) == 11
    commit = repo.git("rev-parse", "main")[:12]
    assert (
        f"no longer declared: links/f2.yaml, line 11 declared it at main ({commit}); "
        "the file was modified since"
    ) in rows["lnk.test/f2-l9"]
    assert (
        f"no longer declared: links/f7.yaml, line 2 declared it at main ({commit}); "
        "the file was deleted since"
    ) in rows["lnk.test/f7-l0"]
    terminal = run("plan", "links/", "--changed-since", "main", *MIRROR)
    assert "note: no longer declared: links/f7.yaml, line 11 declared it" in terminal.stdout
