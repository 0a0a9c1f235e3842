"""``LinkServiceClient``: one async method per endpoint of the service interface.

When a call ends, its ``CallEvent`` (final HTTP status, requestId, number of attempts)
goes to the caller's ``call_scope`` and to every hook given to ``subscribe`` (see
``linksync.api.events``); failures raise :class:`~linksync.errors.ApiError` (of the
class the error table names) carrying the same facts.

Unknown outcomes. A request that was sent but never answered (read timeout, connection
dropped), or answered 500/502/504, may or may not have taken effect. Before re-sending:

- ``create_link`` with a slug reads ``GET /links/:slug``: when the link exists with the
  same URL the create is taken as done (the event says ``confirmed``); otherwise it is re-sent
  (a link with another URL then answers 409 SLUG_EXISTS, which is the truth).
- ``create_link`` without a slug searches the list for a link with exactly this URL (on
  this domain, when given) created no earlier than the first send minus
  ``RetryPolicy.created_tolerance``; the newest such link is taken as the one created.
  When none exists it is re-sent. When the service's records carry no ``createdAt`` the
  rule cannot tell a new link from an old one, so the call fails with TRANSPORT_ERROR
  instead of risking a duplicate.
- ``create_domain`` looks the host name up in the domain list.
- ``delete_link`` / ``delete_domain`` take a 404 on the re-send as done.
- Reads, PATCH (same fields again) and the AI tools are simply re-sent.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from functools import partial
from typing import Any, TypeVar
from urllib.parse import quote

import httpx

from linksync.api import parse as p
from linksync.api.base import Answer, BaseClient, CallState
from linksync.api.pages import fast_link, fast_link_page
from linksync.api.types import (
    Domain,
    Invitation,
    LinkPage,
    Member,
    OgSuggestion,
    Organization,
)
from linksync.errors import LinkNotFound, TransportError
from linksync.model import RemoteLink
from linksync.rules.timestamps import parse_iso

MAX_PAGE_SIZE = 100
T = TypeVar("T")


def asgi_transport(app: Any) -> httpx.AsyncBaseTransport:
    """A transport that calls an ASGI app in-process (the built-in sandbox, test fakes)."""
    return httpx.ASGITransport(app=app)


def _seg(value: str) -> str:
    return quote(value, safe="")


def _body(read: Callable[[Any], T]) -> Callable[[Answer], Awaitable[T]]:
    """The parse step of a call whose result is read from the answer's body alone."""

    async def parse(a: Answer) -> T:
        return read(a.body)

    return parse


async def _link_page(a: Answer, *, page: int, limit: int) -> LinkPage:
    """A list page, decoded from the answer's bytes in the service's own shape, else
    by the tolerant reader (``linksync.api.parse``: the same links either way)."""
    fast = a.decoded(partial(fast_link_page, page=page, limit=limit))
    if fast is not None:
        return fast
    body = p.decode_json(a.content) if a.content else a.body  # the fast decoder tried
    return p.parse_link_page(body, page=page, limit=limit)


async def _one_link(a: Answer) -> RemoteLink:
    """A link read: decoded from the answer's bytes in the service's own shape, else
    by the tolerant reader (the same record either way)."""
    fast = a.decoded(fast_link)
    return fast if fast is not None else p.parse_link(p.unwrap(a.body))


async def _nothing(_: Any) -> None:
    """The result of a delete (and of a 404 that settles its unknown outcome)."""
    return None


def _instant(value: str | None) -> float | None:
    """A record's timestamp as Unix time (a time without a zone is UTC), or None."""
    when = parse_iso(value.strip(), assume_utc=True) if value else None
    return when.timestamp() if when is not None else None


