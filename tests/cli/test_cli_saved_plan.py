"""``apply --plan``: a saved plan writes only what it declared, where it was declared.
A team plans on a pull request and applies on merge: between the two, links
change by hand, flags and profile limits are added, the file is edited, a job points at
another workspace. Each case runs the CLI on the built-in sandbox of ``workdir`` and
checks the workspace through the client afterwards."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from linksync.api import LinkServiceClient
from linksync.config import resolve
from linksync.sandbox import DEFAULT_FULL_KEY
from support.cli_runs import remote_links, run

SEASONS = {s: f"https://example.com/{s}" for s in ("spring", "summer", "autumn", "winter")}
MIRROR = ("--mode", "mirror", "--domain", "lnk.test")


def links_yaml(links: dict[str, str]) -> str:
    rows = "".join(f"  {slug}: {url}\n" for slug, url in links.items())
    return f"defaults:\n  domain: lnk.test\nlinks:\n{rows}"


def urls(workdir: Path) -> dict[str, str]:
    return {link.slug: link.url for link in remote_links(workdir)}


@pytest.fixture
def planned(workdir: Path) -> Path:
    """Four links applied; then the file drops autumn and moves summer, and the mirror
    plan (1 update, 1 delete, 2 unchanged) is saved to p.json."""
    path = workdir / "links.yaml"
    path.write_text(links_yaml(SEASONS), encoding="utf-8")
    assert run("apply", "links.yaml", "--yes").exit_code == 0
    kept = {**SEASONS, "summer": "https://example.com/summer-2"}
    del kept["autumn"]
    path.write_text(links_yaml(kept), encoding="utf-8")
    made = run("plan", "links.yaml", *MIRROR, "--out", "p.json")
    assert made.exit_code == 0, made.output
    assert json.loads((workdir / "p.json").read_text())["counts"]["delete"] == 1
    return workdir


def by_hand(workdir: Path, *, delete: str, repoint: str) -> None:
    async def edit() -> None:
        async with resolve(cwd=workdir, env={}, sandbox=True).open_client() as client:
            await client.delete_link(delete, domain="lnk.test")
            await client.update_link(repoint, {"url": "https://example.com/by-hand"}, "lnk.test")

    asyncio.run(edit())


def test_unchanged_rows_whose_links_changed_by_hand_are_stale(planned: Path) -> None:
    by_hand(planned, delete="spring", repoint="winter")
    applied = run("apply", "--plan", "p.json", "--yes", "--report", "r.json")
    assert applied.exit_code == 1, applied.output
    rows = {r["slug"]: r for r in json.loads((planned / "r.json").read_text())["results"]}
    assert rows["spring"]["error_constant"] == "STALE_PLAN"
    assert "was deleted since the plan was made" in rows["spring"]["message"]
    assert rows["winter"]["error_constant"] == "STALE_PLAN"
    assert "changed since the plan was made" in rows["winter"]["message"]
    assert rows["summer"]["status"] == "ok" and rows["autumn"]["status"] == "ok"
    # The stale rows were left as the hand left them; the plan's writes were done.
    assert urls(planned) == {
        "summer": "https://example.com/summer-2",
        "winter": "https://example.com/by-hand",
    }


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (("--max-deletes", "0"), "1 deletes exceed the maximum of 0"),
        (
            ("--mode", "create-only"),
            "--mode create-only (the plan holds 1 update and 1 delete, which create-only "
            "mode does not do)",
        ),
        (("--mode", "upsert"), "--mode upsert (the plan holds 1 delete"),
        (("--owner-tag", "team-b"), "--owner-tag team-b (the plan's: none)"),
        (("--allow-replace",), "--allow-replace (made without it)"),
    ],
)
def test_flags_given_at_apply_time_bind_the_saved_plan(
    planned: Path, flags: tuple[str, ...], words: str
) -> None:
    before = urls(planned)
    refused = run("apply", "--plan", "p.json", "--yes", *flags)
    assert refused.exit_code == 2
    assert words in refused.stderr
    assert urls(planned) == before  # autumn kept, summer not moved


def test_a_mode_that_does_more_than_the_plans_is_refused(workdir: Path) -> None:
    (workdir / "links.yaml").write_text(links_yaml(SEASONS), encoding="utf-8")
    assert run("plan", "links.yaml", "--mode", "create-only", "--out", "p.json").exit_code == 0
    refused = run("apply", "--plan", "p.json", "--yes", "--mode", "upsert")
    assert refused.exit_code == 2
    assert "made in create-only mode, which plans no updates or replaces" in refused.stderr
    refused = run("apply", "--plan", "p.json", "--yes", "--mode", "update-only")
    assert refused.exit_code == 2 and "plans no updates" in refused.stderr
    assert urls(workdir) == {}
    # The plan's own mode (given again, as CI does) is no conflict.
    assert run("apply", "--plan", "p.json", "--yes", "--mode", "create-only").exit_code == 0
    assert urls(workdir) == SEASONS


def test_profile_limits_written_after_planning_apply(planned: Path) -> None:
    (planned / "linksync.yaml").write_text(
        "default_profile: main\nprofiles:\n  main:\n    limits:\n      max_deletes: 0\n",
        encoding="utf-8",
    )
    refused = run("apply", "--plan", "p.json", "--yes")
    assert refused.exit_code == 2
    assert "1 deletes exceed the maximum of 0" in refused.stderr
    assert "autumn" in urls(planned)
    # --force at apply time passes the threshold, as for a fresh plan.
    assert run("apply", "--plan", "p.json", "--yes", "--force").exit_code == 0
    assert "autumn" not in urls(planned)


def test_a_looser_limit_is_said_and_the_plans_holds(workdir: Path) -> None:
    (workdir / "links.yaml").write_text(links_yaml(SEASONS), encoding="utf-8")
    assert run("apply", "links.yaml", "--yes").exit_code == 0
    (workdir / "links.yaml").write_text(links_yaml({"spring": SEASONS["spring"]}), "utf-8")
    made = run("plan", "links.yaml", *MIRROR, "--max-deletes", "2", "--out", "p.json")
    assert made.exit_code == 0 and "3 deletes exceed the maximum of 2" in made.output
    refused = run("apply", "--plan", "p.json", "--yes", "--max-deletes", "10")
    assert refused.exit_code == 2
    assert "--max-deletes 10 is looser than the saved plan's 2" in refused.stderr
    assert len(urls(workdir)) == 4


def test_options_a_saved_plan_does_not_use_are_named(planned: Path) -> None:
    applied = run("apply", "--plan", "p.json", "--yes", "--ai-slug", "--sheet", "Links")
    assert applied.exit_code == 0, applied.output
    assert "--ai-slug, --sheet: not used with a saved plan" in applied.stderr


def test_every_reading_flag_given_without_sources_is_named(planned: Path) -> None:
    """The reading flags a saved plan has nothing to read with are the fields of the
    run's Reading, the newest ones too."""
    applied = run(
        "apply", "--plan", "p.json", "--yes", "--include-hidden", "--timezone", "Europe/Berlin"
    )
    assert applied.exit_code == 0, applied.output
    assert "--timezone, --include-hidden: not used with a saved plan" in applied.stderr


