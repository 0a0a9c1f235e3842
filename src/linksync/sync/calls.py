"""The requests of one row, and how a row meets a link another writer made meanwhile (a
409 on create, or a URL found by the re-check of a create without slug).

A create with the row's stable slug (``linksync.sync.slugs``) that meets a 409 reads
the link: the same URL is the row's own link made by another run (adopted: unchanged,
or updated when other fields differ); another URL moves the row to its next candidate,
skipping slugs other rows of the plan use, until one is created or adopted or the
candidates run out (SLUG_EXISTS on the row).

Each call is made inside a ``call_scope`` labelled with the row (action, domain, slug,
source, sheet, row): the journal reads those labels off the call events, and the row's
result reads its call's status, requestId and attempts off the scope.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from dataclasses import replace
from typing import Any, TypeVar

import msgspec

from linksync.api import CallEvent, LinkClient, call_scope
from linksync.errors import SlugExists
from linksync.model import Action, LinkKey, RemoteLink, RowResult, Status
from linksync.model.results import CallFacts
from linksync.sync.compare import compare
from linksync.sync.options import Mode, SyncOptions
from linksync.sync.ownership import OWNED_BY_OTHER, other_owners
from linksync.sync.plan import Change
from linksync.sync.results import ok_result
from linksync.sync.slugs import MAX_CANDIDATES, candidate_number, first_free, identity_domain

T = TypeVar("T")


def row_labels(ch: Change) -> dict[str, Any]:
    """What a row's call events say they are for (the journal's ``request`` fields)."""
    prov = ch.provenance
    return {
        "action": ch.action.value,
        "domain": ch.domain,
        "slug": ch.slug,
        "source": prov.source if prov else None,
        "sheet": prov.sheet if prov else None,
        "row": prov.row if prov else None,
    }


class RowCalls:
    """The client calls of rows, each labelled with its row."""

    def __init__(self, client: LinkClient) -> None:
        self.client = client

    async def call(
        self, ch: Change, fn: Callable[..., Awaitable[T]], *args: Any, **kw: Any
    ) -> tuple[T, CallEvent]:
        """``fn(*args, **kw)`` for row ``ch``: its value and its call event (failures
        raise ``ApiError``, which carries the same facts)."""
        with call_scope(**row_labels(ch)) as scope:
            out = await fn(*args, **kw)
        return out, scope.last

    async def recheck(self, ch: Change, options: SyncOptions) -> RowResult | None:
        """A create without slug, when another writer may be active: look the URL up
        right before sending. A link made meanwhile is adopted (updated when it differs)
        instead of created a second time; several are AMBIGUOUS_MATCH."""
        assert ch.spec is not None
        url = str(ch.payload.get("url") or "")
        domain = ch.domain.lower()
        with call_scope(**row_labels(ch)):
            links = await self.client.list_links(search=url, domain=ch.domain or None)
            if domain:
                found = [ln for ln in links if ln.url == url and ln.domain.lower() == domain]
            else:
                # The row goes to the service's own domain, which the plan could not
                # name (an empty workspace): any link with this URL not on a custom domain.
                custom = {d.domain.lower() for d in await self.client.list_domains()}
                found = [ln for ln in links if ln.url == url and ln.domain.lower() not in custom]
        if not found:
            return None
        if len(found) > 1:
            slugs = ", ".join(sorted(link.slug for link in found))
            return RowResult.from_change(
                ch,
                Status.FAILED,
                constant="AMBIGUOUS_MATCH",
                message=f"another writer created links with this URL meanwhile: {slugs}",
            )
        note = "a link with this URL was created by another writer meanwhile"
        return await self.converge(ch, found[0], 1, note, options, status=200)

    async def adopt(self, ch: Change, spent: int, options: SyncOptions) -> RowResult:
        """409 on create: someone created the slug meanwhile. Read it and update it."""
        assert ch.slug is not None and ch.spec is not None
        link, event = await self.call(ch, self.client.get_link, ch.slug, domain=ch.domain)
        note = "the slug was created by another writer meanwhile"
        return await self.converge(
            ch, link, spent + event.attempts, note, options,
            status=event.status, request_id=event.request_id,
        )  # fmt: skip

    async def adopt_stable(
        self, ch: Change, spent: int, options: SyncOptions, planned: Collection[LinkKey]
    ) -> RowResult:
        """409 on the create of a row's stable slug: adopt the link when it has the
        row's URL (another run made it), else create with the next candidate (see the
        module docstring). ``planned``: the links the other rows of the plan name."""
        assert ch.slug is not None and ch.spec is not None
        url = str(ch.payload.get("url") or "").strip()
        domain = ch.domain
        ident = identity_domain(domain, options.system_domain)
        slug, moved = ch.slug, False
        while True:
            link, event = await self.call(ch, self.client.get_link, slug, domain=ch.domain)
            spent += event.attempts
            if link.url.strip() == url:
                note = f"the link {slug} with this URL was created by another run meanwhile"
                return await self.converge(
                    ch, link, spent, note, options,
                    status=event.status, request_id=event.request_id,
                )  # fmt: skip
            number = candidate_number(ident, url, slug)
            nxt = first_free(
                ident,
                url,
                lambda s: LinkKey.of(domain, s) in planned,
                start=(number if number is not None else MAX_CANDIDATES) + 1,
            )
            if nxt is None:
                return RowResult.from_change(
                    ch,
                    Status.FAILED,
                    constant="SLUG_EXISTS",
                    message=f"no stable slug is free for this row: {slug} and the "
                    f"candidates before it are taken by links to other URLs (or reserved); "
                    "give the row a slug",
                    call=CallFacts(409, attempts=spent),
                )
            slug, moved = nxt[1], True
            ch = msgspec.structs.replace(ch, slug=slug, payload={**ch.payload, "slug": slug})
            try:
                _, event = await self.call(ch, self.client.create_link, dict(ch.payload))
            except SlugExists as exc:
                spent += exc.attempts
                continue
            done = ok_result(ch, event, attempts=spent + event.attempts)
            if moved:
                why = "the stable slug planned is taken by a link to another URL"
                done = done.saying(f"{why}; created with the next candidate, {slug}")
            return done

    async def converge(
        self,
        ch: Change,
        link: RemoteLink,
        spent: int,
        note: str,
        options: SyncOptions,
        *,
        status: int | None,
        request_id: str | None = None,
    ) -> RowResult:
        """Make ``link`` (made by another writer) match the row: unchanged, updated, or
        REPLACE_REQUIRED when only a new expiry would do."""
        assert ch.spec is not None
        cmp = compare(ch.spec, link, options)
        if options.mode is Mode.CREATE_ONLY and not cmp.same:
            # As the plan does with a link that exists and differs: left as it is.
            return RowResult.from_change(
                ch, Status.SKIPPED, action=Action.SKIP, link=link,
                call=CallFacts(status, request_id, spent),
                message=f"{note}; it differs, and create-only mode does not update it",
            )  # fmt: skip
        owners = other_owners(link.tags, options)
        blocked = None
        if cmp.needs_replace:
            blocked = ("REPLACE_REQUIRED", "with a different expiry (PATCH cannot set expiresAt)")
        elif owners and not cmp.same and not options.allow_takeover:
            why = f"marked by another owner ({', '.join(owners)}); --allow-takeover takes it"
            blocked = (OWNED_BY_OTHER, why)
        if blocked is not None:
            return RowResult.from_change(
                ch,
                Status.FAILED,
                action=Action.UPDATE,
                link=link,
                constant=blocked[0],
                message=f"{note}, {blocked[1]}",
                call=CallFacts(409, attempts=spent),
            )
        if cmp.same:
            done = RowResult.from_change(
                ch, Status.OK, action=Action.UNCHANGED, link=link,
                call=CallFacts(status, request_id, spent),
            )  # fmt: skip
            return replace(done.saying(f"{note}; it already matches"), changed_fields=())
        _, event = await self.call(
            ch, self.client.update_link, link.slug, dict(cmp.patch), domain=ch.domain
        )
        done = ok_result(ch, event, action=Action.UPDATE, attempts=spent + event.attempts)
        fields = tuple(f.field for f in cmp.fields)
        return replace(done.saying(f"{note}; updated it"), changed_fields=fields)