class LinkServiceClient(BaseClient):
    """Async client of the link service. Use as ``async with LinkServiceClient(...) as c``.

    ``transport`` plugs in ``asgi_transport(app)`` for the in-process sandbox; the key is
    sent only in the Authorization header and never appears in repr or errors.
    """

    # --- organization -------------------------------------------------------------------

    async def get_organization(self) -> Organization:
        return await self._call(
            "GET", "/api/v1/organizations/current", kind="GET /organizations/current",
            parse=_body(p.parse_organization),
        )  # fmt: skip

    async def list_members(self) -> tuple[Member, ...]:
        return await self._call(
            "GET", "/api/v1/organizations/members", kind="GET /organizations/members",
            parse=_body(p.parse_members),
        )  # fmt: skip

    async def invite_member(
        self,
        email: str,
        role: str,
    ) -> Invitation:
        return await self._call(
            "POST", "/api/v1/organizations/members/invite",
            kind="POST /organizations/members/invite",
            parse=_body(lambda body: p.parse_invitation(body, email=email, role=role)),
            body={"email": email, "role": role},
        )  # fmt: skip

    # --- domains ------------------------------------------------------------------------

    async def list_domains(self) -> tuple[Domain, ...]:
        return await self._call(
            "GET", "/api/v1/domains", kind="GET /domains", parse=_body(p.parse_domains)
        )

    async def find_domain(
        self, *, name: str | None = None, ident: str | None = None
    ) -> Domain | None:
        """The custom domain with this host name or this id, or None."""
        for d in await self.list_domains():
            if (name and d.domain.lower() == name.lower()) or (ident and d.id == ident):
                return d
        return None

    async def create_domain(
        self,
        domain: str,
        root_redirect_url: str | None = None,
        not_found_redirect_url: str | None = None,
    ) -> Domain:
        body: dict[str, Any] = {"domain": domain}
        if root_redirect_url is not None:
            body["rootRedirectUrl"] = root_redirect_url
        if not_found_redirect_url is not None:
            body["notFoundRedirectUrl"] = not_found_redirect_url

        async def parse(a: Answer) -> Domain:
            found = p.parse_domain_answer(a.body) or await self.find_domain(name=domain)
            if found is None:
                raise p.unexpected(f"domain {domain} was accepted but is not in the list")
            return found

        async def confirm(_: CallState) -> Domain | None:
            return await self.find_domain(name=domain)

        return await self._call(
            "POST", "/api/v1/domains", kind="POST /domains",
            parse=parse, body=body, confirm=confirm,
        )  # fmt: skip

    async def verify_domain(self, domain_id: str) -> Domain:
        async def parse(a: Answer) -> Domain:
            found = p.parse_domain_answer(a.body) or await self.find_domain(ident=domain_id)
            if found is None:
                raise p.unexpected(f"domain {domain_id} was verified but is not in the list")
            return found

        return await self._call(
            "POST", f"/api/v1/domains/{_seg(domain_id)}/verify", kind="POST /domains/:id/verify",
            parse=parse,
        )  # fmt: skip

    async def delete_domain(self, domain_id: str) -> None:
        return await self._call(
            "DELETE", f"/api/v1/domains/{_seg(domain_id)}", kind="DELETE /domains/:id",
            parse=_nothing, gone_ok=_nothing,
        )  # fmt: skip

    # --- links --------------------------------------------------------------------------

    async def _link_answer(self, a: Answer, slug: str | None, domain: str | None) -> RemoteLink:
        fast = a.decoded(fast_link)  # the service's own shape
        if fast is not None:
            return fast
        data = p.unwrap_record(a.body, "link")
        if isinstance(data, Mapping) and (data.get("slug") or data.get("shortUrl")):
            return p.parse_link(data)
        if slug:
            return await self.get_link(slug, domain)
        raise p.unexpected(f"HTTP {a.status} answer holds no link record", status=a.status)

    async def create_link(
        self,
        payload: Mapping[str, Any],
    ) -> RemoteLink:
        """Create one link. ``payload`` uses the wire names (``expiresAt``); None values
        are left out. See the module docstring for how an unknown outcome is settled."""
        body = {k: v for k, v in payload.items() if v is not None}  # JSON sends tuples as arrays
        url = str(body.get("url") or "")
        slug = str(body["slug"]) if body.get("slug") else None
        domain = str(body["domain"]) if body.get("domain") else None

        async def confirm(state: CallState) -> RemoteLink | None:
            if slug:
                try:
                    existing = await self.get_link(slug, domain)
                except LinkNotFound:
                    return None
                return existing if existing.url == url else None
            return await self._find_created(url, domain, state)

        return await self._call(
            "POST", "/api/v1/links", kind="POST /links",
            parse=partial(self._link_answer, slug=slug, domain=domain), body=body, confirm=confirm,
        )  # fmt: skip

    async def _find_created(
        self, url: str, domain: str | None, state: CallState
    ) -> RemoteLink | None:
        since = (state.first_sent_at or self.retry.clock()) - self.retry.created_tolerance
        best: tuple[float, RemoteLink] | None = None
        async for link in self.iter_links(search=url, domain=domain):
            if link.url != url or (domain and link.domain.lower() != domain.lower()):
                continue
            created = _instant(link.created_at)
            if created is None:
                raise TransportError(
                    "POST /links: outcome unknown and the service's records carry no "
                    f"createdAt, so a link with url {url} may or may not be new; "
                    "not re-sent to avoid a duplicate",
                    sent=True,
                    attempts=state.attempts,
                    retryable=False,
                )
            if created >= since and (best is None or created > best[0]):
                best = (created, link)
        return best[1] if best else None

    async def list_links_page(
        self,
        page: int = 1,
        limit: int = 20,
        search: str | None = None,
        tag: str | None = None,
        domain: str | None = None,
    ) -> LinkPage:
        if page < 1 or not 1 <= limit <= MAX_PAGE_SIZE:
            raise ValueError(f"page must be >= 1 and limit within 1..{MAX_PAGE_SIZE}")
        params = {"page": page, "limit": limit, "search": search, "tag": tag, "domain": domain}
        return await self._call(
            "GET", "/api/v1/links", kind="GET /links", params=params,
            parse=partial(_link_page, page=page, limit=limit),
        )  # fmt: skip

    async def iter_links(
        self,
        search: str | None = None,
        tag: str | None = None,
        domain: str | None = None,
    ) -> AsyncIterator[RemoteLink]:
        """Every matching link, page by page. Stops on the metadata's last page, or on a
        short page when there is none, or when a page brings no link not seen before
        (a service that ignores ``page`` must not make this loop forever)."""
        seen: set[tuple[str, str, str | None]] = set()
        page = 1
        while True:
            batch = await self.list_links_page(page, MAX_PAGE_SIZE, search, tag, domain)
            fresh = [ln for ln in batch.links if (ln.domain, ln.slug, ln.id) not in seen]
            for link in fresh:
                seen.add((link.domain, link.slug, link.id))
                yield link
            if batch.is_last or not batch.links or not fresh:
                return
            page += 1

    async def list_links(
        self, search: str | None = None, tag: str | None = None, domain: str | None = None
    ) -> list[RemoteLink]:
        return [link async for link in self.iter_links(search, tag, domain)]

    async def count_links(self, *, domain: str | None = None, tag: str | None = None) -> int:
        """How many links match: the pagination total of one small page, or counted
        page by page when the service sends no total."""
        first = await self.list_links_page(1, 1, None, tag, domain)
        if first.total is not None:
            return first.total
        return sum([1 async for _ in self.iter_links(tag=tag, domain=domain)])

    async def get_link(
        self,
        slug: str,
        domain: str | None = None,
    ) -> RemoteLink:
        return await self._call(
            "GET", f"/api/v1/links/{_seg(slug)}", kind="GET /links/:slug",
            parse=_one_link, params={"domain": domain},
        )  # fmt: skip

    async def update_link(
        self, slug: str, changes: Mapping[str, Any], domain: str | None = None
    ) -> RemoteLink:
        """PATCH the given fields (wire names). A None value is sent as null (clears it)."""
        body = dict(changes)  # JSON sends tuples as arrays

        return await self._call(
            "PATCH", f"/api/v1/links/{_seg(slug)}", kind="PATCH /links/:slug",
            parse=partial(self._link_answer, slug=slug, domain=domain),
            params={"domain": domain}, body=body,
        )  # fmt: skip

    async def delete_link(
        self,
        slug: str,
        domain: str | None = None,
    ) -> None:
        return await self._call(
            "DELETE", f"/api/v1/links/{_seg(slug)}", kind="DELETE /links/:slug",
            parse=_nothing, params={"domain": domain}, gone_ok=_nothing,
        )  # fmt: skip

    # --- AI tools -----------------------------------------------------------------------

    async def ai_slug(self, url: str) -> str:
        return await self._call(
            "POST", "/api/v1/tools/ai-slug", kind="POST /tools/ai-slug",
            parse=_body(p.parse_ai_slug), body={"url": url},
        )  # fmt: skip

    async def ai_og(self, url: str) -> OgSuggestion:
        return await self._call(
            "POST", "/api/v1/tools/ai-og", kind="POST /tools/ai-og",
            parse=_body(p.parse_og), body={"url": url},
        )  # fmt: skip
