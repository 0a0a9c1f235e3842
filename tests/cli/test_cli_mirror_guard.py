"""A mirror acts only on what its sources declared, through ``linksync plan``
and ``linksync apply`` on the built-in sandbox: a source that was not read or declared
nothing refuses the mirror (exit 2, ``--force`` or not) and nothing is deleted; a
``--domain`` that names no domain of the workspace is an error naming the nearest one;
a row whose domain is misspelt keeps the links of its slug; an owner tag nobody
carries is a warning."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from click.testing import Result

from linksync.config import resolve
from support.cli_runs import remote_links, run

SEED = "links:\n" + "".join(f"  - slug: {s}\n    url: https://example.com/{s}\n" for s in "abc")
MIRROR = ("--mode", "mirror", "--domain", "lnk.test")


@pytest.fixture
def workdir(workdir: Path) -> Path:
    """The shared working directory with three links a, b, c on the sandbox's system
    domain (lnk.test), made by an apply of ``seed.yaml``."""
    (workdir / "seed.yaml").write_text(SEED, encoding="utf-8")
    seeded = run("apply", "seed.yaml", "--yes", "--no-progress")
    assert seeded.exit_code == 0, seeded.output
    return workdir


def slugs(workdir: Path) -> list[str]:
    return sorted(link.slug for link in remote_links(workdir))


def both_streams(result: Result) -> str:
    return result.output + (result.stderr if result.stderr_bytes is not None else "")


def _empty_csv(folder: Path) -> tuple[list[str], str]:
    (folder / "links.csv").write_text("slug,url\n", encoding="utf-8")
    return ["links.csv"], "links.csv"


def _folder_without_yaml(folder: Path) -> tuple[list[str], str]:
    (folder / "links").mkdir()
    (folder / "links" / "notes.txt").write_text("the links are elsewhere\n", encoding="utf-8")
    return ["links"], "links"


def _folder_with_a_csv(folder: Path) -> tuple[list[str], str]:
    (folder / "links").mkdir()
    (folder / "links" / "ab.yaml").write_text(SEED.split("  - slug: c")[0], encoding="utf-8")
    (folder / "links" / "c.csv").write_text("slug,url\nc,https://example.com/c\n")
    return ["links"], "c.csv"


def _comment_only_file_in_a_folder(folder: Path) -> tuple[list[str], str]:
    (folder / "links").mkdir()
    (folder / "links" / "ab.yaml").write_text(SEED.split("  - slug: c")[0], encoding="utf-8")
    (folder / "links" / "c.yaml").write_text("# c is moved here soon\n", encoding="utf-8")
    return ["links"], "links/c.yaml"


def _a_good_file_and_an_empty_one(folder: Path) -> tuple[list[str], str]:
    (folder / "ab.yaml").write_text(SEED.split("  - slug: c")[0], encoding="utf-8")
    (folder / "c.csv").write_text("slug,url\n", encoding="utf-8")
    return ["ab.yaml", "c.csv"], "c.csv"


def _misspelt_top_level_key(folder: Path) -> tuple[list[str], str]:
    (folder / "links.yaml").write_text(SEED.replace("links:", "link:", 1), encoding="utf-8")
    return ["links.yaml"], "links.yaml"


def _a_ymal_file_in_a_folder(folder: Path) -> tuple[list[str], str]:
    (folder / "links").mkdir()
    (folder / "links" / "ab.yaml").write_text(SEED.split("  - slug: c")[0], encoding="utf-8")
    c = "links:\n" + SEED.split("  - slug: c")[1].join(["  - slug: c", ""])
    (folder / "links" / "more.ymal").write_text(c, encoding="utf-8")
    return ["links"], "more.ymal"


def _a_dangling_symlink_in_a_folder(folder: Path) -> tuple[list[str], str]:
    (folder / "links").mkdir()
    (folder / "links" / "ab.yaml").write_text(SEED.split("  - slug: c")[0], encoding="utf-8")
    (folder / "links" / "c.yaml").symlink_to(folder / "elsewhere" / "c.yaml")
    return ["links"], "c.yaml"


UNDECLARED = {
    "a misspelt top-level key (link:)": _misspelt_top_level_key,
    "a .ymal file in a folder": _a_ymal_file_in_a_folder,
    "a dangling symlink in a folder": _a_dangling_symlink_in_a_folder,
    "a CSV with a header and no rows": _empty_csv,
    "a folder with no YAML file": _folder_without_yaml,
    "a folder holding a .csv it does not read": _folder_with_a_csv,
    "a comment-only file in a folder": _comment_only_file_in_a_folder,
    "two sources, one empty": _a_good_file_and_an_empty_one,
}


@pytest.mark.parametrize("force", [False, True], ids=["", "--force"])
@pytest.mark.parametrize("case", list(UNDECLARED))
def test_a_source_that_declares_nothing_refuses_the_mirror(
    workdir: Path, case: str, force: bool
) -> None:
    sources, named = UNDECLARED[case](workdir)
    extra = ["--force"] if force else []
    planned = run("plan", *sources, *MIRROR, *extra)
    assert planned.exit_code == 2, planned.output
    applied = run("apply", *sources, *MIRROR, "--yes", "--no-progress", *extra)
    assert applied.exit_code == 2, applied.output
    for result in (planned, applied):
        text = both_streams(result)
        assert "mirror refused:" in text and named in text
        assert "a mirror deletes only what its sources declare" in text
        assert "links: []" in text
        assert "delete" not in text.split("mirror refused")[0]  # no plan was shown
    assert slugs(workdir) == ["a", "b", "c"]


def test_a_source_that_does_not_parse_refuses_the_mirror(workdir: Path) -> None:
    (workdir / "links").mkdir()
    (workdir / "links" / "ab.yaml").write_text(SEED.split("  - slug: c")[0], encoding="utf-8")
    (workdir / "links" / "c.yaml").write_text("links: [slug: c\n", encoding="utf-8")
    applied = run("apply", "links", *MIRROR, "--yes", "--force", "--no-progress")
    assert applied.exit_code == 2
    assert "links/c.yaml" in both_streams(applied) and "not valid YAML" in both_streams(applied)
    assert slugs(workdir) == ["a", "b", "c"]


def test_a_file_that_says_links_empty_declares_an_empty_scope(workdir: Path) -> None:
    """The explicit way to empty a mirror's scope still works (past the threshold with
    --force)."""
    (workdir / "none.yaml").write_text("links: []\n", encoding="utf-8")
    planned = run("plan", "none.yaml", *MIRROR)
    assert planned.exit_code == 0 and "3 delete" in both_streams(planned)
    applied = run("apply", "none.yaml", *MIRROR, "--yes", "--force", "--no-progress")
    assert applied.exit_code == 0, applied.output
    assert slugs(workdir) == []


def test_other_modes_refuse_as_file_errors_not_as_a_mirror(workdir: Path) -> None:
    """Only a mirror deletes, so only a mirror refuses with exit 2: an upsert of the
    same sources stops on the file-level error of the comment-only file (nothing
    applied, exit 1), as any run does."""
    (workdir / "d.yaml").write_text("links:\n  - slug: d\n    url: https://example.com/d\n")
    (workdir / "empty").mkdir()
    (workdir / "empty" / "e.yaml").write_text("# later\n", encoding="utf-8")
    applied = run("apply", "d.yaml", "empty", "--yes", "--no-progress")
    assert applied.exit_code == 1, applied.output
    shown = both_streams(applied)
    assert "EMPTY_SOURCE" in shown and "nothing applied" in shown
    assert "mirror refused" not in shown
    assert slugs(workdir) == ["a", "b", "c"]


# --- scopes name something -----------------------------------------------------------


def register(workdir: Path, domain: str) -> None:
    """Register and verify a custom domain, as ``linksync domains add`` + ``verify`` do."""
    settings = resolve(cwd=workdir, env={}, sandbox=True)

    async def go() -> None:
        async with settings.open_client() as client:
            made = await client.create_domain(domain)
            await client.verify_domain(made.id)

    asyncio.run(go())


GO = """defaults:
  domain: go.example.com
