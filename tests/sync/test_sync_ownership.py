"""Ownership (octoDNS-style): never take over a link another owner tag marks, unless
--allow-takeover; and the plan's list of unmanaged links."""

from __future__ import annotations

from typing import Any

import pytest
from sync_helpers import Sandbox, row
from test_sync_diff import remote, spec, state

from linksync.errors import ERRORS
from linksync.model import Action, Status
from linksync.sync import DomainInfo, Mode, Plan, SyncOptions, diff
from linksync.sync.execute import execute
from linksync.sync.ownership import other_owners, owner_family, taken_over
from linksync.sync.remote import fetch_remote

MINE = "owner:marketing"
SALES = "owner:sales"


@pytest.mark.parametrize(
    ("owner_tag", "family"),
    [
        ("owner:marketing", "owner:"),
        ("team:web:owner", "team:web:"),
        ("managed-by-linksync", "managed-by-"),
        ("managed", None),
        ("spring-2026", None),
        (None, None),
    ],
)
def test_owner_family(owner_tag: str | None, family: str | None) -> None:
    assert owner_family(owner_tag) == family


def test_other_owners_and_takeover_tags() -> None:
    opts = SyncOptions(owner_tag=MINE)
    assert other_owners(["sale", SALES, MINE, "owner:"], opts) == (SALES,)
    assert other_owners(["sale", "managed-by-zapier"], opts) == ()
    assert taken_over(["sale", SALES], opts) == ("sale", MINE)
    by = SyncOptions(owner_tag="managed-by-linksync")
    assert other_owners(["managed-by-zapier", "owner:x"], by) == ("managed-by-zapier",)
    assert other_owners(["owner:sales"], SyncOptions(owner_tag="managed")) == ()


def test_update_of_a_link_another_owner_marks_is_refused() -> None:
    desired = [spec("promo", "https://example.com/new")]
    st = state(remote("promo", tags=[SALES, "spring"]))
    plan = diff(desired, st, SyncOptions(owner_tag=MINE))
    (ch,) = plan.changes
    assert ch.action is Action.INVALID and not plan.has_changes
    assert ch.error is not None and ch.error.constant == "OWNED_BY_OTHER"
    assert SALES in ch.error.message and "--allow-takeover" in ch.error.message
    assert ch.changed_fields == ("url",)  # what it would have changed stays visible
    assert "OWNED_BY_OTHER" in ERRORS


def test_takeover_replaces_the_other_owner_tag_by_ours() -> None:
    desired = [spec("promo", "https://example.com/new")]
    st = state(remote("promo", tags=[SALES, "spring"]))
    plan = diff(desired, st, SyncOptions(owner_tag=MINE, allow_takeover=True))
    (ch,) = plan.changes
    assert ch.action is Action.UPDATE
    assert ch.payload == {"url": "https://example.com/new", "tags": ["spring", MINE]}
    assert set(ch.changed_fields) == {"url", "tags"}
    (warning,) = ch.problems
    assert warning.constant == "OWNED_BY_OTHER" and warning.severity.value == "warning"
    assert "takes lnk.test/promo over from owner:sales" in warning.message


def test_unchanged_link_of_another_owner_is_left_alone() -> None:
    st = state(remote("promo", tags=[SALES]))
    plan = diff([spec("promo")], st, SyncOptions(owner_tag=MINE))
    assert [c.action for c in plan.changes] == [Action.UNCHANGED]


def test_no_family_means_no_other_owner() -> None:
    st = state(remote("promo", tags=[SALES]))
    plan = diff([spec("promo", "https://x.io")], st, SyncOptions(owner_tag="managed"))
    assert [c.action for c in plan.changes] == [Action.UPDATE]
    plan = diff([spec("promo", "https://x.io")], st, SyncOptions())
    assert [c.action for c in plan.changes] == [Action.UPDATE]


def test_replace_of_another_owners_link_is_refused() -> None:
    desired = [spec("promo", expires_at="2031-01-01T00:00:00Z")]
    st = state(remote("promo", tags=[SALES], expires_at="2030-01-01T00:00:00Z"))
    opts = SyncOptions(owner_tag=MINE, allow_replace=True)
    (ch,) = diff(desired, st, opts).changes
    assert ch.action is Action.INVALID and ch.error is not None
    assert "the replace would take it over" in ch.error.message


