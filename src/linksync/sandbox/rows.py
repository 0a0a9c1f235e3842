"""The records of the sandbox's state (one per table row) and the store's refusals."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LinkRow:
    id: str
    domain: str
    slug: str
    url: str
    description: str | None
    tags: tuple[str, ...]
    apple: str | None
    google: str | None
    password_hash: str | None
    expires_at: str | None
    created_at: str
    updated_at: str


@dataclass(frozen=True, slots=True)
class DomainRow:
    id: str
    domain: str
    status: str
    ssl_status: str
    root_redirect_url: str | None
    not_found_redirect_url: str | None
    created_at: str
    verified_at: str | None


@dataclass(frozen=True, slots=True)
class MemberRow:
    id: str
    email: str
    role: str
    status: str
    created_at: str


class SlugTaken(Exception):
    """The slug exists on that domain (case-insensitively)."""


class QuotaReached(Exception):
    """Inserting would pass the given quota."""


class AlreadyExists(Exception):
    """A domain or member with that key exists."""
