"""Tolerant reading of the service's answers into typed values.

Where the interface says "not shown" (link records, member records, the list's shape and
pagination) the reader accepts any reasonable shape: camelCase or snake_case keys, the
array directly in ``data`` or nested in an object, no pagination block at all. Fields it
does not know are kept in ``extra``; a ``password`` value is never kept.

A list page given as the answer's bytes in the service's own shape is decoded straight
into records (``linksync.api.pages``); any other shape, an unknown field, a value of
another type, is read by the tolerant reader here, and both give the same links.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

import msgspec

from linksync.api.pages import fast_link_page
from linksync.api.types import Domain, Invitation, LinkPage, Member, OgSuggestion, Organization
from linksync.errors import ApiError
from linksync.model import RemoteLink
from linksync.model.links import NO_EXTRA

#: Keys under which a list may be nested inside ``data`` (or the top level).
LIST_KEYS: tuple[str, ...] = ("links", "items", "data", "results", "records", "rows", "domains")
_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


@functools.lru_cache(maxsize=4096)
def snake(name: str) -> str:
    """``shortUrl`` -> ``short_url``; snake_case passes through (cached: the same few
    keys come back in every record of a listing)."""
    return _CAMEL.sub("_", name).lower().replace("-", "_")


def unexpected(message: str, *, status: int | None = None) -> ApiError:
    return ApiError(status, "UNEXPECTED_RESPONSE", message, retryable=False)


def unwrap(body: Any) -> Any:
    """The ``data`` of a ``{code, data}`` envelope, or the body itself when not enveloped."""
    if isinstance(body, Mapping) and "data" in body and ("code" in body or len(body) <= 3):
        return body["data"]
    return body


def unwrap_record(body: Any, key: str) -> Any:
    """The ``data`` of an answer, or the record nested in it under ``key``
    (``{"data": {"link": {...}}}``)."""
    data = unwrap(body)
    if isinstance(data, Mapping) and isinstance(data.get(key), Mapping):
        return data[key]
    return data


def _norm(record: Mapping[str, Any]) -> dict[str, Any]:
    return {snake(str(k)): v for k, v in record.items()}


def _str(v: Any) -> str | None:
    if v is None:
        return None
    return v if isinstance(v, str) else str(v)


def _int(v: Any, default: int | None = None) -> int | None:
    if isinstance(v, bool):
        return default
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, str) and v.strip().lstrip("-").isdigit():
        return int(v.strip())
    return default


def _extra(raw: Mapping[str, Any], known: Iterable[str]) -> dict[str, Any]:
    """Fields not in ``known`` (a frozenset holds "password" already; it is never kept)."""
    skip = known if isinstance(known, frozenset) else frozenset((*known, "password"))
    return {k: v for k, v in raw.items() if snake(str(k)) not in skip}


def _fields(record: type) -> tuple[str, ...]:
    """The fields a record reads from an answer by their own names (not ``extra``)."""
    return tuple(f.name for f in dataclasses.fields(record) if f.name != "extra")


def _require_mapping(value: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise unexpected(f"expected {what} as a JSON object, got {type(value).__name__}")
    return value


_LINK_KEYS = (
    "id",
    "domain",
    "slug",
    "short_url",
    "url",
    "description",
    "title",
    "tags",
    "apple",
    "google",
    "has_password",
    "password_protected",
    "expires_at",
    "created_at",
    "updated_at",
)


_LINK_KNOWN = frozenset(
    (*_LINK_KEYS, "short_link", "link", "key", "destination", "long_url", "password")
)


def _tags(v: Any) -> tuple[str, ...]:
    if v is None:
        return ()
    if isinstance(v, str):
        return tuple(t.strip() for t in v.split(",") if t.strip())
    if isinstance(v, list | tuple):
        return tuple(str(t) for t in v if t is not None)
    return ()


def parse_link(value: Any) -> RemoteLink:
    """A link record in any reasonable shape. Missing domain or slug are taken from the
    short URL when there is one; a record with neither a slug nor a short URL is refused."""
    raw = _require_mapping(value, "a link record")
    n = _norm(raw)
    short_url = _str(n.get("short_url") or n.get("short_link") or n.get("link"))
    domain = _str(n.get("domain"))
    slug = _str(n.get("slug") or n.get("key"))
    if short_url and (not domain or not slug):
        parts = urlsplit(short_url if "//" in short_url else f"https://{short_url}")
        domain = domain or parts.hostname
        slug = slug or parts.path.strip("/") or None
    if not slug:
        raise unexpected("a link record carries neither a slug nor a short URL")
    has_password = n.get("has_password", n.get("password_protected"))
    if has_password is None:
        has_password = bool(n.get("password"))
    return RemoteLink(
        domain=domain or "",
        slug=slug,
        url=_str(n.get("url") or n.get("destination") or n.get("long_url")) or "",
        id=_str(n.get("id")),
        short_url=short_url,
        description=_str(n.get("description", n.get("title"))),
        tags=_tags(n.get("tags")),
        apple=_str(n.get("apple")),
        google=_str(n.get("google")),
        has_password=bool(has_password),
        expires_at=_str(n.get("expires_at")),
        created_at=_str(n.get("created_at")),
        updated_at=_str(n.get("updated_at")),
        extra=_extra(raw, _LINK_KNOWN) or NO_EXTRA,
    )


def find_list(data: Any) -> list[Any] | None:
    """The array of a list answer: ``data`` itself, or nested one or two levels down."""
    if isinstance(data, list):
        return data
    if isinstance(data, Mapping):
        for key in LIST_KEYS:
            if key in data:
                found = find_list(data[key])
                if found is not None:
                    return found
    return None


def _pagination_source(body: Any) -> dict[str, Any]:
    """Merge every place pagination facts may sit, outermost last so it wins."""
    merged: dict[str, Any] = {}
    layers: list[Any] = []
    if isinstance(body, Mapping):
        data = body.get("data")
        if isinstance(data, Mapping):
            layers += [data.get("pagination"), data.get("meta"), data]
        layers += [body.get("pagination"), body.get("meta"), body]
    for layer in layers:
        if isinstance(layer, Mapping):
            merged.update({snake(str(k)): v for k, v in layer.items() if not isinstance(v, list)})
    return merged


def _items(body: Any, what: str) -> list[Any]:
    """The array of a list answer (in ``data`` or at the top level)."""
    items = find_list(unwrap(body))
    if items is None:
        items = find_list(body)
    if items is None:
        raise unexpected(f"the {what} list answer holds no array of {what}s")
    return items


def parse_link_page(body: Any, *, page: int, limit: int) -> LinkPage:
    """One page of the link list: from the answer's bytes (the fast path first, see
    the module docstring) or from its decoded JSON."""
    if isinstance(body, bytes | bytearray | memoryview):
        fast = fast_link_page(body, page=page, limit=limit)
        if fast is not None:
            return fast
        body = decode_json(body)
    items = _items(body, "link")
    p = _pagination_source(body)
    has_more = p.get("has_more", p.get("has_next", p.get("has_next_page")))
    if has_more is None and "next_page" in p:
        has_more = p["next_page"] is not None
    return LinkPage(
        links=tuple(parse_link(item) for item in items),
        page=_int(p.get("page", p.get("current_page")), page) or page,
        limit=_int(p.get("limit", p.get("per_page", p.get("page_size"))), limit) or limit,
        total=_int(p.get("total", p.get("total_count", p.get("count")))),
        total_pages=_int(p.get("total_pages", p.get("pages", p.get("page_count")))),
        has_more=has_more if isinstance(has_more, bool) else None,
    )


def decode_json(raw: bytes | bytearray | memoryview) -> Any:
    """An answer's bytes as JSON values (refused as UNEXPECTED_RESPONSE when not JSON)."""
    try:
        return msgspec.json.decode(raw)
    except msgspec.DecodeError as exc:
        raise unexpected(f"the answer is not JSON ({exc})") from None


