"""Passwords in the pure diff and in the fingerprint store: a row's password
for a link that has one is compared with the fingerprint of the one this machine sent;
without one, the row says it was not sent. The store keeps HMACs under a key of the
machine, never a password."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

from sync_helpers import remote_state

from linksync.model import Action, LinkKey, LinkSpec, Provenance, RemoteLink, Severity
from linksync.sync import SyncOptions, diff
from linksync.sync.fingerprints import PasswordMemory, PasswordStore
from linksync.sync.plan import Plan

SYS = "lnk.test"
KEY = LinkKey.of(SYS, "vip")


def spec(password: str | None, **fields: Any) -> LinkSpec:
    managed = {"url", "slug", *fields}
    if password is not None:
        managed.add("password")
    columns = {"url": "Destination URL", "slug": "Slug", "password": "Password"}
    columns |= {"expires_at": "Expires", "apple": "iOS URL", "description": "Notes"}
    return LinkSpec(
        url="https://example.com/vip",
        slug="vip",
        password=password,
        managed=frozenset(managed),
        provenance=Provenance("links.csv", None, 2, columns=columns),
        **fields,
    )


def remote(**fields: Any) -> RemoteLink:
    return RemoteLink(SYS, "vip", "https://example.com/vip", has_password=True, **fields)


def plan_of(row: LinkSpec, link: RemoteLink, memory: PasswordMemory | None, **opts: Any) -> Plan:
    return diff([row], remote_state(SYS, [link]), SyncOptions(**opts), passwords=memory)


def remembered(tmp_path: Path, password: str) -> PasswordMemory:
    store = PasswordStore(tmp_path / "passwords" / "target.json")
    store.sent(KEY, password)
    store.save()
    return PasswordStore(tmp_path / "passwords" / "target.json").load()


def test_a_changed_password_is_an_update_with_a_note(tmp_path: Path) -> None:
    memory = remembered(tmp_path, "first")
    (ch,) = plan_of(spec("second"), remote(), memory).changes
    assert ch.action is Action.UPDATE
    assert ch.changed_fields == ("password",)
    assert ch.payload == {"password": "second"}
    assert ch.notes == ("password changed since the last run from this machine",)
    assert not ch.problems
    saved = json.dumps(ch.to_dict())
    assert "second" not in saved and "first" not in saved


def test_the_same_password_stays_unchanged_and_quiet(tmp_path: Path) -> None:
    (ch,) = plan_of(spec("first"), remote(), remembered(tmp_path, "first")).changes
    assert ch.action is Action.UNCHANGED and not ch.problems and not ch.notes


def test_without_a_fingerprint_the_row_says_not_sent() -> None:
    for memory in (None, PasswordMemory()):
        (ch,) = plan_of(spec("second"), remote(), memory).changes
        assert ch.action is Action.UNCHANGED
        (warning,) = ch.problems
        assert warning.constant == "PASSWORD_NOT_SENT"
        assert warning.severity is Severity.WARNING and warning.field == "password"
        assert "--reset-passwords" in warning.message and "second" not in warning.message


def test_an_update_for_another_field_still_says_the_password_was_not_sent() -> None:
    row = spec("second", description="new words")
    (ch,) = plan_of(row, remote(description="old words"), None).changes
    assert ch.action is Action.UPDATE and "password" not in ch.payload
    assert [p.constant for p in ch.problems] == ["PASSWORD_NOT_SENT"]


def test_reset_passwords_sends_without_a_warning() -> None:
    (ch,) = plan_of(spec("second"), remote(), None, reset_passwords=True).changes
    assert ch.action is Action.UPDATE and ch.payload == {"password": "second"}
    assert not ch.problems and not ch.notes


def test_a_fingerprint_of_another_link_does_not_count(tmp_path: Path) -> None:
    store = PasswordStore(tmp_path / "t.json")
    store.sent(LinkKey.of(SYS, "other"), "first")
    store.save()
    (ch,) = plan_of(spec("first"), remote(), PasswordStore(tmp_path / "t.json").load()).changes
    assert [p.constant for p in ch.problems] == ["PASSWORD_NOT_SENT"]


def test_empty_cells_name_the_fields_left_as_on_the_service() -> None:
    link = remote(expires_at="2031-01-01T00:00:00.000Z", apple="https://apps.apple.com/x")
    (ch,) = plan_of(spec(None), link, None).changes
    assert ch.action is Action.UNCHANGED
    assert ch.notes == ("expiresAt, apple, password left as on the service (empty cells)",)
    # A field the source has no column for is not the source's to mention.
    row = spec(None)
    bare = LinkSpec(
        url=row.url, slug=row.slug, managed=row.managed,
        provenance=Provenance("links.csv", None, 2, columns={"url": "URL", "slug": "Slug"}),
    )  # fmt: skip
    (quiet,) = plan_of(bare, link, None).changes
    assert quiet.notes == ()


def test_the_store_keeps_hmacs_under_a_private_key(tmp_path: Path) -> None:
    path = tmp_path / "passwords" / "t.json"
    store = PasswordStore(path)
    store.sent(KEY, "same")
    store.sent(LinkKey.of(SYS, "twin"), "same")
    store.save()
    key_file = path.parent / "machine.key"
    for file in (path, key_file):
        assert stat.S_IMODE(file.stat().st_mode) == 0o600
        assert b"same" not in file.read_bytes()
    digests = json.loads(path.read_text())["links"]
    assert len(set(digests.values())) == 2  # one password, two links: two fingerprints
    memory = PasswordStore(path).load()
    assert memory.verdict(KEY, "same") is True
    assert memory.verdict(KEY, "other") is False
    assert memory.verdict(LinkKey.of(SYS, "nobody"), "same") is None
    # A new key (the old one lost) cannot check the old fingerprints: they are dropped.
    key_file.unlink()
    again = PasswordStore(path)
    again.sent(LinkKey.of(SYS, "new"), "x")
    again.save()
    assert list(json.loads(path.read_text())["links"]) == [f"{SYS}/new"]


def test_save_keeps_what_another_run_wrote_meanwhile(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    ours, theirs = PasswordStore(path), PasswordStore(path)
    ours.sent(KEY, "a")
    theirs.sent(LinkKey.of(SYS, "b"), "b")
    theirs.save()
    ours.forget(LinkKey.of(SYS, "gone"))
    ours.save()
    assert sorted(json.loads(path.read_text())["links"]) == [f"{SYS}/b", f"{SYS}/vip"]


def test_a_saved_plan_keeps_its_notes_and_reads_older_plans(tmp_path: Path) -> None:
    plan = plan_of(spec("second"), remote(), remembered(tmp_path, "first"))
    back = Plan.from_json(plan.to_json())
    assert back.changes[0].notes == plan.changes[0].notes
    older = json.loads(plan.to_json())
    for change in older["changes"]:
        del change["notes"]  # a plan saved before notes existed
    assert Plan.from_dict(older).changes[0].notes == ()
