"""Rows without a slug on the command line: the stable slug by default (shown in the
plan, sent by a saved plan exactly as shown, given back by the report), the service's
random slug with ``--slugless random`` or the profile's ``slugless: random``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from linksync.cli import cli
from linksync.config import resolve
from linksync.sync.slugs import STABLE_SLUG_LENGTH, identity_domain, stable_candidates

URL = "https://example.com/autumn?utm_source=news"
CSV = f"slug,url\nnamed,https://example.com/named\n,{URL}\n"


@pytest.fixture
def workdir(workdir: Path) -> Path:
    """The shared working directory (``tests/conftest.py``) with this module's CSV."""
    (workdir / "links.csv").write_text(CSV, encoding="utf-8")
    return workdir


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def links(workdir: Path) -> dict[str, str]:
    settings = resolve(cwd=workdir, env={}, sandbox=True)

    async def go() -> dict[str, str]:
        async with settings.open_client() as client:
            return {link.url: link.slug for link in await client.list_links()}

    return asyncio.run(go())


def stable() -> str:
    system = resolve(cwd=Path.cwd(), env={}, sandbox=True).system_domain
    assert system
    return next(stable_candidates(identity_domain(system, system), URL))[1]


def test_the_plan_shows_the_stable_slug_and_apply_creates_it(workdir: Path) -> None:
    slug = stable()
    shown = run("plan", "links.csv")
    assert shown.exit_code == 0, shown.output
    assert f"/{slug} (stable slug)" in shown.output
    assert "1 row without a slug: created with a stable slug" in shown.output
    md = run("plan", "links.csv", "--format", "markdown")
    assert "Slugs: 1 row without a slug: created with a stable slug" in md.output
    applied = run("apply", "links.csv", "--yes", "--report", "r.json")
    assert applied.exit_code == 0, applied.output
    rows = json.loads((workdir / "r.json").read_text(encoding="utf-8"))["results"]
    assert [(r["action"], r["slug"]) for r in rows] == [("create", "named"), ("create", slug)]
    assert links(workdir)[URL] == slug
    again = run("plan", "links.csv", "--detailed-exitcode")
    assert again.exit_code == 0 and "without a slug" not in again.output


def test_a_saved_plan_creates_exactly_the_slug_it_showed(workdir: Path) -> None:
    saved = run("plan", "links.csv", "--out", "plan.json")
    assert saved.exit_code == 0, saved.output
    plan = json.loads((workdir / "plan.json").read_text(encoding="utf-8"))
    (change,) = [c for c in plan["changes"] if c["spec"]["slug"] is None]
    assert change["slug"] == change["payload"]["slug"] == stable()
    assert plan["options"]["slugless"] == "stable"
    applied = run("apply", "--plan", "plan.json", "links.csv", "--yes")
    assert applied.exit_code == 0, applied.output
    assert links(workdir)[URL] == stable()
    # Applied again, that row is done already: its link is as the plan made it.
    twice = run("apply", "--plan", "plan.json", "links.csv", "--yes", "--report", "r.csv")
    assert twice.exit_code == 0, twice.output
    said = (workdir / "r.csv").read_text("utf-8-sig")
    assert "STALE_PLAN" not in said and "already applied" in said
    assert len(links(workdir)) == 2


@pytest.mark.parametrize("how", ["flag", "profile"])
def test_random_slugs_on_request(workdir: Path, how: str) -> None:
    args = ["--slugless", "random"] if how == "flag" else []
    if how == "profile":
        (workdir / "linksync.yaml").write_text("slugless: random\n", encoding="utf-8")
    shown = run("plan", "links.csv", *args)
    assert shown.exit_code == 0, shown.output
    assert "/(generated)" in shown.output
    assert "the service picks a random slug (slugless: random)" in shown.output
    applied = run("apply", "links.csv", "--yes", "--report", "r.json", *args)
    assert applied.exit_code == 0, applied.output
    rows = json.loads((workdir / "r.json").read_text(encoding="utf-8"))["results"]
    slug = rows[1]["slug"]  # the report gives the generated slug back
    assert slug == links(workdir)[URL] and slug != stable()
    assert len(slug) != STABLE_SLUG_LENGTH


def test_a_profile_with_an_unknown_slugless_value_is_refused(workdir: Path) -> None:
    (workdir / "linksync.yaml").write_text("slugless: sometimes\n", encoding="utf-8")
    result = run("plan", "links.csv")
    assert result.exit_code == 2
    assert "slugless must be stable or random" in result.output
    assert "stable" in run("plan", "--help").output