def parse_organization(value: Any) -> Organization:
    raw = _require_mapping(unwrap(value), "the organization")
    n = _norm(raw)
    return Organization(
        id=_str(n.get("id")),
        name=_str(n.get("name")),
        plan=_str(n.get("plan")),
        link_count=_int(n.get("link_count"), 0) or 0,
        link_quota=_int(n.get("link_quota")),
        click_count_monthly=_int(n.get("click_count_monthly"), 0) or 0,
        click_quota_monthly=_int(n.get("click_quota_monthly")),
        custom_domain_count=_int(n.get("custom_domain_count"), 0) or 0,
        custom_domain_quota=_int(n.get("custom_domain_quota")),
        extra=_extra(raw, _fields(Organization)),
    )


def parse_member(value: Any) -> Member:
    raw = _require_mapping(value, "a member record")
    n = _norm(raw)
    user = n.get("user")
    u = _norm(user) if isinstance(user, Mapping) else {}
    return Member(
        role=_str(n.get("role")),
        id=_str(n.get("id", u.get("id"))),
        email=_str(n.get("email", u.get("email"))),
        name=_str(n.get("name", u.get("name"))),
        status=_str(n.get("status")),
        created_at=_str(n.get("created_at", n.get("joined_at"))),
        extra=_extra(raw, (*_fields(Member), "joined_at", "user")),
    )


