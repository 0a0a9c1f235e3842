"""``--retire-to URL`` (profile ``retire_to:``, ``SyncPolicy(retire_to=...)``): a mirror
points the links it would delete at the fallback and tags them ``retired`` instead;
the plan, the reports and the markdown say ``retire``; the safety limits count them
as deletes; a link retired already is unchanged; ``linksync undo`` restores them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import Result

import linksync
from support.cli_runs import remote_links, run

FALLBACK = "https://example.com/campaign-ended"
SEED = (
    "slug,url,tags,apple,google\n"
    "poster,https://example.com/spring,print,https://apps.apple.com/spring,\n"
    "flyer,https://example.com/flyer,,,https://play.google.com/flyer\n"
    "stays,https://example.com/stays,,,\n"
)
KEPT = "slug,url\nstays,https://example.com/stays\n"
MIRROR = ("--mode", "mirror", "--domain", "lnk.test")


@pytest.fixture
def seeded(workdir: Path) -> Path:
    (workdir / "seed.csv").write_text(SEED, encoding="utf-8")
    assert run("apply", "seed.csv", "--yes", "--no-progress").exit_code == 0
    (workdir / "links.csv").write_text(KEPT, encoding="utf-8")
    return workdir


def links(workdir: Path) -> dict[str, tuple[str, list[str], str | None, str | None]]:
    return {ln.slug: (ln.url, sorted(ln.tags), ln.apple, ln.google) for ln in remote_links(workdir)}


def retire(*more: str) -> Result:
    return run("apply", "links.csv", *MIRROR, "--yes", "--no-progress", *more)


def test_the_flag_retires_instead_of_deleting_and_undo_restores(seeded: Path) -> None:
    before = links(seeded)
    plan = run("plan", "links.csv", *MIRROR, "--retire-to", FALLBACK)
    assert plan.exit_code == 0, plan.output
    assert "Plan: 2 retire, 1 unchanged" in plan.output
    assert f"retire    lnk.test/flyer -> {FALLBACK}  [(remote)]" in plan.output
    assert "apple: https://apps.apple.com/spring -> -" in plan.output
    assert "tags: added retired" in plan.output
    applied = retire("--retire-to", FALLBACK, "--report", "out.csv")
    assert applied.exit_code == 0, applied.output
    assert "Done: 2 retired, 1 unchanged" in applied.output
    assert links(seeded) == {
        "poster": (FALLBACK, ["print", "retired"], None, None),
        "flyer": (FALLBACK, ["retired"], None, None),
        "stays": ("https://example.com/stays", [], None, None),
    }
    report = (seeded / "out.csv").read_text(encoding="utf-8-sig")
    assert report.count(",retire,ok,") == 2
    again = run("plan", "links.csv", *MIRROR, "--retire-to", FALLBACK)
    assert "Plan: 3 unchanged" in again.output and "No changes" in again.output
    undone = run("undo", "--last", "--yes", "--no-progress")
    assert undone.exit_code == 0, undone.output
    assert "Done: 2 updated" in undone.output
    assert links(seeded) == before


def test_the_markdown_and_json_plans_say_retire(seeded: Path) -> None:
    md = run("plan", "links.csv", *MIRROR, "--retire-to", FALLBACK, "--format", "markdown")
    assert "| retire | 2 | 2 |" in md.output
    assert (
        f"| lnk.test/poster | retire | planned | url: https://example.com/spring -&gt; {FALLBACK}"
        in md.output
    )
    js = run("plan", "links.csv", *MIRROR, "--retire-to", FALLBACK, "--format", "json")
    plan = json.loads(js.output[js.output.index("{") :])
    assert plan["counts"]["retire"] == 2 and plan["counts"]["delete"] == 0
    assert plan["options"]["retire_to"] == FALLBACK
    (flyer,) = [c for c in plan["changes"] if c["slug"] == "flyer"]
    assert flyer["action"] == "retire"
    assert flyer["payload"] == {"url": FALLBACK, "google": None, "tags": ["retired"]}


def test_the_safety_limits_count_retires_as_deletes(seeded: Path) -> None:
    refused = retire("--retire-to", FALLBACK, "--max-deletes", "1")
    assert refused.exit_code == 2, refused.output
    said = " ".join(refused.output.split())
    assert "2 deletes exceed the maximum of 1 (its 2 retires count as deletes)" in said
    assert links(seeded)["poster"][0] == "https://example.com/spring"


def test_the_profile_key_and_a_bad_url(seeded: Path) -> None:
    (seeded / "linksync.yaml").write_text(f"retire_to: {FALLBACK}\n", encoding="utf-8")
    assert "Done: 2 retired, 1 unchanged" in retire().output
    (seeded / "linksync.yaml").write_text("retire_to: campaign-ended\n", encoding="utf-8")
    bad = run("plan", "links.csv", *MIRROR)
    assert bad.exit_code == 2
    assert "--retire-to 'campaign-ended': not a URL the service takes (INVALID_URL)" in bad.output
    refused = retire()
    assert refused.exit_code == 2 and "Done: 2 retired" not in refused.output


def test_upsert_mode_retires_nothing(seeded: Path) -> None:
    shown = run("plan", "links.csv", "--retire-to", FALLBACK)
    assert shown.exit_code == 0 and "Plan: 1 unchanged" in shown.output


def test_the_library(seeded: Path) -> None:
    results = linksync.apply(
        ["links.csv"],
        sync=linksync.SyncPolicy(mode="mirror", scope_domains=["lnk.test"], retire_to=FALLBACK),
    )
    assert sorted(r.action.value for r in results.rows) == ["retire", "retire", "unchanged"]
    assert all(url == FALLBACK for url, *_ in (links(seeded)[s] for s in ("poster", "flyer")))
    undone = linksync.undo(results.run_id, outputs=linksync.Outputs(journal=False))
    assert undone.exit_code == 0 and [r.action.value for r in undone.rows] == ["update"] * 2
    assert links(seeded)["poster"] == (
        "https://example.com/spring", ["print"], "https://apps.apple.com/spring", None,
    )  # fmt: skip


def test_help_says_what_it_does() -> None:
    shown = " ".join(run("apply", "--help").output.split())
    assert "--retire-to URL" in shown and "tagged 'retired'" in shown
    assert "[profile: retire_to]" in shown
