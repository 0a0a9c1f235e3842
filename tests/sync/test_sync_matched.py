"""Rows matched to their links as the list pages arrive: the plan a diff makes of them
is the very plan it makes row by row, on tricky sources too (duplicates after an
invalid row, a row without slug taking a link a later row names, slugs in capitals,
two domains, a pending one, mirror deletes, findings, notes), and the rows it takes
from the listing are quiet, not walked again."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from sync_helpers import Sandbox

from linksync.model import Action, LinkSpec, Problem, Provenance, RemoteLink, Severity
from linksync.sync import Mode, SyncOptions, diff
from linksync.sync.matched import Matched
from linksync.sync.plan import Plan
from linksync.sync.remote import fetch_remote
from linksync.sync.state import RemoteState

SYS = "lnk.test"
GO = "go.example.com"
COLUMNS = {"slug": "slug", "url": "url", "description": "description", "domain": "domain"}


def row(slug: str | None, url: str, n: int, **fields: Any) -> LinkSpec:
    """Row ``n`` of links.csv (columns slug, url, description, domain)."""
    managed = {"url", *fields} - {"domain"}
    prov = Provenance("links.csv", None, n, COLUMNS)
    return LinkSpec(url=url, slug=slug, managed=frozenset(managed), provenance=prov, **fields)


def url(slug: str) -> str:
    return f"https://example.com/{slug.lower()}"


#: links of the workspace: (domain or None for the system one, slug, description)
LINKS = [
    (None, "a", "A"),
    (None, "b", "B"),
    (None, "Promo", None),
    (None, "gone", None),
    (GO, "a", "on go"),
    (GO, "kept", None),
    ("old.example.com", "p", None),
    *((None, f"fill-{i:03d}", None) for i in range(130)),  # two pages of the system domain
]


async def fill(box: Sandbox) -> None:
    async with box.client() as client:
        made = await client.create_domain(GO)
        await client.verify_domain(made.id)
        await client.create_domain("old.example.com")  # pending: not active
        for domain, slug, description in LINKS:
            body: dict[str, Any] = {"url": url(slug), "slug": slug}
            if domain is not None:
                body["domain"] = domain
            if description is not None:
                body["description"] = description
            await client.create_link(body)


async def both_ways(
    rows: list[LinkSpec],
    options: SyncOptions,
    *,
    invalid: frozenset[int] = frozenset(),
    problems: tuple[Problem, ...] = (),
    told: bool = True,
) -> tuple[Plan, Plan, RemoteState]:
    """The plan of ``rows`` from the links the listing matched, and the plan of the
    same links row by row (a copy of the state: it keeps no match)."""
    box = Sandbox()
    await fill(box)
    async with box.client() as client:
        skip = invalid if told else frozenset()
        remote = await fetch_remote(client, rows, options, skip=skip)
    assert remote.matched is not None and remote.matched.fits(rows, options)
    by_row = diff(rows, replace(remote), options, invalid=invalid, problems=problems)
    matched = diff(rows, remote, options, invalid=invalid, problems=problems)
    assert not remote.matched.fits(rows, options)  # the diff took the listing's matches
    assert matched.to_json() == by_row.to_json()
    assert list(matched.changes) == list(by_row.changes)
    assert matched.unmanaged == by_row.unmanaged
    return matched, by_row, remote


def actions(plan: Plan) -> list[tuple[int, str, str | None, tuple[str, ...]]]:
    return [
        (c.index, c.action.value, c.slug, tuple(p.constant for p in c.problems))
        for c in plan.changes
        if c.spec is not None
    ]


@pytest.mark.parametrize("told", [True, False], ids=["fetch-skips-invalid", "fetch-reads-all"])
async def test_a_row_after_an_invalid_row_of_its_slug_is_a_duplicate(told: bool) -> None:
    rows = [
        row("a", "not a url", 2),
        row("a", url("a"), 3, description="A"),
        row("A", url("a"), 4, description="A"),
        row("b", url("b"), 5, description="B"),
    ]
    plan, _, _ = await both_ways(rows, SyncOptions(), invalid=frozenset({0}), told=told)
    assert actions(plan) == [
        (0, "invalid", "a", ()),
        (1, "invalid", "a", ("DUPLICATE_IN_SOURCE",)),
        (2, "invalid", "A", ("DUPLICATE_IN_SOURCE",)),
        (3, "unchanged", "b", ()),
    ]
    assert list(plan.changes.quiet.at) == [3]  # taken from the listing


async def test_a_row_without_slug_takes_the_link_a_later_row_names() -> None:
    rows = [
        row(None, url("b"), 2),
        row("b", url("b"), 3, description="B"),
        row("a", url("a"), 4, description="A"),
    ]
    plan, _, _ = await both_ways(rows, SyncOptions())
    assert actions(plan) == [
        (0, "unchanged", "b", ()),
        (1, "invalid", "b", ("DUPLICATE_IN_SOURCE",)),
        (2, "unchanged", "a", ()),
    ]
    assert list(plan.changes.quiet.at) == [2]  # a row without slug goes the full path


async def test_slugs_in_capitals_two_domains_and_a_pending_one() -> None:
    rows = [
        row("PROMO", url("promo"), 2),
        row("promo", url("promo"), 3),
        row("a", url("a"), 4, domain="GO.example.com", description="on go"),
        row("A", url("a"), 5, domain=GO, description="on go"),
        row("a", url("a"), 6, description="A"),
        row("p", url("p"), 7, domain="old.example.com"),
        row("new", url("new"), 8),
    ]
    plan, _, _ = await both_ways(rows, SyncOptions())
    assert actions(plan) == [
        (0, "unchanged", "Promo", ()),
        (1, "invalid", "promo", ("DUPLICATE_IN_SOURCE",)),
        (2, "unchanged", "a", ()),
        (3, "invalid", "A", ("DUPLICATE_IN_SOURCE",)),
        (4, "unchanged", "a", ()),
        (5, "invalid", "p", ("DOMAIN_NOT_ACTIVE",)),
        (6, "create", "new", ()),
    ]
    assert list(plan.changes.quiet.at) == [0, 2, 4]


async def test_a_mirror_deletes_what_no_row_claims_and_keeps_what_a_failed_row_names() -> None:
    fills = [row(f"fill-{i:03d}", url(f"fill-{i:03d}"), 10 + i) for i in range(130)]
    rows = [
        row("kept", "not a url", 2, domain=GO),
        row("a", url("a"), 3, description="A"),
        row(None, url("b"), 4),
        row("Promo", url("promo"), 5),
        *fills,
    ]
    options = SyncOptions(mode=Mode.MIRROR, scope_domains=(SYS, GO))
    plan, _, _ = await both_ways(rows, options, invalid=frozenset({0}))
    gone = sorted((c.action.value, c.domain, c.slug) for c in plan.changes if c.spec is None)
    assert gone == [("delete", GO, "a"), ("delete", SYS, "gone")]  # the failed row keeps its
    assert len(plan.changes.quiet) == 2 + 130


async def test_rows_with_a_finding_or_a_note_are_not_quiet() -> None:
    rows = [
        row("a", url("a"), 2, description="A"),
        row("b", url("b"), 3),  # its empty description cell leaves B as it is: a note
        row("Promo", url("promo"), 4),
    ]
    warning = Problem("X_WARN", "a warning", rows[0].provenance, "url", Severity.WARNING)
    plan, _, _ = await both_ways(rows, SyncOptions(), problems=(warning,))
    by_index = {c.index: c for c in plan.changes}
    assert by_index[0].action is Action.UNCHANGED and by_index[0].problems == (warning,)
    assert by_index[1].action is Action.UNCHANGED and by_index[1].notes
    assert list(plan.changes.quiet.at) == [2]


async def test_a_second_diff_of_the_same_state_plans_the_same() -> None:
    rows = [row("a", url("a"), 2, description="A"), row("b", url("b"), 3, description="B")]
    plan, _, remote = await both_ways(rows, SyncOptions())
    again = diff(rows, remote, SyncOptions())
    assert again.to_json() == plan.to_json()


def test_a_link_met_twice_leaves_its_row_to_the_diff() -> None:
    """A listing that shifts while it is read may bring a link twice, perhaps changed
    between the pages: its row is compared again by the diff, with the link held."""
    rows = [row("a", url("a"), 2), row("b", url("b"), 3)]
    options = SyncOptions()
    matched = Matched(rows, options, {SYS: {"a": 0, "b": 1}}, {None: SYS})
    matched.usable_on(SYS, {})
    first = [RemoteLink(SYS, "a", url("a")), RemoteLink(SYS, "b", url("b"))]
    matched.take(first)
    assert list(matched.marks) == [1, 1] and matched.links_at == first
    matched.take([RemoteLink(SYS, "a", url("a"))])  # page 2 brings a again
    assert list(matched.marks)[1] == 1 and matched.marks[0] != 1
