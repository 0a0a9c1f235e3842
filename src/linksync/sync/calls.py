"""The requests of one row: each journaled and, for writes, counted as it completes;
and how a row meets a link another writer made meanwhile (a 409 on create, or a URL
found by the re-check of a create without slug)."""

from __future__ import annotations

from typing import Any

from linksync.api.types import CallMeta
from linksync.errors import ApiError
from linksync.model import Action, RemoteLink, RowResult, Status
from linksync.outcome import RemoteWrites
from linksync.sync.diff import compare
from linksync.sync.journal import Journal
from linksync.sync.options import SyncOptions
from linksync.sync.ownership import OWNED_BY_OTHER, other_owners
from linksync.sync.plan import Change
from linksync.sync.remote import LinkClient
from linksync.sync.results import ok_result, row_result, with_changes


def outcome_unknown(exc: ApiError) -> bool:
    """A write that may have taken effect though it failed: sent without an answer, or
    answered by a gateway error after the request reached the service."""
    return bool(getattr(exc, "sent", False)) or exc.status in (500, 502, 504)


class RowCalls:
    """The client calls of one row, each journaled (and, for writes, counted) as it
    completes."""

    def __init__(self, client: LinkClient, journal: Journal | None, writes: RemoteWrites) -> None:
        self.client = client
        self.journal = journal
        self.writes = writes

    def log(self, ch: Change, op: str, meta: Any, exc: ApiError | None, link: Any) -> None:
        if self.journal is None:
            return
        prov = ch.provenance
        self.journal.write(
            "request",
            op=op,
            action=ch.action.value,
            domain=ch.domain,
            slug=getattr(link, "slug", None) or ch.slug,
            source=prov.source if prov else None,
            sheet=prov.sheet if prov else None,
            row=prov.row if prov else None,
            status=exc.status if exc is not None else meta.status,
            constant=exc.constant if exc is not None else None,
            request_id=exc.request_id if exc is not None else meta.request_id,
            attempts=exc.attempts if exc is not None else meta.attempts,
            short_url=getattr(link, "short_url", None),
        )

    async def call(self, ch: Change, op: str, fn: Any, *args: Any, **kw: Any) -> tuple[Any, Any]:
        meta = CallMeta()
        try:
            out = await fn(*args, meta=meta, **kw)
        except ApiError as exc:
            if outcome_unknown(exc):
                self.writes.record(op, answered=False)
            self.log(ch, op, meta, exc, None)
            raise
        self.writes.record(op)
        self.log(ch, op, meta, None, out)
        return out, meta

    async def recheck(self, ch: Change, options: SyncOptions) -> RowResult | None:
        """A create without slug, when another writer may be active: look the URL up
        right before sending. A link made meanwhile is adopted (updated when it differs)
        instead of created a second time; several are AMBIGUOUS_MATCH."""
        assert ch.spec is not None
        url = str(ch.payload.get("url") or "")
        domain = ch.domain.lower()
        links = await self.client.list_links(search=url, domain=ch.domain or None)
        if domain:
            found = [ln for ln in links if ln.url == url and ln.domain.lower() == domain]
        else:
            # The row goes to the service's own domain, which the plan could not name
            # (an empty workspace): any link with this URL not on a custom domain.
            custom = {d.domain.lower() for d in await self.client.list_domains()}
            found = [ln for ln in links if ln.url == url and ln.domain.lower() not in custom]
        if not found:
            return None
        if len(found) > 1:
            slugs = ", ".join(sorted(link.slug for link in found))
            return row_result(
                ch,
                Status.FAILED,
                constant="AMBIGUOUS_MATCH",
                message=f"another writer created links with this URL meanwhile: {slugs}",
            )
        note = "a link with this URL was created by another writer meanwhile"
        return await self.converge(ch, found[0], 1, note, options)

    async def adopt(self, ch: Change, spent: int, options: SyncOptions) -> RowResult:
        """409 on create: someone created the slug meanwhile. Read it and update it."""
        assert ch.slug is not None and ch.spec is not None
        link, meta = await self.call(
            ch, "GET /links/:slug", self.client.get_link, ch.slug, domain=ch.domain
        )
        note = "the slug was created by another writer meanwhile"
        return await self.converge(ch, link, spent + meta.attempts, note, options, meta=meta)

    async def converge(
        self,
        ch: Change,
        link: RemoteLink,
        spent: int,
        note: str,
        options: SyncOptions,
        *,
        meta: Any = None,
    ) -> RowResult:
        """Make ``link`` (made by another writer) match the row: unchanged, updated, or
        REPLACE_REQUIRED when only a new expiry would do."""
        assert ch.spec is not None
        meta = meta if meta is not None else CallMeta(status=200)
        cmp = compare(ch.spec, link, options)
        owners = other_owners(link.tags, options)
        blocked = None
        if cmp.needs_replace:
            blocked = ("REPLACE_REQUIRED", "with a different expiry (PATCH cannot set expiresAt)")
        elif owners and not cmp.same and not options.allow_takeover:
            why = f"marked by another owner ({', '.join(owners)}); --allow-takeover takes it"
            blocked = (OWNED_BY_OTHER, why)
        if blocked is not None:
            return row_result(
                ch,
                Status.FAILED,
                action=Action.UPDATE,
                link=link,
                constant=blocked[0],
                message=f"{note}, {blocked[1]}",
                http_status=409,
                attempts=spent,
            )
        fields = tuple(f.field for f in cmp.fields)
        if cmp.same:
            done = ok_result(ch, link, meta, action=Action.UNCHANGED, attempts=spent)
            return with_changes(done, changed_fields=(), message=f"{note}; it already matches")
        updated, umeta = await self.call(
            ch,
            "PATCH /links",
            self.client.update_link,
            link.slug,
            dict(cmp.patch),
            domain=ch.domain,
        )
        done = ok_result(ch, updated, umeta, action=Action.UPDATE, attempts=spent + umeta.attempts)
        return with_changes(done, changed_fields=fields, message=f"{note}; updated it")
