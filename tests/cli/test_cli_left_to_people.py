"""What a team's repository leaves to people, through ``linksync plan/apply`` on the
built-in sandbox: fields named by ``ignore_changes`` (a file's ``defaults:``, a link, the
profile, ``--ignore-changes``) are sent when a link is created and never updated nor
drift after someone edits them in the dashboard; links an ``ignore:`` entry names (the
profile, a file's ``defaults:``, ``--ignore``) are neither updated nor deleted, mirror
included, and the plan counts them in its text, JSON and markdown."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from linksync.config import resolve
from linksync.model import RemoteLink
from support.cli_runs import run

LINKS = """\
defaults:
  domain: lnk.test
  ignore_changes: [tags, description]
links:
  spring:
    url: https://example.com/spring
    tags: [spring]
    description: Spring sale
  summer:
    url: https://example.com/summer
    ignore_changes: [url]
"""


def by_hand(workdir: Path, slug: str, **changes: Any) -> RemoteLink:
    """What someone does in the service's dashboard: a PATCH of ``slug`` on lnk.test."""

    async def go() -> RemoteLink:
        async with resolve(cwd=workdir, env={}, sandbox=True).open_client() as api:
            return await api.update_link(slug, changes, domain="lnk.test")

    return asyncio.run(go())


def held(workdir: Path) -> dict[str, RemoteLink]:
    """The links the sandbox holds on lnk.test, by slug."""

    async def go() -> dict[str, RemoteLink]:
        async with resolve(cwd=workdir, env={}, sandbox=True).open_client() as api:
            return {link.slug: link async for link in api.iter_links(domain="lnk.test")}

    return asyncio.run(go())


def test_fields_left_to_people_are_sent_on_create_and_never_drift(workdir: Path) -> None:
    (workdir / "links.yaml").write_text(LINKS, encoding="utf-8")
    assert run("apply", "links.yaml", "--yes").exit_code == 0
    created = held(workdir)
    assert created["spring"].tags == ("spring",)  # the file's value, sent on create
    assert created["spring"].description == "Spring sale"

    by_hand(workdir, "spring", tags=["spring", "vip"], description="Edited by Ana")
    by_hand(workdir, "summer", url="https://example.com/summer?ref=ana")
    plan = run("plan", "links.yaml", "--detailed-exitcode")
    assert plan.exit_code == 0, plan.output  # nothing pending: no drift
    assert "Plan: 2 unchanged" in plan.stdout
    assert "note: description, tags left to people (ignore_changes)" in plan.stdout
    assert "note: url left to people (ignore_changes)" in plan.stdout
    mirror = ("--mode", "mirror", "--domain", "lnk.test")
    assert run("plan", "links.yaml", *mirror, "--detailed-exitcode").exit_code == 0
    applied = run("apply", "links.yaml", "--yes")
    assert applied.exit_code == 0 and "Done: 2 unchanged" in applied.stdout
    assert held(workdir)["spring"].description == "Edited by Ana"

    # a field the file still owns is updated, and only it
    text = LINKS.replace("https://example.com/spring", "https://example.com/spring-2")
    (workdir / "links.yaml").write_text(text, encoding="utf-8")
    assert run("apply", "links.yaml", "--yes").exit_code == 0
    after = held(workdir)["spring"]
    assert (after.url, after.tags, after.description) == (
        "https://example.com/spring-2",
        ("spring", "vip"),
        "Edited by Ana",
    )


def test_the_profile_and_the_flag_leave_fields_to_people(workdir: Path) -> None:
    plain = "links:\n  spring: {url: 'https://example.com/a', domain: lnk.test, tags: [a]}\n"
    (workdir / "links.yaml").write_text(plain, encoding="utf-8")
    assert run("apply", "links.yaml", "--yes").exit_code == 0
    by_hand(workdir, "spring", tags=["by-hand"])
    drift = run("plan", "links.yaml", "--detailed-exitcode")
    assert drift.exit_code == 3 and "tags: added a; removed by-hand" in drift.stdout

    flagged = run("plan", "links.yaml", "--detailed-exitcode", "--ignore-changes", "tags")
    assert flagged.exit_code == 0, flagged.output
    (workdir / "linksync.yaml").write_text("ignore_changes: [tags]\n", encoding="utf-8")
    profiled = run("plan", "links.yaml", "--detailed-exitcode")
    assert profiled.exit_code == 0, profiled.output
    assert "tags left to people (ignore_changes)" in profiled.stdout


def test_an_unknown_field_is_named_wherever_it_is_written(workdir: Path) -> None:
    (workdir / "links.yaml").write_text(
        "links:\n  a: {url: 'https://example.com/a', domain: lnk.test}\n"
        "  b: {url: 'https://example.com/b', domain: lnk.test, ignore_changes: [tgas]}\n",
        encoding="utf-8",
    )
    in_file = run("plan", "links.yaml")
    assert in_file.exit_code == 1, in_file.output  # the link is not sent, the other is
    assert 'ignore_changes: unknown field "tgas" (did you mean "tags"?)' in in_file.stdout
    assert "links.yaml, line 3" in in_file.stdout

    flag = run("plan", "links.yaml", "--ignore-changes", "expiresAt")
    assert flag.exit_code == 2, flag.output
    assert '"expiresAt" cannot be named' in flag.output
    (workdir / "linksync.yaml").write_text("ignore_changes: [slgu]\n", encoding="utf-8")
    profile = run("plan", "links.yaml")
    assert profile.exit_code == 2, profile.output
    assert 'unknown field "slgu"' in profile.output and "url, description, tags" in profile.output


