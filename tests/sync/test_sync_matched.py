"""Rows matched to their links as the list pages arrive: the plan a diff makes of them
is the very plan it makes row by row, on tricky sources too (duplicates after an
invalid row, a row without slug taking a link a later row names, slugs in capitals,
two domains, a pending one, mirror deletes, findings, notes), and the rows it takes
from the listing are quiet, not walked again."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from sync_helpers import Sandbox

from linksync.model import Action, LinkSpec, Problem, Provenance, RemoteLink, Severity
from linksync.sync import Mode, SyncOptions, diff
from linksync.sync.matched import Matched
from linksync.sync.plan import Plan
from linksync.sync.remote import fetch_remote
from linksync.sync.state import LinkIndex, RemoteState

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
    parked: bool = True,
) -> tuple[Plan, Plan, RemoteState]:
    """The plan of ``rows`` from the links the listing matched (their links left out
    of the index, ``parked``, until it is read otherwise), and the plan of the same
    links row by row (a copy of the state: it keeps no match, and its first read of
    the index enters every link left out); the index then holds what a listing that
    leaves nothing out holds, in the same order."""
    box = Sandbox()
    await fill(box)
    async with box.client() as client:
        skip = invalid if told else frozenset()
        remote = await fetch_remote(client, rows, options, skip=skip)
        # a takeover compares no row as the pages come: every link is entered
        whole = await fetch_remote(client, rows, replace(options, allow_takeover=True), skip=skip)
    assert remote.matched is not None and remote.matched.fits(rows, options)
    assert isinstance(remote.links, LinkIndex) and remote.links.parked is parked
    assert isinstance(whole.links, LinkIndex) and not whole.links.parked
    matched = diff(rows, remote, options, invalid=invalid, problems=problems)
    assert not remote.matched.fits(rows, options)  # the diff took the listing's matches
    # the diff entered only what it had to (a mirror counts every link in its scope)
    assert remote.links.parked is (parked and not options.deletes)
    by_row = diff(rows, replace(remote), options, invalid=invalid, problems=problems)
    assert not remote.links.parked
    assert list(remote.links.pairs()) == list(whole.links.pairs())
    assert matched.to_json() == by_row.to_json()
    assert list(matched.changes) == list(by_row.changes)
    assert matched.unmanaged == by_row.unmanaged
    assert matched.safety == by_row.safety
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
    # the row without slug reads its domain whole: no link is left out of the index
    plan, _, _ = await both_ways(rows, SyncOptions(), parked=False)
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
    plan, _, _ = await both_ways(rows, options, invalid=frozenset({0}), parked=False)
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


async def test_a_mirror_leaves_its_quiet_links_out_and_deletes_the_same() -> None:
    """No row without slug: the quiet rows' links stay out of the index while the diff
    names what no row claims; a failed row still keeps its link, and a row hidden in
    its workbook (a finding of its own) still refuses every delete."""
    fills = [row(f"fill-{i:03d}", url(f"fill-{i:03d}"), 10 + i) for i in range(130)]
    rows = [
        row("kept", "not a url", 2, domain=GO),
        row("a", url("a"), 3, description="A"),
        row("Promo", url("promo"), 4),
        row("b", url("b"), 5, description="B"),
        *fills,
        row("a", url("a"), 200, domain=GO, description="on go"),
    ]
    hidden = Problem("HIDDEN_ROW", "row 5 is hidden", rows[3].provenance, None)
    options = SyncOptions(mode=Mode.MIRROR, scope_domains=(SYS, GO))
    plan, _, _ = await both_ways(rows, options, invalid=frozenset({0}), problems=(hidden,))
    gone = sorted((c.action.value, c.domain, c.slug) for c in plan.changes if c.spec is None)
    assert gone == [("invalid", SYS, "gone")]  # refused: a hidden row may name it
    assert [c.action for c in plan.changes if c.index == 3] == [Action.INVALID]
    assert len(plan.changes.quiet) == 2 + 130 + 1


async def test_a_mirror_without_findings_deletes_what_no_quiet_row_claims() -> None:
    rows = [
        row("a", url("a"), 3, description="A"),
        row("Promo", url("promo"), 4),
        *(row(f"fill-{i:03d}", url(f"fill-{i:03d}"), 10 + i) for i in range(0, 130, 2)),
    ]
    options = SyncOptions(mode=Mode.MIRROR, scope_domains=(SYS,), max_deletes=1000)
    plan, _, _ = await both_ways(rows, options)
    gone = {c.slug for c in plan.changes if c.action is Action.DELETE}
    assert gone == {"b", "gone", *(f"fill-{i:03d}" for i in range(1, 130, 2))}
    assert plan.safety.existing == 134 and len(plan.changes.quiet) == 2 + 65


async def test_an_owner_tag_mirror_enters_every_link() -> None:
    """The owner tag's listing and its look-up read every link: none is left out."""
    rows = [row("a", url("a"), 3, description="A"), row("Promo", url("promo"), 4)]
    options = SyncOptions(mode=Mode.MIRROR, owner_tag="team")
    await both_ways(rows, options, parked=False)


