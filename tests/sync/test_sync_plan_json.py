"""Plans as values: stable JSON, round trip, no password in the file."""

from __future__ import annotations

import json

from sync_helpers import remote_state

from linksync.model import Action, LinkSpec, Provenance, RemoteLink
from linksync.sync import Mode, OrgInfo, Plan, SyncOptions, diff
from linksync.sync.plan import restore_passwords


def _plan() -> Plan:
    prov = Provenance("c.xlsx", "Spring", 7, {"url": "Destination URL"})
    desired = [
        LinkSpec(
            "https://e.com/new",
            "new",
            password="hunter2",
            managed=frozenset({"url", "password", "tags"}),
            tags=("a",),
            provenance=prov,
        ),
        LinkSpec(
            "https://e.com/upd",
            "upd",
            description="D",
            managed=frozenset({"url", "description"}),
            provenance=Provenance("c.xlsx", "Spring", 8),
        ),
    ]
    links = [
        RemoteLink("lnk.test", "upd", "https://e.com/old", updated_at="2026-01-01T00:00:00.000Z"),
        RemoteLink("lnk.test", "gone", "https://e.com/gone", tags=("own",)),
    ]
    st = remote_state("lnk.test", links, org=OrgInfo(2, 100))
    return diff(desired, st, SyncOptions(mode=Mode.MIRROR, owner_tag="own"), target="sandbox")


def test_round_trip_is_stable() -> None:
    plan = _plan()
    text = plan.to_json()
    back = Plan.from_json(text)
    assert back.to_json() == text
    assert [c.action for c in back.changes] == [Action.CREATE, Action.UPDATE, Action.DELETE]
    assert back.changes[1].remote is not None
    assert back.changes[1].remote.updated_at == "2026-01-01T00:00:00.000Z"
    assert back.changes[0].provenance == plan.changes[0].provenance
    assert back.quota == plan.quota and back.safety == plan.safety
    assert back.options == plan.options


def test_json_has_sorted_keys_and_counts() -> None:
    data = json.loads(_plan().to_json())
    assert list(data) == sorted(data)
    assert data["counts"]["create"] == 1 and data["counts"]["delete"] == 1
    assert data["changes"][1]["fields"] == [
        {"field": "url", "old": "https://e.com/old", "new": "https://e.com/upd"},
        {"field": "description", "old": None, "new": "D"},
    ]


def test_password_never_written_and_restored_from_sources() -> None:
    plan = _plan()
    text = plan.to_json()
    assert "hunter2" not in text
    back = Plan.from_json(text)
    assert [c.slug for c in back.writes if c.payload.get("password") == "***"] == ["new"]
    spec = plan.changes[0].spec
    assert spec is not None
    restored = restore_passwords(back, [spec])
    assert restored.changes[0].payload["password"] == "hunter2"
    assert [c for c in restored.writes if c.payload.get("password") == "***"] == []