def test_mirror_delete_of_a_shared_link_needs_takeover() -> None:
    links = [remote("ours", tags=[MINE]), remote("shared", "https://e.com/s", tags=[MINE, SALES])]
    opts = SyncOptions(mode=Mode.MIRROR, owner_tag=MINE, min_existing=100)
    plan = diff([], state(*links), opts)
    assert [(c.action, c.slug) for c in plan.changes] == [
        (Action.DELETE, "ours"),
        (Action.INVALID, "shared"),
    ]
    refused = plan.changes[1].error
    assert refused is not None and "the delete would take it over" in refused.message
    forced = diff([], state(*links), SyncOptions(**{**opts.to_dict(), "allow_takeover": True}))
    assert [c.action for c in forced.changes] == [Action.DELETE, Action.DELETE]


def test_allow_takeover_round_trips_through_a_saved_plan() -> None:
    plan = diff([], state(), SyncOptions(owner_tag=MINE, allow_takeover=True))
    again = Plan.from_json(plan.to_json())
    assert again.options.allow_takeover


# --- unmanaged ----------------------------------------------------------------------

GO = DomainInfo("go.example.com", "active")


def _workspace() -> Any:
    return state(
        remote("declared"),
        remote("hand-made", "https://e.com/h"),
        remote("ours-orphan", "https://e.com/o", tags=[MINE]),
        remote("promo", "https://e.com/p", domain="go.example.com"),
        domains=(GO,),
    )


def test_unmanaged_without_scope_is_every_undeclared_link() -> None:
    plan = diff([spec("declared")], _workspace(), SyncOptions())
    assert plan.unmanaged.links == (
        ("go.example.com", "promo"),
        ("lnk.test", "hand-made"),
        ("lnk.test", "ours-orphan"),
    )
    assert plan.unmanaged.domains == ("go.example.com", "lnk.test")
    data = plan.to_dict()["unmanaged"]
    assert data["count"] == 3
    assert {"domain": "lnk.test", "slug": "hand-made"} in data["links"]
    assert Plan.from_json(plan.to_json()).unmanaged == plan.unmanaged


def test_unmanaged_is_outside_the_scope() -> None:
    opts = SyncOptions(owner_tag=MINE)
    plan = diff([spec("declared")], _workspace(), opts)
    assert ("lnk.test", "ours-orphan") not in plan.unmanaged.links  # ours: in scope
    assert plan.unmanaged.count == 2
    mirror = SyncOptions(mode=Mode.MIRROR, scope_domains=("lnk.test",), min_existing=100)
    plan = diff([spec("declared")], _workspace(), mirror)
    assert plan.unmanaged.links == (("go.example.com", "promo"),)
    assert {c.slug for c in plan.changes if c.action is Action.DELETE} == {
        "hand-made",
        "ours-orphan",
    }


def test_unmanaged_counts_only_domains_listed_in_full() -> None:
    st = state(
        remote("declared"), remote("seen"), listed_domains=(), read_keys=[("lnk.test", "declared")]
    )
    plan = diff([spec("declared")], st, SyncOptions())
    assert plan.unmanaged.links == () and plan.unmanaged.domains == ()
    assert plan.unmanaged.describe().startswith("not counted")


def test_a_plan_saved_before_unmanaged_existed_still_loads() -> None:
    data = diff([spec("declared")], _workspace(), SyncOptions()).to_dict()
    del data["unmanaged"]
    assert Plan.from_dict(data).unmanaged.count == 0


# --- against the sandbox: a takeover race at apply time -------------------------------


async def test_create_meeting_another_owners_new_link_fails_loudly(sandbox: Sandbox) -> None:
    desired = [row("race", "https://mine", 2, description="mine")]
    opts = SyncOptions(owner_tag=MINE, system_domain="lnk.test")
    async with sandbox.client() as client:
        remote_state = await fetch_remote(client, desired, opts)
        plan = diff(desired, remote_state, opts)
        await client.create_link({"url": "https://theirs", "slug": "race", "tags": [SALES]})
        result = await execute(plan, client)
        (r,) = result.rows
        assert (r.status, r.error_constant) == (Status.FAILED, "OWNED_BY_OTHER")
        assert SALES in (r.message or "")
        link = await client.get_link("race")
    assert link.url == "https://theirs" and link.tags == (SALES,)