links:
  - slug: spring
    url: https://example.com/spring
  - slug: summer
    url: https://example.com/summer
  - slug: autumn
    url: https://example.com/autumn
"""


@pytest.fixture
def go_links(workdir: Path) -> Path:
    """go.example.com registered, with spring, summer and autumn on it; ``go.yaml``
    then declares spring and summer only (autumn was removed from the file)."""
    register(workdir, "go.example.com")
    path = workdir / "go.yaml"
    path.write_text(GO, encoding="utf-8")
    assert run("apply", "go.yaml", "--yes", "--no-progress").exit_code == 0
    path.write_text(GO.split("  - slug: autumn")[0], encoding="utf-8")
    return path


def go_slugs(workdir: Path) -> list[str]:
    return sorted(link.slug for link in remote_links(workdir) if link.domain == "go.example.com")


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("go.exmaple.com", "no such domain in this workspace; did you mean go.example.com?"),
        ("https://go.example.com", "write the domain alone: --domain go.example.com"),
        ("go.example.com/", "write the domain alone: --domain go.example.com"),
    ],
)
def test_a_scope_that_names_no_domain_of_the_workspace_is_refused(
    workdir: Path, go_links: Path, given: str, said: str
) -> None:
    for command in (("plan",), ("apply", "--yes", "--force", "--no-progress")):
        result = run(*command, "go.yaml", "--mode", "mirror", "--domain", given)
        assert result.exit_code == 2, result.output
        assert f"--domain {given}: {said}" in both_streams(result)
        assert "No changes" not in both_streams(result)
    assert go_slugs(workdir) == ["autumn", "spring", "summer"]
    right = run("apply", "go.yaml", "--mode", "mirror", "--domain", "go.example.com", "--yes")
    assert right.exit_code == 0, right.output
    assert go_slugs(workdir) == ["spring", "summer"]


def test_the_system_domain_and_several_registered_domains_are_a_scope(
    workdir: Path, go_links: Path
) -> None:
    args = ("--domain", "go.example.com", "--domain", "lnk.test", "--domain", "GO.Example.com")
    planned = run("plan", "go.yaml", "seed.yaml", "--mode", "mirror", *args)
    assert planned.exit_code == 0, planned.output
    assert "delete    go.example.com/autumn" in both_streams(planned)


@pytest.mark.parametrize("force", [False, True], ids=["", "--force"])
def test_a_misspelt_domain_keeps_the_links_of_its_slugs(
    workdir: Path, go_links: Path, force: bool
) -> None:
    go_links.write_text(go_links.read_text().replace("go.example.com", "go.exmple.com"))
    extra = ["--force"] if force else []
    args = ["go.yaml", "--mode", "mirror", "--domain", "go.example.com", *extra]
    planned = run("plan", *args)
    assert planned.exit_code == 1  # the rows are DOMAIN_NOT_FOUND
    shown = both_streams(planned)
    assert shown.count("DOMAIN_NOT_FOUND") == 2
    assert "skip      go.example.com/spring" in shown
    assert "kept, not deleted: go.yaml, line 4 declares the slug spring" in shown
    assert "delete    go.example.com/spring" not in shown
    applied = run("apply", *args, "--yes", "--no-progress", "--report", "out.json")
    assert applied.exit_code == 1, applied.output
    assert go_slugs(workdir) == ["spring", "summer"]  # autumn, removed from the file, went
    rows = json.loads((workdir / "out.json").read_text())["results"]
    kept = {(r["slug"], r["action"], r["status"]) for r in rows if r["domain"] == "go.example.com"}
    assert kept == {
        ("spring", "skip", "skipped"),
        ("summer", "skip", "skipped"),
        ("autumn", "delete", "ok"),
    }


def test_an_owner_tag_nobody_carries_is_a_warning(workdir: Path) -> None:
    (workdir / "web.yaml").write_text(SEED.replace("slug: a", "slug: w"))
    tagged = run("apply", "web.yaml", "--owner-tag", "owner:web", "--yes", "--no-progress")
    assert tagged.exit_code == 0, tagged.output  # w created with the owner tag
    args = ("web.yaml", *MIRROR, "--owner-tag", "owner:webb")
    planned = run("plan", *args, "--format", "json")
    assert planned.exit_code == 0
    problems = json.loads(planned.stdout)["problems"]
    assert [(p["constant"], p["severity"]) for p in problems] == [("OWNER_TAG_UNUSED", "warning")]
    assert "did you mean owner:web?" in problems[0]["message"]
    applied = run("apply", *args, "--yes", "--no-progress")
    assert applied.exit_code == 0
    said = both_streams(applied)
    assert "warning: OWNER_TAG_UNUSED: --owner-tag owner:webb: no link" in said
    assert "did you mean owner:web?" in said
    quiet = run("plan", "web.yaml", *MIRROR, "--owner-tag", "owner:web")
    assert quiet.exit_code == 0 and "OWNER_TAG_UNUSED" not in both_streams(quiet)


def test_a_misspelt_slug_keeps_the_link_of_its_url(workdir: Path) -> None:
    """A row whose slug was mistyped into an invalid one (``a`` -> ``a b``) still names
    its link by its URL: the mirror keeps that link (a ``skip`` naming the row) rather
    than deleting the link the row was meant to keep."""
    typo = SEED.replace("slug: a\n", "slug: a b\n")
    (workdir / "links.yaml").write_text(typo, encoding="utf-8")
    applied = run("apply", "links.yaml", *MIRROR, "--yes", "--no-progress")
    assert applied.exit_code == 1, applied.output  # the row is INVALID_SLUG
    shown = both_streams(applied)
    assert "kept, not deleted: links.yaml, line 2 declares its URL and failed" in shown
    assert slugs(workdir) == ["a", "b", "c"], "the mistyped row's link was deleted"
