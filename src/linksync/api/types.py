"""Typed results of the client. Records are frozen; ``ClientStats`` is filled in
by the client as it works, so it is a plain mutable dataclass.

Links come back as :class:`linksync.model.RemoteLink`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from linksync.model import RemoteLink


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def wire(record: object, *names: str) -> dict[str, Any]:
    """The named fields of a record under their wire names (``created_at`` ->
    ``createdAt``), in the order given."""
    return {_camel(name): getattr(record, name) for name in names}


#: Roles the interface names, in order of power.
ROLES: tuple[str, ...] = ("owner", "admin", "member")


@dataclass(frozen=True, slots=True)
class Quota:
    """One usage figure against its plan limit."""

    label: str
    used: int
    limit: int | None

    @property
    def fraction(self) -> float | None:
        if self.limit is None or self.limit <= 0:
            return None
        return self.used / self.limit

    def to_dict(self) -> dict[str, Any]:
        frac = self.fraction
        return {
            "label": self.label,
            "used": self.used,
            "limit": self.limit,
            "percent": None if frac is None else round(frac * 100, 1),
        }


@dataclass(frozen=True, slots=True)
class Organization:
    id: str | None
    name: str | None
    plan: str | None
    link_count: int = 0
    link_quota: int | None = None
    click_count_monthly: int = 0
    click_quota_monthly: int | None = None
    custom_domain_count: int = 0
    custom_domain_quota: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def quotas(self) -> tuple[Quota, ...]:
        return (
            Quota("links", self.link_count, self.link_quota),
            Quota("clicks this month", self.click_count_monthly, self.click_quota_monthly),
            Quota("custom domains", self.custom_domain_count, self.custom_domain_quota),
        )

    def to_dict(self) -> dict[str, Any]:
        return wire(
            self, "id", "name", "plan", "link_count", "link_quota", "click_count_monthly",
            "click_quota_monthly", "custom_domain_count", "custom_domain_quota",
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class Member:
    """A member of the organization. The interface does not show the record's fields, so
    everything but the role is optional and unknown fields are kept in ``extra``."""

    role: str | None
    id: str | None = None
    email: str | None = None
    name: str | None = None
    status: str | None = None
    created_at: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return wire(self, "id", "email", "name", "role", "status", "created_at")


@dataclass(frozen=True, slots=True)
class Invitation:
    """What the invite endpoint answered (its body is not shown by the interface; the
    email and role fall back to what was sent)."""

    email: str
    role: str
    id: str | None = None
    status: str | None = None
    created_at: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return wire(self, "id", "email", "role", "status", "created_at")


@dataclass(frozen=True, slots=True)
class Domain:
    id: str
    domain: str
    status: str | None = None
    ssl_status: str | None = None
    cname_target: str | None = None
    root_redirect_url: str | None = None
    not_found_redirect_url: str | None = None
    created_at: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def active(self) -> bool:
        return self.status == "active"

    def to_dict(self) -> dict[str, Any]:
        return wire(
            self, "id", "domain", "status", "ssl_status", "cname_target", "root_redirect_url",
            "not_found_redirect_url", "created_at",
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class LinkPage:
    """One page of the link list. Pagination fields are None when the service sent none."""

    links: tuple[RemoteLink, ...]
    page: int
    limit: int
    total: int | None = None
    total_pages: int | None = None
    has_more: bool | None = None

    @property
    def is_last(self) -> bool:
        """Whether no page follows: from the metadata when present, else a short page."""
        if self.has_more is not None:
            return not self.has_more
        if self.total_pages is not None:
            return self.page >= self.total_pages
        if self.total is not None:
            return self.page * self.limit >= self.total
        return len(self.links) < self.limit


@dataclass(frozen=True, slots=True)
class OgSuggestion:
    title: str
    description: str

    def to_dict(self) -> dict[str, Any]:
        return wire(self, "title", "description")


@dataclass(slots=True)
class ClientStats:
    """Counters of one client: requests by kind ("POST /links"), responses by status,
    429s received, retries made, seconds spent waiting before retries (``wait_seconds``,
    summed over calls) and parked by the shared limiter (``limiter_wait_seconds``, summed
    over tasks), unknown outcomes settled by reading."""

    requests_by_kind: Counter[str] = field(default_factory=Counter)
    responses_by_status: Counter[int] = field(default_factory=Counter)
    transport_errors: int = 0
    rate_limited: int = 0
    retries: int = 0
    wait_seconds: float = 0.0
    limiter_wait_seconds: float = 0.0
    confirmations: int = 0

    @property
    def requests(self) -> int:
        return sum(self.requests_by_kind.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "requests_by_kind": dict(sorted(self.requests_by_kind.items())),
            "responses_by_status": {str(k): v for k, v in sorted(self.responses_by_status.items())},
            "transport_errors": self.transport_errors,
            "rate_limited": self.rate_limited,
            "retries": self.retries,
            "wait_seconds": round(self.wait_seconds, 3),
            "limiter_wait_seconds": round(self.limiter_wait_seconds, 3),
            "confirmations": self.confirmations,
        }
