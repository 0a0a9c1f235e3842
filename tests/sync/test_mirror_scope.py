"""What a mirror's scope and rows declare, in the pure engine: a row that
failed keeps every link of its slug (or URL) in the scope whatever domain it named; a
scope domain is the system domain or a registered one, spelled as a host name; an owner
tag nobody carries is a warning; the file-level problems that refuse a mirror; and
what the fetch learns of the owner tag, at the cost of one request at most."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from sync_helpers import Sandbox, remote_state

from linksync.errors import ConfigError
from linksync.model import Action, LinkSpec, Problem, Provenance, RemoteLink, Severity
from linksync.sync import DomainInfo, Mode, SyncOptions, diff
from linksync.sync.ownership import check_scope, owner_tag_unused
from linksync.sync.remote import fetch_remote
from linksync.sync.safety import mirror_refusal, undeclared

SYS = "lnk.test"
GO = "go.example.com"


def row(slug: str | None, url: str, n: int, domain: str | None = None) -> LinkSpec:
    return LinkSpec(
        url=url,
        slug=slug,
        domain=domain,
        managed=frozenset({"url"}),
        provenance=Provenance("go.yaml", None, n),
    )


def link(slug: str, domain: str = GO, url: str | None = None, *tags: str) -> RemoteLink:
    return RemoteLink(
        id=f"id-{domain}-{slug}",
        domain=domain,
        slug=slug,
        url=url or f"https://example.com/{slug}",
        short_url=f"https://{domain}/{slug}",
        tags=tuple(tags),
        updated_at="2026-01-01T00:00:00.000Z",
    )


STATE = remote_state(
    SYS,
    [link("spring"), link("summer"), link("autumn"), link("spring", SYS), link("w", SYS)],
    custom_domains=[DomainInfo(GO, "active")],
)


def test_a_row_on_a_misspelt_domain_keeps_the_links_of_its_slug() -> None:
    desired = [
        row("spring", "https://example.com/spring", 4, "go.exmple.com"),
        row("Summer", "https://example.com/summer", 6, "go.exmple.com"),
    ]
    options = SyncOptions(mode=Mode.MIRROR, scope_domains=(GO,), force=True)
    plan = diff(desired, STATE, options)
    by_action = {(ch.action, ch.domain, ch.slug) for ch in plan.changes}
    assert by_action == {
        (Action.INVALID, "go.exmple.com", "spring"),
        (Action.INVALID, "go.exmple.com", "Summer"),
        (Action.SKIP, GO, "spring"),
        (Action.SKIP, GO, "summer"),
        (Action.DELETE, GO, "autumn"),
    }
    kept = next(ch for ch in plan.changes if ch.action is Action.SKIP and ch.slug == "spring")
    assert kept.reason is not None
    assert kept.reason.startswith("kept, not deleted: go.yaml, line 4 declares the slug spring")
    assert not kept.is_write and plan.safety.deletes == 1
    # Outside the scope nothing changes: lnk.test/spring is no delete and no skip.
    assert all(ch.domain != SYS for ch in plan.changes)


def test_a_row_that_failed_validation_keeps_its_slug_on_every_scope_domain() -> None:
    desired = [row("spring", "not a url", 2, GO)]
    options = SyncOptions(mode=Mode.MIRROR, scope_domains=(GO, SYS))
    plan = diff(desired, STATE, options, invalid={0})
    kept = {(ch.domain, ch.slug) for ch in plan.changes if ch.action is Action.SKIP}
    assert kept == {(SYS, "spring")}  # go.example.com/spring is the row's own link
    deleted = {(ch.domain, ch.slug) for ch in plan.changes if ch.action is Action.DELETE}
    assert deleted == {(GO, "summer"), (GO, "autumn"), (SYS, "w")}


def test_a_row_without_slug_that_failed_keeps_the_links_of_its_url() -> None:
    desired = [row(None, "https://example.com/autumn", 3, "go.exmple.com")]
    options = SyncOptions(mode=Mode.MIRROR, scope_domains=(GO,))
    plan = diff(desired, STATE, options)
    kept = [ch for ch in plan.changes if ch.action is Action.SKIP]
    assert [(ch.domain, ch.slug) for ch in kept] == [(GO, "autumn")]
    assert kept[0].reason is not None and "declares its URL" in kept[0].reason
    deleted = {ch.slug for ch in plan.changes if ch.action is Action.DELETE}
    assert deleted == {"spring", "summer"}


def test_a_valid_row_keeps_only_its_own_link() -> None:
    desired = [row("spring", "https://example.com/spring", 2, SYS)]
    options = SyncOptions(mode=Mode.MIRROR, scope_domains=(GO, SYS))
    plan = diff(desired, STATE, options)
    assert not [ch for ch in plan.changes if ch.action is Action.SKIP]
    assert {ch.slug for ch in plan.changes if ch.action is Action.DELETE} == {
        "spring",
        "summer",
        "autumn",
        "w",
    }


@pytest.mark.parametrize(
    ("scope", "said"),
    [
        ("go.exmaple.com", "--domain go.exmaple.com: no such domain in this workspace; "
         "did you mean go.example.com?"),
        ("https://go.example.com", "--domain https://go.example.com: write the domain "
         "alone: --domain go.example.com"),
        ("go.example.com/", "--domain go.example.com/: write the domain alone: --domain "
         "go.example.com"),
        ("http://go.example.com:8080/x", "write the domain alone: --domain go.example.com"),
        ("elsewhere.org", "--domain elsewhere.org: no such domain in this workspace; its "
         "domains: go.example.com, lnk.test"),
    ],
)  # fmt: skip
def test_a_scope_domain_names_a_domain_of_the_workspace(scope: str, said: str) -> None:
    options = SyncOptions(mode=Mode.MIRROR, scope_domains=(scope,))
    with pytest.raises(ConfigError) as got:
        check_scope(options, SYS, {GO})
    assert said in str(got.value) and str(got.value).endswith("(nothing done)")


def test_every_wrong_scope_domain_is_named_at_once_and_right_ones_pass() -> None:
    check_scope(SyncOptions(mode=Mode.MIRROR, scope_domains=(GO, SYS, "GO.example.COM")), SYS, {GO})
    options = SyncOptions(mode=Mode.MIRROR, scope_domains=(GO, "go.exmaple.com", "lnk.tset"))
    with pytest.raises(ConfigError, match=r"go\.exmaple\.com: .*; --domain lnk\.tset: .*lnk\.test"):
        check_scope(options, SYS, {GO})


def test_a_scope_may_name_the_system_domain_before_it_is_known() -> None:
    """No link is on the service's own domain yet (its name is not known): an entry
    that is near no registered domain may be it, and holds nothing to delete; one near a
    registered domain is still refused as its misspelling."""
    check_scope(SyncOptions(mode=Mode.MIRROR, scope_domains=("lnk.test",)), "", {GO})
    near = SyncOptions(mode=Mode.MIRROR, scope_domains=("go.exmaple.com",))
    with pytest.raises(ConfigError, match=r"did you mean go\.example\.com"):
        check_scope(near, "", {GO})


def test_an_owner_tag_nobody_carries_is_a_warning_with_the_nearest_tag() -> None:
    options = SyncOptions(mode=Mode.MIRROR, owner_tag="owner:markting")
    desired = [row("a", "https://example.com/a", 2)]
    found = owner_tag_unused(options, False, desired, ["owner:marketing", "sale"])
    assert found is not None
    assert (found.constant, found.severity) == ("OWNER_TAG_UNUSED", Severity.WARNING)
    assert "did you mean owner:marketing?" in found.message
    assert owner_tag_unused(options, True, desired) is None  # a link carries it
    assert owner_tag_unused(options, None, desired) is None  # not counted
    tagged = LinkSpec(url="https://e.com", slug="t", tags=("owner:markting",))
    assert owner_tag_unused(options, False, [tagged]) is None  # a row carries it
    upsert = SyncOptions(owner_tag="owner:markting")
    assert owner_tag_unused(upsert, False, desired) is None  # no scope, no warning


def test_the_problems_that_refuse_a_mirror() -> None:
    where = Provenance("links/web.yaml")
    error = Problem("INVALID_FIELD", "links: is not a list", where)
    empty = Problem("EMPTY_SOURCE", "no YAML document", where, None, Severity.WARNING)
    other = Problem("UNKNOWN_COLUMN", "key ignored", where, None, Severity.WARNING)
    assert undeclared([other, error, empty]) == (error, empty)
    assert mirror_refusal([other]) is None
    reason = mirror_refusal([error, empty])
    assert reason is not None
    assert reason.startswith(
        "mirror refused: links/web.yaml: INVALID_FIELD: links: is not a list (and 1 more "
        "file-level problems); a mirror deletes only what its sources declare"
    )


def test_the_fetch_learns_whether_the_owner_tag_is_carried() -> None:
    box = Sandbox()

    async def go() -> list[tuple[bool | None, int]]:
        async with box.client() as client:
            await client.create_link({"url": "https://example.com/x", "slug": "x", "tags": ["own"]})
            out = []
            for options in (
                SyncOptions(mode=Mode.MIRROR, scope_domains=(SYS,), owner_tag="own"),
                SyncOptions(mode=Mode.MIRROR, scope_domains=(SYS,), owner_tag="owm"),
                SyncOptions(mode=Mode.MIRROR, owner_tag="owm"),
                SyncOptions(owner_tag="owm"),
            ):
                options = replace(options, system_domain=SYS)
                state = await fetch_remote(client, [], options)
                out.append((state.owner_tagged, state.requests))
            return out

    assert asyncio.run(go()) == [
        (True, 3),  # organization, domains, lnk.test listed: x carries it
        (False, 4),  # one more request: one link of the tag's listing
        (False, 3),  # the tag's listing is the scope: it is empty
        (None, 2),  # no mirror: not asked
    ]
