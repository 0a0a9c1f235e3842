"""``apply --plan`` after the config file changed: a plan reviewed on Monday and applied
on Friday must not delete a link ``linksync.yaml`` now leaves alone (``ignore:``
added), nor write under another owner tag or default domain than the file now names.
The apply stops before any request (exit 2, PLAN_MISMATCH) naming the key; a plan made
with a flag over the profile's value still applies while the profile is unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.cli_runs import remote_links, run

SEASONS = {s: f"https://example.com/{s}" for s in ("spring", "summer", "autumn")}
MIRROR = ("--mode", "mirror", "--domain", "lnk.test")
PROFILE = "default_domain: lnk.test\nowner_tag: owner:web\n"


def links_yaml(links: dict[str, str]) -> str:
    return "links:\n" + "".join(f"  {slug}: {url}\n" for slug, url in links.items())


@pytest.fixture
def planned(workdir: Path) -> Path:
    """Three links applied under owner:web; the file then drops autumn, and the mirror
    plan (one delete) is saved to p.json."""
    (workdir / "linksync.yaml").write_text(PROFILE, encoding="utf-8")
    path = workdir / "links.yaml"
    path.write_text(links_yaml(SEASONS), encoding="utf-8")
    assert run("apply", "links.yaml", "--yes").exit_code == 0
    path.write_text(links_yaml({k: v for k, v in SEASONS.items() if k != "autumn"}), "utf-8")
    made = run("plan", "links.yaml", *MIRROR, "--out", "p.json")
    assert made.exit_code == 0, made.output
    assert json.loads((workdir / "p.json").read_text())["counts"]["delete"] == 1
    return workdir


def slugs(workdir: Path) -> set[str]:
    return {link.slug for link in remote_links(workdir)}


@pytest.mark.parametrize(
    ("added", "words"),
    [
        ("ignore: [aut*]\n", "linksync.yaml sets ignore: aut* (the plan's: none)"),
        ("ignore: ['tag:owner:web']\n", "sets ignore: tag:owner:web (the plan's: none)"),
        ("retire_to: https://example.com/ended\n", "sets retire_to: https://example.com/ended"),
    ],
)
def test_a_config_that_now_leaves_the_link_alone_stops_the_apply(
    planned: Path, added: str, words: str
) -> None:
    (planned / "linksync.yaml").write_text(PROFILE + added, encoding="utf-8")
    applied = run("apply", "--plan", "p.json", "--yes")
    assert applied.exit_code == 2, applied.output
    assert "the config file changed since the saved plan p.json was made" in applied.output
    assert words in applied.output
    assert "plan again" in applied.output
    assert slugs(planned) == set(SEASONS)  # nothing deleted


@pytest.mark.parametrize(
    ("profile", "words"),
    [
        (PROFILE.replace("owner:web", "owner:shop"), "sets owner_tag: owner:shop"),
        (PROFILE.replace("lnk.test", "go.example.com"), "sets default_domain: go.example.com"),
    ],
)
def test_another_owner_tag_or_default_domain_stops_the_apply(
    planned: Path, profile: str, words: str
) -> None:
    (planned / "linksync.yaml").write_text(profile, encoding="utf-8")
    applied = run("apply", "--plan", "p.json", "--yes")
    assert applied.exit_code == 2, applied.output
    assert words in applied.output
    assert slugs(planned) == set(SEASONS)


def test_a_flag_over_the_profile_at_plan_time_still_applies(planned: Path) -> None:
    made = run("plan", "links.yaml", *MIRROR, "--ignore", "aut*", "--out", "q.json")
    assert made.exit_code == 0, made.output
    applied = run("apply", "--plan", "q.json", "--yes")
    assert applied.exit_code == 0, applied.output
    assert slugs(planned) == set(SEASONS)  # left alone, as planned
    applied = run("apply", "--plan", "p.json", "--yes")  # the profile as it was: applies
    assert applied.exit_code == 0, applied.output
    assert slugs(planned) == {"spring", "summer"}


def test_a_misspelt_limit_added_since_stops_the_apply(planned: Path) -> None:
    # A fresh plan refuses it; a saved plan read only the keys it knew, and deleted.
    (planned / "linksync.yaml").write_text(PROFILE + "limits: {max_delete: 0}\n", "utf-8")
    applied = run("apply", "--plan", "p.json", "--yes")
    assert applied.exit_code == 2, applied.output
    assert "unknown key(s) max_delete (max_delete: did you mean max_deletes?)" in applied.output
    assert slugs(planned) == set(SEASONS)