def test_a_source_edited_since_the_plan_is_refused(planned: Path) -> None:
    path = planned / "links.yaml"
    path.write_text(path.read_text() + "  extra: https://example.com/extra\n", "utf-8")
    before = urls(planned)
    refused = run("apply", "--plan", "p.json", "links.yaml", "--yes")
    assert refused.exit_code == 2
    assert "links.yaml changed since the plan p.json was made: plan again" in refused.stderr
    assert urls(planned) == before


def test_a_source_that_is_not_the_plans_is_refused(planned: Path) -> None:
    (planned / "other.yaml").write_text(links_yaml({"other": "https://e.com/o"}), "utf-8")
    before = urls(planned)
    refused = run("apply", "--plan", "p.json", "other.yaml", "--yes")
    assert refused.exit_code == 2
    assert "other.yaml is not a source of the saved plan p.json (made from links.yaml)" in (
        refused.stderr
    )
    assert urls(planned) == before


def test_passwords_come_from_the_plans_own_sources(workdir: Path) -> None:
    (workdir / "gated.csv").write_text(
        "slug,url,password\ngated,https://example.com/g,s3cret-pass\n", "utf-8"
    )
    assert run("plan", "gated.csv", "--out", "p.json").exit_code == 0
    assert "s3cret-pass" not in (workdir / "p.json").read_text()
    applied = run("apply", "--plan", "p.json", "gated.csv", "--yes")
    assert applied.exit_code == 0, applied.output
    (link,) = remote_links(workdir)
    assert link.slug == "gated" and link.has_password


def test_another_workspace_is_refused_before_any_write(
    planned: Path, live_sandbox: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LINKSYNC_API_KEY", DEFAULT_FULL_KEY)
    refused = run("apply", "--plan", "p.json", "--yes", "--base-url", live_sandbox)
    assert refused.exit_code == 2
    db = (planned / ".linksync" / "sandbox.db").resolve()
    port = live_sandbox.rsplit(":", 1)[1]
    assert f"was planned for the built-in sandbox {db} (organization org_sandbox)" in (
        refused.stderr
    )
    assert f"this target is http://127.0.0.1:{port} (organization org_sandbox)" in refused.stderr

    async def listed() -> list[str]:
        async with LinkServiceClient(live_sandbox, DEFAULT_FULL_KEY) as client:
            return [link.slug for link in await client.list_links()]

    assert asyncio.run(listed()) == []


def test_another_sandbox_database_is_another_workspace(planned: Path) -> None:
    (planned / "linksync.yaml").write_text(
        "default_profile: b\nprofiles:\n  b:\n    sandbox_db: other.db\n", encoding="utf-8"
    )
    refused = run("apply", "--plan", "p.json", "--yes")
    assert refused.exit_code == 2
    assert f"this target is the built-in sandbox {planned.resolve() / 'other.db'}" in (
        refused.stderr
    )
    assert remote_links(planned) == []  # other.db: nothing written there


def test_a_plan_that_does_not_name_its_workspace_is_refused(planned: Path) -> None:
    data = json.loads((planned / "p.json").read_text())
    del data["workspace"]
    (planned / "old.json").write_text(json.dumps(data), encoding="utf-8")
    before = urls(planned)
    refused = run("apply", "--plan", "old.json", "--yes")
    assert refused.exit_code == 2
    assert "does not say which workspace it was made for" in refused.stderr
    assert "plan again" in refused.stderr
    assert urls(planned) == before