WORKSPACE = """\
defaults:
  domain: lnk.test
links:
  keep: https://example.com/keep
  promo-spring: https://example.com/promo
  old: https://example.com/old
  hand-made: {url: 'https://example.com/hand', tags: [hand-made]}
"""


def test_ignored_links_are_neither_updated_nor_deleted_even_by_a_mirror(workdir: Path) -> None:
    (workdir / "links.yaml").write_text(WORKSPACE, encoding="utf-8")
    assert run("apply", "links.yaml", "--yes").exit_code == 0
    (workdir / "linksync.yaml").write_text(
        "ignore: ['promo-*', {tag: hand-made}]\n", encoding="utf-8"
    )
    (workdir / "links.yaml").write_text(
        "defaults: {domain: lnk.test}\n"
        "links:\n  keep: https://example.com/keep\n"
        "  promo-spring: https://example.com/promo-changed\n",
        encoding="utf-8",
    )
    mirror = ("--mode", "mirror", "--domain", "lnk.test")
    plan = run("plan", "links.yaml", *mirror)
    assert plan.exit_code == 0, plan.output
    assert "Plan: 1 delete, 1 unchanged, 1 skip" in plan.stdout
    assert (
        "ignored: 2 links left alone by ignore: tag: hand-made (1), promo-* (1); "
        "neither updated nor deleted" in plan.stdout
    )
    assert "left alone (ignore: promo-*): neither created, updated nor deleted" in plan.stdout
    as_json = json.loads(run("plan", "links.yaml", *mirror, "--format", "json").stdout)
    assert as_json["ignored"]["count"] == 2
    assert {x["slug"] for x in as_json["ignored"]["links"]} == {"promo-spring", "hand-made"}
    assert as_json["options"]["ignore"] == ["promo-*", "tag:hand-made"]
    markdown = run("plan", "links.yaml", *mirror, "--format", "markdown").stdout
    assert "> Ignored: 2 links left alone by ignore:" in markdown

    applied = run("apply", "links.yaml", *mirror, "--yes")
    assert applied.exit_code == 0, applied.output
    left = held(workdir)
    assert set(left) == {"keep", "promo-spring", "hand-made"}  # only "old" deleted
    assert left["promo-spring"].url == "https://example.com/promo"  # not updated


def test_a_files_defaults_and_the_flag_leave_links_alone(workdir: Path) -> None:
    (workdir / "links.yaml").write_text(WORKSPACE, encoding="utf-8")
    assert run("apply", "links.yaml", "--yes").exit_code == 0
    (workdir / "links.yaml").write_text(
        "defaults: {domain: lnk.test, ignore: ['PROMO-*']}\n"
        "links:\n  keep: https://example.com/keep\n",
        encoding="utf-8",
    )
    mirror = ("--mode", "mirror", "--domain", "lnk.test", "--yes")
    flagged = run("apply", "links.yaml", *mirror, "--ignore", "tag:hand-made")
    assert flagged.exit_code == 0, flagged.output
    assert set(held(workdir)) == {"keep", "promo-spring", "hand-made"}

    bad = run("plan", "links.yaml", "--ignore", "promo_*")
    assert bad.exit_code == 2 and '"promo_*" can never match a slug' in bad.output


@pytest.mark.parametrize("entry", ["promo-*", "{tag: hand-made}"])
def test_a_file_that_only_leaves_links_alone_is_read(workdir: Path, entry: str) -> None:
    """A file of a folder may hold only ``defaults: ignore:`` (``links: []``)."""
    (workdir / "links").mkdir()
    (workdir / "links" / "go.yaml").write_text(WORKSPACE, encoding="utf-8")
    assert run("apply", "links/", "--yes").exit_code == 0
    (workdir / "links" / "go.yaml").write_text(
        "defaults: {domain: lnk.test}\nlinks:\n  keep: https://example.com/keep\n",
        encoding="utf-8",
    )
    (workdir / "links" / "left-alone.yaml").write_text(
        f"defaults:\n  ignore: [{entry}]\nlinks: []\n", encoding="utf-8"
    )
    applied = run("apply", "links/", "--mode", "mirror", "--domain", "lnk.test", "--yes")
    assert applied.exit_code == 0, applied.output
    kept = "promo-spring" if entry == "promo-*" else "hand-made"
    assert set(held(workdir)) == {"keep", kept}


def test_a_saved_plan_still_applies_after_someone_edits_a_field_left_to_people(
    workdir: Path,
) -> None:
    (workdir / "links.yaml").write_text(LINKS, encoding="utf-8")
    assert run("apply", "links.yaml", "--yes").exit_code == 0
    text = LINKS.replace("https://example.com/spring", "https://example.com/spring-2")
    (workdir / "links.yaml").write_text(text, encoding="utf-8")
    assert run("plan", "links.yaml", "--out", "plan.json").exit_code == 0
    by_hand(workdir, "spring", tags=["by-hand"])  # between the review and the merge
    by_hand(workdir, "summer", url="https://example.com/summer?ref=ana")
    applied = run("apply", "--plan", "plan.json", "links.yaml", "--yes")
    assert applied.exit_code == 0, applied.output
    assert "STALE_PLAN" not in applied.output
    spring = held(workdir)["spring"]
    assert (spring.url, spring.tags) == ("https://example.com/spring-2", ("by-hand",))

    # a field the file owns, edited meanwhile, still makes the saved plan stale
    (workdir / "links.yaml").write_text(LINKS, encoding="utf-8")
    assert run("plan", "links.yaml", "--out", "plan.json").exit_code == 0
    by_hand(workdir, "spring", url="https://example.com/elsewhere")
    stale = run("apply", "--plan", "plan.json", "links.yaml", "--yes")
    assert stale.exit_code == 1 and "STALE_PLAN" in stale.output
