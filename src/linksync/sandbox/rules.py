"""Request rules of the sandbox: JSON bodies and query strings -> checked plain values.

Value rules (URL, slug, expiry) come from ``linksync.rules``, shared with local
validation. Everything here raises ``ServiceError`` and never touches state, except
what is passed in. Order of checks on a create: body shape and types (INVALID_REQUEST),
url (INVALID_URL), slug (INVALID_SLUG / RESERVED_SLUG), expiresAt (INVALID_EXPIRY),
apple/google (INVALID_URL); the store then checks domain, uniqueness and quota.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from linksync import rules
from linksync.sandbox.errors import ServiceError

ROLES: tuple[str, ...] = ("owner", "admin", "member")
CREATE_FIELDS = frozenset(
    {"url", "slug", "domain", "description", "tags", "password", "expiresAt", "apple", "google"}
)
PATCH_FIELDS = frozenset({"url", "description", "tags", "apple", "google", "password"})
IMMUTABLE_FIELDS = frozenset({"expiresAt", "slug", "domain"})
MAX_PAGE_SIZE = 100
DEFAULT_PAGE_SIZE = 20

_EMAIL_RE = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+", re.ASCII)


@dataclass(frozen=True, slots=True)
class LinkInput:
    url: str
    slug: str | None = None
    domain: str | None = None
    description: str | None = None
    tags: tuple[str, ...] = ()
    password: str | None = None
    expires_at: datetime | None = None
    apple: str | None = None
    google: str | None = None


@dataclass(frozen=True, slots=True)
class DomainInput:
    domain: str
    root_redirect_url: str | None = None
    not_found_redirect_url: str | None = None


@dataclass(frozen=True, slots=True)
class ListQuery:
    page: int = 1
    limit: int = DEFAULT_PAGE_SIZE
    search: str | None = None
    tag: str | None = None
    domain: str | None = None


def _object(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise ServiceError("INVALID_REQUEST", "the request body must be a JSON object")
    return body


def _unknown(body: Mapping[str, Any], allowed: frozenset[str]) -> None:
    extra = sorted(set(body) - allowed)
    if extra:
        raise ServiceError("INVALID_REQUEST", f"unknown field(s): {', '.join(extra)}")


def _opt_str(body: Mapping[str, Any], name: str) -> str | None:
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ServiceError("INVALID_REQUEST", f"{name} must be a string")
    return value


def _url(value: str | None, name: str, *, required: bool) -> str | None:
    if value is None:
        if required:
            raise ServiceError("INVALID_URL", f"{name} is required")
        return None
    if rules.check_url(value) is not None:
        hidden = rules.describe_invisible(value)
        why = f" ({hidden})" if hidden else ""
        raise ServiceError(
            "INVALID_URL", f"{name} must be an http:// or https:// URL with a host{why}"
        )
    return value


def _tags(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise ServiceError("INVALID_REQUEST", "tags must be an array of strings")
    why = rules.check_tags(value)
    if why is not None:
        raise ServiceError("INVALID_REQUEST", why)
    return tuple(dict.fromkeys(value))


def _description(value: str | None) -> str | None:
    why = rules.check_description(value) if value is not None else None
    if why is not None:
        raise ServiceError("INVALID_REQUEST", why)
    return value


def _password(value: str | None) -> str | None:
    if value is not None and value == "":
        raise ServiceError("INVALID_REQUEST", "password must not be empty (send null to remove)")
    return value


def check_slug(slug: str) -> str:
    problem = rules.check_slug(slug)
    if problem == "RESERVED_SLUG":
        raise ServiceError("RESERVED_SLUG", f"slug {slug!r} is reserved for system use")
    if problem is not None:
        raise ServiceError(
            "INVALID_SLUG",
            "slug must be letters and digits with single hyphens between groups, "
            f"at most {rules.MAX_SLUG_BYTES} bytes",
        )
    return slug


def parse_link_create(body: Any, now: datetime) -> LinkInput:
    data = _object(body)
    _unknown(data, CREATE_FIELDS)
    url = _opt_str(data, "url")
    slug = _opt_str(data, "slug")
    domain = _opt_str(data, "domain")
    description = _description(_opt_str(data, "description"))
    tags = _tags(data.get("tags"))
    password = _password(_opt_str(data, "password"))
    expires = _opt_str(data, "expiresAt")
    apple = _opt_str(data, "apple")
    google = _opt_str(data, "google")

    checked_url = _url(url, "url", required=True)
    assert checked_url is not None
    if slug is not None:
        check_slug(slug)
    expires_at: datetime | None = None
    if expires is not None:
        parsed = rules.parse_expiry(expires, now)
        if isinstance(parsed, str):
            raise ServiceError(
                "INVALID_EXPIRY", "expiresAt must be a future ISO 8601 UTC timestamp"
            )
        expires_at = parsed
    return LinkInput(
        url=checked_url,
        slug=slug,
        domain=domain.lower() if domain is not None else None,
        description=description,
        tags=tags,
        password=password,
        expires_at=expires_at,
        apple=_url(apple, "apple", required=False),
        google=_url(google, "google", required=False),
    )


def parse_link_patch(body: Any) -> dict[str, Any]:
    """The supplied changes, by wire name. ``None`` clears a field (not url)."""
    data = _object(body)
    fixed = sorted(set(data) & IMMUTABLE_FIELDS)
    if fixed:
        raise ServiceError(
            "INVALID_REQUEST",
            f"{', '.join(fixed)} cannot be changed with PATCH; delete and create the link",
        )
    _unknown(data, PATCH_FIELDS)
    if not data:
        raise ServiceError("INVALID_REQUEST", "no field to change was supplied")
    changes: dict[str, Any] = {}
    if "url" in data:
        changes["url"] = _url(_opt_str(data, "url"), "url", required=True)
    if "description" in data:
        changes["description"] = _description(_opt_str(data, "description"))
    if "tags" in data:
        changes["tags"] = _tags(data["tags"])
    if "password" in data:
        changes["password"] = _password(_opt_str(data, "password"))
    for name in ("apple", "google"):
        if name in data:
            changes[name] = _url(_opt_str(data, name), name, required=False)
    return changes


def parse_domain_create(body: Any, system_domain: str) -> DomainInput:
    data = _object(body)
    _unknown(data, frozenset({"domain", "rootRedirectUrl", "notFoundRedirectUrl"}))
    host = _opt_str(data, "domain")
    if host is None:
        raise ServiceError("INVALID_REQUEST", "domain is required")
    host = host.lower().rstrip(".")
    if not rules.check_hostname(host):
        raise ServiceError("INVALID_REQUEST", f"domain is not a valid host name: {host!r}")
    if host.endswith("." + system_domain):
        raise ServiceError(
            "INVALID_REQUEST", f"host names under the system domain {system_domain} are reserved"
        )
    return DomainInput(
        domain=host,
        root_redirect_url=_url(
            _opt_str(data, "rootRedirectUrl"), "rootRedirectUrl", required=False
        ),
        not_found_redirect_url=_url(
            _opt_str(data, "notFoundRedirectUrl"), "notFoundRedirectUrl", required=False
        ),
    )


def parse_invite(body: Any) -> tuple[str, str]:
    data = _object(body)
    _unknown(data, frozenset({"email", "role"}))
    email = _opt_str(data, "email")
    role = _opt_str(data, "role")
    if email is None or _EMAIL_RE.fullmatch(email) is None or len(email) > 254:
        raise ServiceError("INVALID_REQUEST", "email must be an e-mail address")
    if role not in ROLES:
        raise ServiceError("INVALID_REQUEST", f"role must be one of {', '.join(ROLES)}")
    return email.lower(), role


def parse_tool_url(body: Any) -> str:
    data = _object(body)
    _unknown(data, frozenset({"url"}))
    url = _url(_opt_str(data, "url"), "url", required=True)
    assert url is not None
    return url


def _positive_int(params: Mapping[str, str], name: str, default: int) -> int:
    raw = params.get(name)
    if raw is None:
        return default
    if not (raw.isascii() and raw.isdigit()) or int(raw) < 1:
        raise ServiceError("INVALID_REQUEST", f"{name} must be a positive integer")
    return int(raw)


def parse_list_query(params: Mapping[str, str]) -> ListQuery:
    page = _positive_int(params, "page", 1)
    limit = _positive_int(params, "limit", DEFAULT_PAGE_SIZE)
    if limit > MAX_PAGE_SIZE:
        raise ServiceError("INVALID_REQUEST", f"limit is at most {MAX_PAGE_SIZE}")
    domain = params.get("domain") or None
    return ListQuery(
        page=page,
        limit=limit,
        search=params.get("search") or None,
        tag=params.get("tag") or None,
        domain=domain.lower() if domain else None,
    )
