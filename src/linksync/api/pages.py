"""List pages decoded from the answer's bytes straight into records.

A list page in the service's own shape (``{"code", "data": [records], "pagination"}``,
camelCase records of the known fields and types, no other field, a domain and a slug
in each) is decoded by msgspec into ``RemoteLink`` records, with no dict per link in
between and no pass over them afterwards (``fast_link_page``); an answer of any other
shape gives None, and ``linksync.api.parse`` reads it with its tolerant reader, which
gives the same links. One link's answer (a create, an update, a read) likewise
(``fast_link``). Each record, as it is made, holds its usual short URL as a marker
and shares its domain and timestamps with the record before it
(``linksync.model.short_urls``): a million links hold one string per domain.
"""

from __future__ import annotations

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
        return _LINK_ANSWER.decode(raw).data
    except msgspec.DecodeError:  # an empty slug or domain too (``model.short_urls.Named``)
        return None


def fast_link_page(
    raw: bytes | bytearray | memoryview, *, page: int, limit: int
) -> LinkPage | None:
    """The page decoded straight into records, or None when the answer is of another
    shape (the tolerant reader then reads it)."""
    try:
        answer = _LINK_LIST.decode(raw)
    except msgspec.DecodeError:  # an empty slug or domain too (``model.short_urls.Named``)
        return None
    p = answer.pagination or _NO_PAGINATION
    return LinkPage(
        links=answer.data,
        page=p.page or page,
        limit=p.limit or limit,
        total=p.total,
        total_pages=p.total_pages,
        has_more=p.has_more,
    )


_NO_PAGINATION = _Pagination()
