"""List pages decoded from the answer's bytes straight into records.

A list page in the service's own shape (``{"code", "data": [records], "pagination"}``,
camelCase records of the known fields and types, no other field) is decoded by msgspec
into ``RemoteLink`` records, with no dict per link in between (``fast_link_page``);
an answer of any other shape gives None, and ``linksync.api.parse`` reads it with its
tolerant reader, which gives the same links. One link's answer (a create, an update, a
read) likewise (``fast_link``). Records of a page share their domain's
text (as do equal ``createdAt`` of links next to each other, and an ``updatedAt`` equal
to ``createdAt``): a million links hold one string per domain (``compact_links``).
"""

from __future__ import annotations

import sys

import msgspec

from linksync.api.types import LinkPage
from linksync.model import RemoteLink


class _Pagination(msgspec.Struct, forbid_unknown_fields=True, rename="camel"):
    """The pagination block of the service's own list answer."""

    page: int | None = None
    limit: int | None = None
    total: int | None = None
    total_pages: int | None = None
    has_more: bool | None = None


class _LinkList(msgspec.Struct, forbid_unknown_fields=True):
    """The service's own list answer: the fast path's only shape."""

    data: tuple[RemoteLink, ...]
    code: int | None = None
    pagination: _Pagination | None = None


_LINK_LIST = msgspec.json.Decoder(_LinkList)


class _LinkAnswer(msgspec.Struct, forbid_unknown_fields=True):
    """The service's own answer of one link (a create, an update, a read)."""

    data: RemoteLink
    code: int | None = None


_LINK_ANSWER = msgspec.json.Decoder(_LinkAnswer)


def fast_link(raw: bytes | bytearray | memoryview) -> RemoteLink | None:
    """One link's answer decoded straight into its record, or None when the answer is
    of another shape (the tolerant reader, ``parse_link``, then reads it)."""
    try:
        link = _LINK_ANSWER.decode(raw).data
    except msgspec.DecodeError:
        return None
    if not link.slug or not link.domain:
        return None  # the tolerant reader takes them from the short URL
    return link


def fast_link_page(
    raw: bytes | bytearray | memoryview, *, page: int, limit: int
) -> LinkPage | None:
    """The page decoded straight into records, or None when the answer is of another
    shape (the tolerant reader then reads it)."""
    try:
        answer = _LINK_LIST.decode(raw)
    except msgspec.DecodeError:
        return None
    links = answer.data
    for link in links:
        if not link.slug or not link.domain:
            return None  # the tolerant reader takes them from the short URL
    p = answer.pagination or _NO_PAGINATION
    return LinkPage(
        links=compact_links(links),
        page=p.page or page,
        limit=p.limit or limit,
        total=p.total,
        total_pages=p.total_pages,
        has_more=p.has_more,
    )


_NO_PAGINATION = _Pagination()
_force = msgspec.structs.force_setattr


def compact_links(links: tuple[RemoteLink, ...]) -> tuple[RemoteLink, ...]:
    """The records with their domain's text shared (``sys.intern``), a ``created_at``
    equal to the one of the link before sharing its text (links made together, by an
    import or a bulk create, were made in the same millisecond), and an ``updated_at``
    equal to ``created_at`` sharing its text: the same values, held once."""
    host: str | None = None
    shared = ""
    made: str | None = None
    for link in links:
        domain = link.domain
        if domain != host:
            host, shared = domain, sys.intern(domain)
        if domain is not shared:
            _force(link, "domain", shared)
        created, updated = link.created_at, link.updated_at
        if created is not None and created is not made:
            if created == made:
                _force(link, "created_at", made)
                created = made
            else:
                made = created
        if updated is not None and updated is not created and updated == created:
            _force(link, "updated_at", created)
    return links
