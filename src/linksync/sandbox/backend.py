"""The sandbox backend: every operation of the service as a plain method (moto style).

Takes checked inputs (``sandbox.rules``), applies the state rules with the store, and
returns wire-shaped dicts (camelCase), raising ``ServiceError`` for every rejection.
The clock is injected (Unix seconds) so tests can move time without sleeping.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import math
import random
import secrets
import string
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from linksync import rules
from linksync.rules.timestamps import format_ts
from linksync.sandbox import ai, wire
from linksync.sandbox.errors import ServiceError
from linksync.sandbox.order import ALL
from linksync.sandbox.rows import (
    AlreadyExists,
    DomainRow,
    LinkRow,
    MemberRow,
    QuotaReached,
    SlugTaken,
)
from linksync.sandbox.rules import DomainInput, LinkInput, ListQuery
from linksync.sandbox.schema import RecordSql
from linksync.sandbox.settings import SandboxSettings
from linksync.sandbox.store import Store

Clock = Callable[[], float]
_SLUG_ALPHABET = string.ascii_lowercase + string.digits
_MAX_GENERATE_ATTEMPTS = 50


def hash_password(password: str) -> str:
    salt = secrets.token_hex(8)
    digest = hashlib.sha256((salt + password).encode("utf-8")).hexdigest()
    return f"{salt}${digest}"


def password_matches(stored: str, given: str) -> bool:
    salt, _, digest = stored.partition("$")
    other = hashlib.sha256((salt + given).encode("utf-8")).hexdigest()
    return hmac.compare_digest(digest, other)


@dataclass(frozen=True, slots=True)
class Resolution:
    """Outcome of resolving a short link: ``kind`` is redirect, not_found, expired,
    password_required or password_wrong; ``location`` is set for redirect."""

    kind: str
    location: str | None = None


class Backend:
    def __init__(
        self,
        settings: SandboxSettings,
        store: Store,
        clock: Clock = time.time,
    ) -> None:
        self.settings = settings
        self.store = store
        self.clock = clock
        self._slug_rng = random.Random(f"{settings.seed}:{store.path}:{time.time_ns()}")
        self._id_lock = threading.Lock()
        self._id_rng = random.Random()  # seeded from the OS: ids differ across processes
        self._last_id: tuple[int, int] = (0, 0)
        self._records = RecordSql(settings.short_url_scheme)  # list pages' records
        if not store.has_owner():
            # another process sharing the file may seed it first
            with contextlib.suppress(AlreadyExists):
                self._insert_member(settings.owner_email, "owner", "active")

    # --- time -------------------------------------------------------------------------

    def now(self) -> datetime:
        return datetime.fromtimestamp(self.clock(), tz=UTC)

    def new_id(self, prefix: str) -> str:
        """Time-ordered ids (like ULIDs): milliseconds, a counter within the same
        millisecond, then randomness. Ordering by (createdAt, id) is creation order."""
        ms = int(self.clock() * 1000)
        with self._id_lock:
            last_ms, seq = self._last_id
            seq = seq + 1 if ms <= last_ms else 0
            ms = max(ms, last_ms)
            self._last_id = (ms, seq)
            tail = self._id_rng.getrandbits(24)
        return f"{prefix}_{ms:012x}{seq:04x}{tail:06x}"

    def _ts(self) -> str:
        return format_ts(self.now())

    def _month(self) -> str:
        return self.now().strftime("%Y-%m")

    # --- organization and members -----------------------------------------------------

    def organization(self) -> dict[str, Any]:
        s = self.settings
        return {
            "id": s.org_id,
            "name": s.org_name,
            "plan": s.plan,
            "linkCount": self.store.count_links(),
            "linkQuota": s.link_quota,
            "clickCountMonthly": self.store.clicks(self._month()),
            "clickQuotaMonthly": s.click_quota_monthly,
            "customDomainCount": self.store.count_domains(),
            "customDomainQuota": s.custom_domain_quota,
        }

    @staticmethod
    def member_record(m: MemberRow) -> dict[str, Any]:
        return {
            "id": m.id,
            "email": m.email,
            "role": m.role,
            "status": m.status,
            "createdAt": m.created_at,
        }

    def list_members(self) -> list[dict[str, Any]]:
        return [self.member_record(m) for m in self.store.list_members()]

    def _insert_member(self, email: str, role: str, status: str) -> MemberRow:
        row = MemberRow(self.new_id("mem"), email.lower(), role, status, self._ts())
        return self.store.insert_member(row)

    def invite_member(self, email: str, role: str) -> dict[str, Any]:
        try:
            row = self._insert_member(email, role, "pending")
        except AlreadyExists:
            raise ServiceError(
                "MEMBER_EXISTS", f"{email} is already a member or has a pending invitation"
            ) from None
        return self.member_record(row)

    # --- domains ----------------------------------------------------------------------

    def domain_record(self, d: DomainRow) -> dict[str, Any]:
        return {
            "id": d.id,
            "domain": d.domain,
            "status": d.status,
            "sslStatus": d.ssl_status,
            "cnameTarget": self.settings.cname_target,
            "rootRedirectUrl": d.root_redirect_url,
            "notFoundRedirectUrl": d.not_found_redirect_url,
            "createdAt": d.created_at,
        }

    def create_domain(self, spec: DomainInput) -> dict[str, Any]:
        if spec.domain == self.settings.system_domain:
            raise ServiceError("DOMAIN_EXISTS", f"{spec.domain} is the system domain")
        row = DomainRow(
            id=self.new_id("dom"),
            domain=spec.domain,
            status="pending",
            ssl_status="pending",
            root_redirect_url=spec.root_redirect_url,
            not_found_redirect_url=spec.not_found_redirect_url,
            created_at=self._ts(),
            verified_at=None,
        )
        try:
            self.store.insert_domain(row, quota=self.settings.custom_domain_quota)
        except AlreadyExists:
            raise ServiceError(
                "DOMAIN_EXISTS", f"{spec.domain} is already registered in this workspace"
            ) from None
        except QuotaReached:
            raise ServiceError(
                "QUOTA_EXCEEDED",
                f"the plan allows {self.settings.custom_domain_quota} custom domain(s)",
            ) from None
        return self.domain_record(row)

    def list_domains(self) -> list[dict[str, Any]]:
        return [self.domain_record(d) for d in self.store.list_domains()]

    def _domain_by_id(self, domain_id: str) -> DomainRow:
        row = self.store.get_domain(domain_id)
        if row is None:
            raise ServiceError("DOMAIN_NOT_FOUND", f"no custom domain with id {domain_id!r}")
        return row

    def verify_domain(self, domain_id: str) -> dict[str, Any]:
        row = self._domain_by_id(domain_id)
        if row.status != "active":
            row = self.store.set_domain_status(row.id, "active", "active", self._ts())
        return self.domain_record(row)

    def delete_domain(self, domain_id: str) -> dict[str, Any]:
        row = self._domain_by_id(domain_id)
        removed = self.store.delete_domain(row.id)
        if removed is None:  # deleted by a concurrent request
            raise ServiceError("DOMAIN_NOT_FOUND", f"no custom domain with id {domain_id!r}")
        return {**self.domain_record(row), "deletedLinks": removed}

    def link_domain(self, domain: str | None) -> str:
        """The host a link lives on: the system domain or a registered custom domain
        (pending or active)."""
        host = (domain or self.settings.system_domain).lower()
        if host == self.settings.system_domain or self.store.find_domain(host):
            return host
        raise ServiceError(
            "DOMAIN_NOT_FOUND", f"{host} is not the system domain nor registered here"
        )

    # --- links ------------------------------------------------------------------------

    def link_record(self, link: LinkRow) -> dict[str, Any]:
        return {
            "id": link.id,
            "domain": link.domain,
            "slug": link.slug,
            "shortUrl": f"{self.settings.short_url_scheme}://{link.domain}/{link.slug}",
            "url": link.url,
            "description": link.description,
            "tags": list(link.tags),
            "apple": link.apple,
            "google": link.google,
            "hasPassword": link.password_hash is not None,
            "expiresAt": link.expires_at,
            "createdAt": link.created_at,
            "updatedAt": link.updated_at,
        }

    def _generated_slug(self) -> str:
        while True:
            slug = "".join(
                self._slug_rng.choice(_SLUG_ALPHABET) for _ in range(rules.GENERATED_SLUG_LENGTH)
            )
            if rules.check_slug(slug) is None:
                return slug

    def create_link(self, spec: LinkInput) -> dict[str, Any]:
        domain = self.link_domain(spec.domain)
        ts = self._ts()
        attempts = 1 if spec.slug is not None else _MAX_GENERATE_ATTEMPTS
        for _ in range(attempts):
            slug = spec.slug if spec.slug is not None else self._generated_slug()
            row = LinkRow(
                id=self.new_id("lnk"),
                domain=domain,
                slug=slug,
                url=spec.url,
                description=spec.description,
                tags=spec.tags,
                apple=spec.apple,
                google=spec.google,
                password_hash=hash_password(spec.password) if spec.password else None,
                expires_at=format_ts(spec.expires_at) if spec.expires_at else None,
                created_at=ts,
                updated_at=ts,
            )
            try:
                return self.link_record(
                    self.store.insert_link(row, link_quota=self.settings.link_quota)
                )
            except SlugTaken:
                if spec.slug is not None:
                    raise ServiceError(
                        "SLUG_EXISTS",
                        f"slug {slug!r} already exists on {domain}; "
                        "update it with PATCH or pick another slug",
                    ) from None
            except QuotaReached:
                raise ServiceError(
                    "QUOTA_EXCEEDED", f"the plan allows {self.settings.link_quota} link(s)"
                ) from None
        raise ServiceError("INTERNAL_ERROR", "could not generate a free slug")  # pragma: no cover

    def _link(self, slug: str, domain: str | None) -> LinkRow:
        host = self.link_domain(domain)
        link = self.store.get_link(host, slug)
        if link is None:
            raise ServiceError("LINK_NOT_FOUND", f"slug {slug!r} not found on {host}")
        return link

    def get_link(self, slug: str, domain: str | None) -> dict[str, Any]:
        return self.link_record(self._link(slug, domain))

    def update_link(self, slug: str, domain: str | None, changes: dict[str, Any]) -> dict[str, Any]:
        link = self._link(slug, domain)
        columns = {k: v for k, v in changes.items() if k != "password"}
        if "password" in changes:
            pw = changes["password"]
            columns["password_hash"] = hash_password(pw) if pw is not None else None
        try:
            return self.link_record(self.store.update_link(link.id, columns, self._ts()))
        except LookupError:  # deleted by a concurrent request
            raise ServiceError(
                "LINK_NOT_FOUND", f"slug {slug!r} not found on {link.domain}"
            ) from None

    def delete_link(self, slug: str, domain: str | None) -> dict[str, Any]:
        link = self._link(slug, domain)
        if not self.store.delete_link(link.id):
            raise ServiceError("LINK_NOT_FOUND", f"slug {slug!r} not found on {link.domain}")
        return self.link_record(link)

    def list_links(self, q: ListQuery) -> tuple[list[dict[str, Any]], dict[str, int]]:
        rows, total = self.store.list_links(
            offset=(q.page - 1) * q.limit,
            limit=q.limit,
            search=q.search,
            tag=q.tag,
            domain=q.domain,
        )
        return [self.link_record(r) for r in rows], self._pagination(q, total)

    def list_links_json(self, q: ListQuery) -> bytes:
        """The body of a list page, ``{"code": 0, "data": [...], "pagination": {...}}``:
        without search or tag, from the records the store keeps encoded."""
        if q.search or q.tag:
            data, pagination = self.list_links(q)
            return wire.ok_body(data, pagination=pagination)
        offset = (q.page - 1) * q.limit
        records, total = self.store.page_encoded(q.domain or ALL, offset, q.limit, self._records)
        return wire.list_body(records, self._pagination(q, total))

    @staticmethod
    def _pagination(q: ListQuery, total: int) -> dict[str, int]:
        return {
            "page": q.page,
            "limit": q.limit,
            "total": total,
            "totalPages": math.ceil(total / q.limit),
        }

    # --- AI tools ---------------------------------------------------------------------

    def ai_slug(self, url: str) -> str:
        """A suggestion free on the system domain (``-2``, ``-3``... when taken)."""
        base = ai.suggest_slug(url)
        slug, n = base, 1
        while self.store.get_link(self.settings.system_domain, slug) is not None:
            n += 1
            slug = f"{base}-{n}"
        return slug

    # --- redirects --------------------------------------------------------------------

    def resolve(self, host: str, slug: str, *, password: str | None, user_agent: str) -> Resolution:
        """Resolve a short link as a visitor's browser would; counts a click on redirect."""
        host = host.lower()
        link = self.store.get_link(host, slug) if rules.check_slug(slug) is None else None
        if link is None:
            custom = self.store.find_domain(host)
            if custom is not None and custom.not_found_redirect_url:
                return Resolution("redirect", custom.not_found_redirect_url)
            return Resolution("not_found")
        if link.expires_at is not None and link.expires_at <= self._ts():
            return Resolution("expired")
        if link.password_hash is not None:
            if password is None:
                return Resolution("password_required")
            if not password_matches(link.password_hash, password):
                return Resolution("password_wrong")
        target = link.url
        if link.apple and any(d in user_agent for d in ("iPhone", "iPad", "iPod")):
            target = link.apple
        elif link.google and "Android" in user_agent:
            target = link.google
        self.store.add_click(self._month())
        return Resolution("redirect", target)

    def resolve_root(self, host: str) -> str | None:
        custom = self.store.find_domain(host.lower())
        return custom.root_redirect_url if custom is not None else None