def parse_members(body: Any) -> tuple[Member, ...]:
    return tuple(parse_member(m) for m in _items(body, "member"))


def parse_invitation(body: Any, *, email: str, role: str) -> Invitation:
    data = unwrap_record(body, "invitation")
    if not isinstance(data, Mapping):
        return Invitation(email=email, role=role)
    n = _norm(data)
    return Invitation(
        email=_str(n.get("email")) or email,
        role=_str(n.get("role")) or role,
        id=_str(n.get("id")),
        status=_str(n.get("status")),
        created_at=_str(n.get("created_at")),
        extra=_extra(data, _fields(Invitation)),
    )


def parse_domain(value: Any) -> Domain:
    raw = _require_mapping(value, "a domain record")
    n = _norm(raw)
    name = _str(n.get("domain", n.get("hostname", n.get("name"))))
    ident = _str(n.get("id")) or name
    if not name or not ident:
        raise unexpected("a domain record carries no host name")
    return Domain(
        id=ident,
        domain=name,
        status=_str(n.get("status")),
        ssl_status=_str(n.get("ssl_status")),
        cname_target=_str(n.get("cname_target")),
        root_redirect_url=_str(n.get("root_redirect_url")),
        not_found_redirect_url=_str(n.get("not_found_redirect_url")),
        created_at=_str(n.get("created_at")),
        extra=_extra(raw, (*_fields(Domain), "hostname", "name")),
    )


def parse_domains(body: Any) -> tuple[Domain, ...]:
    return tuple(parse_domain(d) for d in _items(body, "domain"))


def parse_domain_answer(body: Any) -> Domain | None:
    """A domain from a create/verify answer, or None when the body does not hold one."""
    data = unwrap_record(body, "domain")
    if not isinstance(data, Mapping):
        return None
    try:
        return parse_domain(data)
    except ApiError:
        return None


def parse_ai_slug(body: Any) -> str:
    data = unwrap(body)
    slug = data.get("slug") if isinstance(data, Mapping) else data
    if not isinstance(slug, str) or not slug:
        raise unexpected("the ai-slug answer holds no slug")
    return slug


def parse_og(body: Any) -> OgSuggestion:
    data = _require_mapping(unwrap(body), "the ai-og answer")
    return OgSuggestion(
        title=_str(data.get("title")) or "", description=_str(data.get("description")) or ""
    )
