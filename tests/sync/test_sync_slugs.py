"""Stable slugs of rows without one: the derivation, the plan, and the executor meeting a
link made meanwhile (adopted when it has the row's URL, passed over when it has another)."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from sync_helpers import Sandbox, remote_state, row

from linksync.model import Action, LinkSpec, RemoteLink, Status
from linksync.rules import RESERVED_SLUGS, check_slug
from linksync.sync import Plan, RemoteState, SyncOptions, diff
from linksync.sync.execute import execute
from linksync.sync.remote import fetch_remote
from linksync.sync.slugs import (
    MAX_CANDIDATES,
    STABLE_SLUG_LENGTH,
    Slugless,
    candidate_number,
    first_free,
    identity_domain,
    stable_candidates,
)

SYSTEM = "lnk.test"
URL = "https://example.com/spring?utm_source=mail"
SLUG_CHARS = re.compile(r"[a-z0-9]{7}")


def candidates(domain: str = "", url: str = URL, **kw: object) -> list[str]:
    return [slug for _, slug in stable_candidates(domain, url, **kw)]  # type: ignore[arg-type]


def test_derivation_is_deterministic_and_looks_generated() -> None:
    first = candidates()
    assert first == candidates()  # same input, same slugs: on any machine, in any run
    assert len(first) == MAX_CANDIDATES
    assert len(set(first)) == MAX_CANDIDATES  # each candidate is another slug
    assert STABLE_SLUG_LENGTH == 7
    for slug in first:
        assert SLUG_CHARS.fullmatch(slug), slug
        assert check_slug(slug) is None  # the service's own rule accepts it
    # Pinned: the derivation must never drift between versions (every stable slug of
    # every workspace would move, and the next run would create each link again).
    assert first[:3] == ["j4elxgw", "9of47vb", "h0shknc"]
    assert [n for n, _ in stable_candidates("", URL)] == list(range(MAX_CANDIDATES))


def test_identity_is_domain_and_url_as_the_matcher_compares() -> None:
    assert candidates(url=f"  {URL}\t") == candidates(url=URL)  # edges stripped
    assert candidates("Go.Example.COM") == candidates("go.example.com")  # domain folded
    assert candidates(url=URL + "&x=1") != candidates(url=URL)
    assert candidates("go.example.com") != candidates("")
    assert candidates(url=URL.replace("spring", "Spring")) != candidates()  # path case kept
    # The service's own domain is "" whether its name is known or not.
    assert identity_domain("LNK.test", SYSTEM) == ""
    assert identity_domain("", None) == ""
    assert identity_domain("go.example.com", SYSTEM) == "go.example.com"


def test_candidate_sequence_skips_reserved_words_and_taken_slugs() -> None:
    all_of_them = candidates()
    reserved = frozenset({all_of_them[0], all_of_them[2]})
    assert candidates(reserved=reserved) == [all_of_them[1], *all_of_them[3:]]
    assert first_free("", URL, lambda s: False, reserved=reserved) == (1, all_of_them[1])
    taken = {all_of_them[1], all_of_them[3]}
    assert first_free("", URL, taken.__contains__, reserved=reserved) == (4, all_of_them[4])
    assert first_free("", URL, lambda s: True) is None
    assert first_free("", URL, lambda s: False, start=5) == (5, all_of_them[5])
    assert candidate_number("", URL, all_of_them[6].upper()) == 6
    assert candidate_number("", URL, "spring") is None
    assert not set(all_of_them) & RESERVED_SLUGS


def _state(*links: RemoteLink) -> RemoteState:
    return remote_state(SYSTEM, links)


def _link(slug: str, url: str) -> RemoteLink:
    return RemoteLink(domain=SYSTEM, slug=slug, url=url, short_url=f"https://{SYSTEM}/{slug}")


def test_plan_creates_with_the_first_free_candidate() -> None:
    first, second, third = candidates()[:3]
    desired = [
        row(None, URL, 2),
        row(None, "https://example.com/other", 3),
        row(second, "https://example.com/named", 4),  # a later row names candidate 1
    ]
    plan = diff(desired, _state(), SyncOptions())
    create = plan.changes[0]
    assert (create.action, create.slug, create.payload["slug"]) == (Action.CREATE, first, first)
    assert plan.changes[1].slug == candidates(url="https://example.com/other")[0]
    # Candidate 0 held by a link to another URL, candidate 1 named by a row: candidate 2.
    taken = diff(desired, _state(_link(first, "https://example.com/else")), SyncOptions())
    assert taken.changes[0].slug == third
    # Round trip: a saved plan sends exactly the slug it showed.
    again = Plan.from_json(taken.to_json())
    assert again.changes[0].payload["slug"] == third
    assert again.options.slugless is Slugless.STABLE


def test_matching_by_url_comes_first_and_random_mode_sends_no_slug() -> None:
    existing = _link("theirs", URL)
    plan = diff([row(None, URL, 2)], _state(existing), SyncOptions())
    assert (plan.changes[0].action, plan.changes[0].slug) == (Action.UNCHANGED, "theirs")
    random = diff([row(None, URL, 2)], _state(), SyncOptions(slugless="random"))
    create = random.changes[0]
    assert (create.action, create.slug) == (Action.CREATE, None)
    assert "slug" not in create.payload
    with pytest.raises(Exception, match="slugless"):
        SyncOptions(slugless="sometimes")


def test_a_row_whose_candidates_are_all_taken_is_an_error() -> None:
    others = [_link(s, f"https://example.com/o{i}") for i, s in enumerate(candidates())]
    plan = diff([row(None, URL, 2)], _state(*others), SyncOptions())
    ch = plan.changes[0]
    assert ch.action is Action.INVALID
    assert ch.error is not None and ch.error.constant == "SLUG_EXISTS"
    assert "give the row a slug" in ch.error.message


async def _plan(sb: Sandbox, desired: list[LinkSpec]) -> Plan:
    async with sb.client() as client:
        remote = await fetch_remote(client, desired, SyncOptions(system_domain=SYSTEM))
    return diff(desired, remote, SyncOptions())


async def _links(sb: Sandbox) -> dict[str, str]:
    async with sb.client() as client:
        return {link.slug: link.url for link in await client.list_links()}


async def test_another_run_made_the_link_meanwhile_it_is_adopted(sandbox: Sandbox) -> None:
    desired = [row(None, URL, 2, description="Spring")]
    plan = await _plan(sandbox, desired)
    stable = plan.changes[0].slug
    assert stable == candidates()[0]
    async with sandbox.client() as client:  # another machine's run, a moment earlier
        await client.create_link({"url": URL, "slug": stable, "description": "Spring"})
        results = await execute(plan, client)
    (result,) = results.rows
    assert (result.action, result.status, result.slug) == (Action.UNCHANGED, Status.OK, stable)
    assert "created by another run meanwhile" in (result.message or "")
    assert await _links(sandbox) == {stable: URL}


async def test_adopted_link_that_differs_is_updated(sandbox: Sandbox) -> None:
    plan = await _plan(sandbox, [row(None, URL, 2, description="New")])
    stable = plan.changes[0].slug
    async with sandbox.client() as client:
        await client.create_link({"url": URL, "slug": stable, "description": "Old"})
        results = await execute(plan, client)
        (result,) = results.rows
        assert (result.action, result.status) == (Action.UPDATE, Status.OK)
        assert result.changed_fields == ("description",)
        assert (await client.get_link(stable)).description == "New"


async def test_slug_taken_by_another_url_moves_to_the_next_candidate(sandbox: Sandbox) -> None:
    plan = await _plan(sandbox, [row(None, URL, 2)])
    first, second = candidates()[:2]
    async with sandbox.client() as client:
        await client.create_link({"url": "https://example.com/unrelated", "slug": first})
        results = await execute(plan, client)
    (result,) = results.rows
    assert (result.action, result.status, result.slug) == (Action.CREATE, Status.OK, second)
    assert f"created with the next candidate, {second}" in (result.message or "")
    assert await _links(sandbox) == {first: "https://example.com/unrelated", second: URL}
    # The next run (any machine) matches the link by URL: nothing more to do.
    again = await _plan(sandbox, [row(None, URL, 2)])
    assert again.changes[0].action is Action.UNCHANGED and again.changes[0].slug == second


async def test_every_candidate_taken_meanwhile_fails_the_row(sandbox: Sandbox) -> None:
    plan = await _plan(sandbox, [row(None, URL, 2)])
    async with sandbox.client() as client:
        for i, slug in enumerate(candidates()):
            await client.create_link({"url": f"https://example.com/o{i}", "slug": slug})
        results = await execute(plan, client)
    (result,) = results.rows
    assert (result.status, result.error_constant) == (Status.FAILED, "SLUG_EXISTS")
    assert URL not in (await _links(sandbox)).values()
    assert results.exit_code == 1


async def test_a_create_whose_answer_was_lost_says_how_it_was_confirmed() -> None:
    """The sandbox does the create, then answers 500: the client reads the link back."""
    lossy = Sandbox(fail_500_after_write=1.0)
    plan = await _plan(lossy, [row(None, URL, 2)])
    async with lossy.client() as client:
        results = await execute(plan, client)
    (result,) = results.rows
    stable = candidates()[0]
    assert (result.action, result.status, result.slug) == (Action.CREATE, Status.OK, stable)
    assert "answer to the create was lost" in (result.message or "")
    assert "another run at the same moment" in (result.message or "")
    assert await _links(lossy) == {candidates()[0]: URL}


async def test_create_only_leaves_an_adopted_link_that_differs(sandbox: Sandbox) -> None:
    opts = SyncOptions(mode="create-only")
    desired = [row(None, URL, 2, description="New")]
    async with sandbox.client() as client:
        remote = await fetch_remote(client, desired, replace(opts, system_domain=SYSTEM))
        plan = diff(desired, remote, opts)
        stable = plan.changes[0].slug
        await client.create_link({"url": URL, "slug": stable, "description": "Old"})
        results = await execute(plan, client)
        (result,) = results.rows
        assert (result.action, result.status) == (Action.SKIP, Status.SKIPPED)
        assert "create-only mode does not update it" in (result.message or "")
        assert (await client.get_link(stable)).description == "Old"
