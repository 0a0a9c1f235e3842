"""The reverse plan (``linksync.sync.undo.reverse_plan``), pure: each kind of write set
back, and every case where a link is left as it is, with the reason a user reads."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from sync_helpers import remote_state

from linksync.model import Action, RemoteLink
from linksync.sync.history import WrittenRow
from linksync.sync.journal import link_state
from linksync.sync.plan import Change
from linksync.sync.undo import reverse_plan

D = "lnk.test"
NOW = datetime(2027, 1, 1, tzinfo=UTC)
T1, T2 = "2026-12-01T10:00:00.000Z", "2026-12-02T10:00:00.000Z"


def link(slug: str, **fields: Any) -> RemoteLink:
    fields.setdefault("url", f"https://example.com/{slug}")
    fields.setdefault("updated_at", T1)
    if "tags" in fields:
        fields["tags"] = tuple(fields["tags"])
    return RemoteLink(domain=D, slug=slug, **fields)


def after(now: RemoteLink, *names: str) -> dict[str, Any]:
    """What a run left, as its journal records it."""
    return {**(link_state(now, names) if names else link_state(now)), "updatedAt": now.updated_at}


def reverse(written: list[WrittenRow], *links: RemoteLink) -> list[Change]:
    return list(reverse_plan(written, remote_state(D, links), now=NOW).changes)


def test_a_created_link_is_deleted_unless_it_changed_or_went() -> None:
    made = link("new", description="Made")
    w = WrittenRow(Action.CREATE, D, "new", None, after(made), "links.csv, row 2")
    (ch,) = reverse([w], made)
    assert ch.action is Action.DELETE and ch.remote == made
    assert ch.notes == ("undoes the create of links.csv, row 2",)
    (edited,) = reverse([w], link("new", description="Edited"))
    assert edited.action is Action.SKIP
    assert edited.reason == "changed since the run: left as it is (description)"
    touched = link("new", description="Made", updated_at=T2)
    (moved,) = reverse([w], touched)
    assert moved.reason == f"changed since the run: left as it is (updatedAt {T1} -> {T2})"
    (gone,) = reverse([w])
    assert gone.action is Action.UNCHANGED
    assert gone.notes == ("deleted since the run already: nothing to undo",)


def test_updated_fields_go_back_and_a_password_is_said() -> None:
    now = link("u", url="https://example.com/new", tags=("a", "c"), has_password=True)
    before = {"url": "https://example.com/old", "tags": ["a", "b"], "hasPassword": False}
    w = WrittenRow(Action.UPDATE, D, "u", before, after(now, "url", "tags", "hasPassword"))
    (ch,) = reverse([w], now)
    assert ch.action is Action.UPDATE
    assert dict(ch.payload) == {
        "url": "https://example.com/old",
        "tags": ["a", "b"],
        "password": None,
    }
    assert [f.field for f in ch.fields] == ["url", "tags", "password"]
    had = WrittenRow(Action.UPDATE, D, "u", {"hasPassword": True}, after(now, "hasPassword"))
    (kept,) = reverse([had], now)
    assert kept.action is Action.SKIP
    assert kept.reason == (
        "only its password changed, and a password cannot be set back (the service never "
        "returns one): left as it is"
    )


def test_a_deleted_link_comes_back_with_its_fields_not_its_password() -> None:
    gone = link(
        "g", description="Gone", tags=("x",), apple="https://apps.apple.com/g",
        expires_at="2030-01-01T00:00:00.000Z", has_password=True,
    )  # fmt: skip
    w = WrittenRow(Action.DELETE, D, "g", link_state(gone), None)
    (ch,) = reverse([w])
    assert ch.action is Action.CREATE
    assert dict(ch.payload) == {
        "url": "https://example.com/g",
        "slug": "g",
        "domain": D,
        "description": "Gone",
        "tags": ["x"],
        "apple": "https://apps.apple.com/g",
        "expiresAt": "2030-01-01T00:00:00.000Z",
    }
    assert ch.notes == (
        "created again without its password: a password cannot be set back (the service "
        "never returns one)",
    )
    (again,) = reverse([w], link("g"))
    assert again.reason == "changed since the run: left as it is (made again since the run)"
    old = WrittenRow(Action.DELETE, D, "g", {**link_state(gone), "expiresAt": T1}, None)
    (expired,) = reverse([old])
    assert expired.action is Action.SKIP
    assert expired.reason == f"its expiry ({T1}) has passed: it cannot be created again"


def test_a_replaced_link_is_replaced_back() -> None:
    was = link("r", expires_at="2030-01-01T00:00:00.000Z")
    now = link("r", expires_at="2032-01-01T00:00:00.000Z", updated_at=T2)
    w = WrittenRow(Action.REPLACE, D, "r", link_state(was), after(now))
    (ch,) = reverse([w], now)
    assert ch.action is Action.REPLACE and ch.payload["expiresAt"] == "2030-01-01T00:00:00.000Z"
    assert [(f.field, f.old, f.new) for f in ch.fields] == [
        ("expires_at", "2032-01-01T00:00:00.000Z", "2030-01-01T00:00:00.000Z")
    ]
    # deleted, and re-creating failed: the run left no link, so it is created again
    half = WrittenRow(Action.REPLACE, D, "r", link_state(was), None)
    (made,) = reverse([half])
    assert made.action is Action.CREATE


def test_a_link_another_writer_made_is_left_alone() -> None:
    now = link("x", description="Ours")
    w = WrittenRow(Action.UPDATE, D, "x", None, after(now, "description"))
    (ch,) = reverse([w], now)
    assert ch.action is Action.SKIP and "what it held before is not known" in (ch.reason or "")


@pytest.mark.parametrize(("where", "order"), [(None, ["a", "b"]), ("links.csv, row 9", ["b", "a"])])
def test_rows_follow_the_sources_then_the_links(where: str | None, order: list[str]) -> None:
    a, b = link("a"), link("b")
    written = [
        WrittenRow(Action.CREATE, D, "a", None, after(a)),
        WrittenRow(Action.CREATE, D, "b", None, after(b), where),
    ]
    assert [ch.slug for ch in reverse(written, a, b)] == order