async def test_a_quiet_rows_link_is_found_by_a_reader_after_the_diff() -> None:
    rows = [row("a", url("a"), 2, description="A"), row("promo", url("promo"), 3)]
    options = SyncOptions()
    box = Sandbox()
    await fill(box)
    async with box.client() as client:
        remote = await fetch_remote(client, rows, options)
    plan = diff(rows, remote, options)
    assert list(plan.changes.quiet.at) == [0, 1]
    assert isinstance(remote.links, LinkIndex) and remote.links.parked
    promo = remote.get(SYS, "PROMO")  # the first read enters the links left out
    assert promo is not None and promo.slug == "Promo" and not remote.links.parked
    assert len(remote.links) == 134 and remote.on_domain(SYS)[:3] == [
        remote.get(SYS, s) for s in ("a", "b", "Promo")
    ]


class Shifting:
    """A client whose listing shifts while it is read: page 2 brings the first link of
    page 1 again, its description changed meanwhile."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.concurrency = client.concurrency

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)

    async def list_links_page(self, page: int = 1, limit: int = 20, **kw: Any) -> Any:
        got = await self.client.list_links_page(page=page, limit=limit, **kw)
        if page == 2:
            first = (await self.client.list_links_page(page=1, limit=limit, **kw)).links[0]
            again = replace(first, description="changed")
            return replace(got, links=(again, *got.links))
        return got


async def test_a_link_met_twice_by_a_shifting_listing_plans_as_row_by_row() -> None:
    rows = [row("a", url("a"), 2, description="A"), row("b", url("b"), 3, description="B")]
    box = Sandbox()
    await fill(box)
    async with box.client() as client:
        remote = await fetch_remote(Shifting(client), rows, SyncOptions())
    assert isinstance(remote.links, LinkIndex) and not remote.links.parked  # all entered
    by_row = diff(rows, replace(remote), SyncOptions())
    matched = diff(rows, remote, SyncOptions())
    assert matched.to_json() == by_row.to_json()
    a = next(c for c in matched.changes if c.slug == "a")
    assert a.action is Action.UPDATE and a.remote is not None  # the link held: page 2's
    assert a.remote.description == "changed"


@pytest.mark.parametrize("told", [True, False], ids=["fetch-skips-invalid", "fetch-reads-all"])
async def test_rows_in_the_listings_order_plan_as_row_by_row(told: bool) -> None:
    """Rows in the order the listing brings their links (each link is looked for in the
    row after the row of the link before): a failed row, a row of another domain and a
    slug two rows name in between are met as row by row."""
    rows = [
        row("a", url("a"), 2, description="A"),
        row("b", "not a url", 3),  # failed: the fetch leaves it out (told)
        row("Promo", url("promo"), 4),
        row("gone", url("gone"), 5, domain=GO),  # the next link's slug, on another domain
        *(row(f"fill-{i:03d}", url(f"fill-{i:03d}"), 10 + i) for i in range(130)),
        row("a", url("a"), 200, domain=GO, description="on go"),
        row("kept", url("kept"), 201, domain=GO),
    ]
    plan, _, _ = await both_ways(rows, SyncOptions(), invalid=frozenset({1}), told=told)
    assert actions(plan)[:4] == [
        (0, "unchanged", "a", ()),
        (1, "invalid", "b", ()),
        (2, "unchanged", "Promo", ()),
        (3, "create", "gone", ()),
    ]
    assert list(plan.changes.quiet.at) == [0, 2, *range(4, 136)]
    twice = [row("Promo", url("promo"), 1), *rows]  # a slug named by two rows
    plan, _, _ = await both_ways(twice, SyncOptions(), invalid=frozenset({2}), told=told)
    assert actions(plan)[:4] == [
        (0, "unchanged", "Promo", ()),
        (1, "unchanged", "a", ()),
        (2, "invalid", "b", ()),
        (3, "invalid", "Promo", ("DUPLICATE_IN_SOURCE",)),
    ]


async def test_rows_in_the_reverse_of_the_listings_order_plan_as_row_by_row() -> None:
    """A listing of the newest first: each link is looked for in the row before."""
    rows = [
        row("a", url("a"), 2, description="A"),
        row("b", "not a url", 3),
        row("Promo", url("promo"), 4),
        row("gone", url("gone"), 5, domain=GO),
        *(row(f"fill-{i:03d}", url(f"fill-{i:03d}"), 10 + i) for i in range(130)),
    ][::-1]
    invalid = frozenset({len(rows) - 2})
    plan, _, _ = await both_ways(rows, SyncOptions(), invalid=invalid, told=False)
    assert actions(plan)[-4:] == [
        (130, "create", "gone", ()),
        (131, "unchanged", "Promo", ()),
        (132, "invalid", "b", ()),
        (133, "unchanged", "a", ()),
    ]
    assert list(plan.changes.quiet.at) == [*range(130), 131, 133]


#: A file sorted otherwise than the listing (by campaign, by slug): what each case
#: mixes into the system domain's rows, as (slug, url, fields of the row)
MIXED: dict[str, list[tuple[str | None, str, dict[str, Any]]]] = {
    "nothing-more": [],
    "an-invalid-row-of-a-slug": [("a", "not a url", {"description": "A"})],
    "a-slug-two-rows-name": [("fill-007", url("fill-007"), {"description": None})],
    "a-second-domain": [
        ("a", url("a"), {"domain": GO, "description": "on go"}),
        ("kept", url("kept"), {"domain": GO, "description": None}),
    ],
    "a-row-without-slug": [(None, url("gone"), {"description": None})],
    "a-slug-in-capitals": [("NEW", url("new"), {"description": None})],
    "a-row-without-a-description-cell": [("gone", url("gone"), {})],
}


def scrambled(case: str, seed: int) -> list[LinkSpec]:
    """The system domain's links as rows, each with its description cell (so every row
    manages the same fields, in the same columns), b's description changed, and the
    ``case``'s rows, in an order the listing does not have (rows 2, 3, ...)."""
    made: list[tuple[str | None, str, dict[str, Any]]] = [
        ("a", url("a"), {"description": "A"}),
        ("b", url("b"), {"description": "changed"}),
        ("promo", url("promo"), {"description": None}),
        *((f"fill-{i:03d}", url(f"fill-{i:03d}"), {"description": None}) for i in range(130)),
        *MIXED[case],
    ]
    if case != "a-row-without-a-description-cell":
        made.append(("gone", url("gone"), {"description": None}))
    random.Random(seed).shuffle(made)
    return [row(slug, link, n + 2, **fields) for n, (slug, link, fields) in enumerate(made)]


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("told", [True, False], ids=["fetch-skips-invalid", "fetch-reads-all"])
@pytest.mark.parametrize("case", list(MIXED))
async def test_rows_in_no_order_of_the_listing_plan_as_row_by_row(
    case: str, told: bool, seed: int
) -> None:
    """Each link's row is looked up by its slug: the plan is the one row by row, with
    an invalid row, a slug two rows name, a second domain, a row without slug, a slug
    in capitals or a row managing fewer fields among rows in no order."""
    rows = scrambled(case, seed)
    invalid = frozenset(i for i, spec in enumerate(rows) if spec.url == "not a url")
    slugless = case == "a-row-without-slug"
    plan, _, _ = await both_ways(
        rows, SyncOptions(), invalid=invalid, told=told, parked=not slugless
    )
    by_slug = {(c.domain, c.slug): c for c in plan.changes if c.spec is not None}
    assert by_slug[SYS, "b"].action is Action.UPDATE
    assert by_slug[SYS, "Promo"].action is Action.UNCHANGED
    fills = {i: spec.slug for i, spec in enumerate(rows) if (spec.slug or "").startswith("fill-")}
    again = {i for i, slug in fills.items() if slug in [rows[k].slug for k in range(i)]}
    assert set(fills) - set(plan.changes.quiet.at) == again  # the others taken as listed
    if invalid:  # the later row naming a is a duplicate, of a row that fails or not
        first = Action.INVALID if min(invalid) < by_slug[SYS, "a"].index else Action.UNCHANGED
        assert [c.action for c in plan.changes if c.slug == "a"] == [first, Action.INVALID]
    if case == "a-second-domain":
        assert by_slug[GO, "a"].action is Action.UNCHANGED


async def test_rows_in_no_order_with_findings_of_their_own_plan_as_row_by_row() -> None:
    """Among rows in no order of the listing, the rows with a finding of their own (a
    warning, a row of another sheet with the same row number) are not quiet; the
    others are."""
    rows = scrambled("nothing-more", 3)
    promo = next(i for i, spec in enumerate(rows) if spec.slug == "promo")
    fill = next(i for i, spec in enumerate(rows) if spec.slug == "fill-042")
    assert rows[promo].provenance is not None and rows[fill].provenance is not None
    elsewhere = replace(rows[fill].provenance, sheet="Other")  # same row, another sheet
    problems = (
        Problem("X_WARN", "a warning", rows[promo].provenance, "url", Severity.WARNING),
        Problem("X_WARN", "elsewhere", elsewhere, "url", Severity.WARNING),
    )
    plan, _, _ = await both_ways(rows, SyncOptions(), problems=problems)
    by_index = {c.index: c for c in plan.changes}
    assert by_index[promo].action is Action.UNCHANGED and by_index[promo].problems
    assert promo not in plan.changes.quiet.at and fill in plan.changes.quiet.at
    assert len(plan.changes.quiet) == len(rows) - 2  # but promo's and b's (changed)
