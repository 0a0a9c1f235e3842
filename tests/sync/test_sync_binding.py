"""What a saved plan is bound to (``linksync.sync.binding``), how an apply's options bind
it (``linksync.sync.saved_options``), and the rows its refresh checks
(``linksync.sync.stale``): the workspace, the sources' digests, a stricter mode and
tighter limits, unchanged rows whose link changed without its updatedAt moving."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from sync_helpers import Sandbox, remote_state, row

from linksync.errors import SavedPlanMismatch
from linksync.model import Action, RemoteLink
from linksync.sync import Plan, SyncOptions, diff
from linksync.sync.binding import (
    WorkspaceId,
    check_sources,
    check_workspace,
    digest_path,
    normal_base_url,
    workspace_id,
)
from linksync.sync.options import Mode
from linksync.sync.saved_options import options_for_saved, rejudge
from linksync.sync.stale import mark_stale, plan_specs
from linksync.sync.verdicts import Safety


@pytest.mark.parametrize(
    ("given", "normal"),
    [
        ("https://Go.Example.com/", "https://go.example.com:443"),
        ("https://go.example.com:443", "https://go.example.com:443"),
        ("http://127.0.0.1:18787", "http://127.0.0.1:18787"),
        ("https://staging.example.com:8443/api/", "https://staging.example.com:8443/api"),
        ("http://[::1]:8080", "http://[::1]:8080"),
    ],
)
def test_base_urls_are_compared_by_scheme_host_and_port(given: str, normal: str) -> None:
    assert normal_base_url(given) == normal


async def test_the_workspace_is_the_organization_the_service_reports(sandbox: Sandbox) -> None:
    async with sandbox.client() as client:
        here = await workspace_id(client, "https://API.example.com/")
    assert here == WorkspaceId("https://api.example.com:443", "org_sandbox")
    check_workspace(here, here, "p.json")
    other = replace(here, organization="org_other")
    with pytest.raises(SavedPlanMismatch) as caught:
        check_workspace(other, here, "p.json")
    assert str(caught.value).startswith(
        "the saved plan p.json was planned for https://api.example.com:443 (organization "
        "org_other); this target is https://api.example.com:443 (organization org_sandbox)"
    )
    with pytest.raises(SavedPlanMismatch, match="does not say which workspace"):
        check_workspace(None, here, "p.json")


def test_a_folder_digest_follows_its_files_not_hidden_ones(tmp_path: Path) -> None:
    links = tmp_path / "links"
    (links / "team").mkdir(parents=True)
    (links / "a.yaml").write_text("links: {a: https://e.com/a}\n")
    (links / "team" / "b.yaml").write_text("links: {b: https://e.com/b}\n")
    first = digest_path(links)
    (links / ".git").mkdir()
    (links / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    assert digest_path(links).sha256 == first.sha256
    (links / "team" / "b.yaml").write_text("links: {b: https://e.com/b2}\n")
    assert digest_path(links).sha256 != first.sha256
    (links / "team" / "b.yaml").write_text("links: {b: https://e.com/b}\n")
    (links / "more.ymal").write_text("links: {c: https://e.com/c}\n")  # a stray file counts
    assert digest_path(links).sha256 != first.sha256


def test_sources_are_checked_all_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("a.csv").write_text("slug,url\na,https://e.com/a\n")
    Path("b.csv").write_text("slug,url\nb,https://e.com/b\n")
    recorded = (digest_path("a.csv"), digest_path("b.csv"))
    check_sources(recorded, ["a.csv", str(tmp_path / "b.csv")], "p.json")
    Path("b.csv").write_text("slug,url\nb,https://e.com/b2\n")
    Path("c.csv").write_text("slug,url\nc,https://e.com/c\n")
    with pytest.raises(SavedPlanMismatch) as caught:
        check_sources(recorded, ["a.csv", "b.csv", "c.csv"], "p.json")
    message = str(caught.value)
    assert "b.csv changed since the plan p.json was made: plan again" in message
    assert "c.csv is not a source of the saved plan p.json (made from a.csv, b.csv)" in message


def _link(slug: str, url: str, updated: str = "2026-01-01T00:00:00.000Z") -> RemoteLink:
    return RemoteLink("lnk.test", slug, url, updated_at=updated)


OPTS = SyncOptions(system_domain="lnk.test", mode=Mode.MIRROR, scope_domains=("lnk.test",))


def _plan() -> Plan:
    """1 create, 1 update, 1 delete, 1 unchanged."""
    remote = remote_state("lnk.test", [_link("a", "https://e/a"), _link("b", "https://e/b"),
                                       _link("gone", "https://e/g")])  # fmt: skip
    desired = [row("a", "https://e/a", 2), row("b", "https://e/b2", 3), row("c", "https://e/c", 4)]
    plan = diff(desired, remote, OPTS)
    assert [c.action for c in plan.changes] == [
        Action.UNCHANGED, Action.UPDATE, Action.CREATE, Action.DELETE,
    ]  # fmt: skip
    return replace(plan, safety=Safety(existing=3, changes=2, deletes=1))


def test_unchanged_rows_are_fetched_and_checked_field_by_field() -> None:
    plan = _plan()
    assert {s.slug for s in plan_specs(plan)} == {"a", "b", "c", "gone"}
    # A service that does not move updatedAt: the compared field still tells.
    fresh = remote_state("lnk.test", [_link("a", "https://e/moved"), _link("b", "https://e/b"),
                                      _link("gone", "https://e/g")])  # fmt: skip
    checked = mark_stale(plan, fresh)
    blocked = {c.slug: c for c in checked.changes if c.blocked_by == "STALE_PLAN"}
    assert list(blocked) == ["a"]
    assert blocked["a"].problems[-1].message == "lnk.test/a changed since the plan was made (url)"


CASES: list[tuple[dict[str, Any], dict[str, Any], dict[str, Any] | str]] = [
    # given, profile limits -> the options changed, or the words of the refusal
    ({}, {}, {}),
    ({"mode": "mirror", "scope_domains": ["LNK.test"]}, {}, {}),  # the plan's own, as CI gives
    ({"max_deletes": 0}, {}, {"max_deletes": 0}),
    ({}, {"max_deletes": 0, "max_change_ratio": 0.5}, {"max_deletes": 0}),
    ({"max_deletes": 5}, {"max_deletes": 1}, {"max_deletes": 1}),
    ({"min_existing": 2}, {}, {"min_existing": 2}),
    ({"mode": "upsert"}, {}, "--mode upsert (the plan holds 1 delete, which upsert mode"),
    ({"mode": "create-only"}, {}, "the plan holds 1 update and 1 delete"),
    ({"mode": "update-only"}, {}, "the plan holds 1 create and 1 delete"),
    ({"owner_tag": "web", "slugless": "random"}, {}, "--owner-tag web (the plan's: none); "),
    ({"scope_domains": ["go.example.com"]}, {}, "--domain go.example.com (the plan's: lnk.test)"),
    ({"default_domain": "go.example.com"}, {}, "default_domain=go.example.com (the plan's: none)"),
]


@pytest.mark.parametrize(("given", "limits", "expected"), CASES)
def test_an_apply_may_only_tighten_a_saved_plan(
    given: dict[str, Any], limits: dict[str, Any], expected: dict[str, Any] | str
) -> None:
    plan = _plan()
    if isinstance(expected, str):
        with pytest.raises(SavedPlanMismatch, match="was not made with") as caught:
            options_for_saved(plan, given, limits, plan_name="p.json")
        assert expected in str(caught.value)
        return
    bound = options_for_saved(plan, given, limits, plan_name="p.json")
    assert bound.options == replace(plan.options, **expected)


def test_a_looser_limit_is_a_note_and_a_tighter_one_is_judged_again() -> None:
    plan = replace(_plan(), options=replace(OPTS, max_deletes=1, force=True))
    loose = options_for_saved(plan, {"max_deletes": 3})
    assert loose.options.max_deletes == 1 and loose.options.force  # nothing tightened
    assert loose.notes == (
        "--max-deletes 3 is looser than the saved plan's 1: at apply time a limit only "
        "tightens, the plan's holds",
    )
    tight = options_for_saved(plan, {"max_deletes": 0})
    assert not tight.options.force  # the plan's --force was for the plan's limits
    judged = rejudge(plan, tight.options)
    assert judged.refused and judged.safety.reason == "1 deletes exceed the maximum of 0"
    forced = options_for_saved(plan, {"max_deletes": 0, "force": True})
    assert not rejudge(plan, forced.options).refused


def test_a_narrower_mode_that_fits_the_plan_is_applied() -> None:
    plan = _plan()
    creates = replace(plan, changes=tuple(c for c in plan.changes if c.action is Action.CREATE))
    bound = options_for_saved(creates, {"mode": "create-only"})
    assert bound.options.mode is Mode.CREATE_ONLY
