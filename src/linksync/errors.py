"""The one table of error constants, and the exception tree.

Every part of linksync names problems with the constants below: the client when the
service answers an error, local validation before any request, the sandbox when it
rejects a request, and the reports. Service constants carry the HTTP status and the
five-digit code the service uses; local constants (problems only linksync can see,
such as a duplicate row in a source file) carry neither.

Exception tree::

    LinksyncError                  base of everything linksync raises on purpose
    ├── ConfigError                bad profile, flag or environment (exit 2)
    ├── SourceError                a source file cannot be read at all (file-level)
    ├── ApiError                   the service answered an error, or never answered
    │   └── TransportError         no HTTP response: connection refused/reset, timeout
    ├── UnsafePlanError            a plan crosses a safety threshold (use --force)
    └── LockError                  another run holds the lock (exit 2)

``ApiError.retryable`` is what the retry policy reads: transient errors (429, 500, 503,
transport) are retried, terminal ones are not.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Origin(StrEnum):
    """Where a constant comes from."""

    SERVICE = "service"  # in the service interface's error table
    DESIGN = "design"  # decided in DESIGN.md where the interface says "not shown"
    LOCAL = "local"  # found by linksync itself, never sent by the service


@dataclass(frozen=True, slots=True)
class ErrorDef:
    constant: str
    http_status: int | None
    code: int | None
    meaning: str
    origin: Origin
    retryable: bool = False


_TABLE: tuple[ErrorDef, ...] = (
    # --- the service interface's table -------------------------------------------------
    ErrorDef(
        "INVALID_URL",
        400,
        40001,
        "Destination URL malformed or without http:// or https://",
        Origin.SERVICE,
    ),
    ErrorDef(
        "INVALID_SLUG",
        400,
        40002,
        "Invalid characters or longer than 2,048 bytes",
        Origin.SERVICE,
    ),
    ErrorDef("RESERVED_SLUG", 400, 40003, "Slug reserved for system use", Origin.SERVICE),
    ErrorDef(
        "INVALID_EXPIRY",
        400,
        40004,
        "Expiry in the past or not valid ISO 8601",
        Origin.SERVICE,
    ),
    ErrorDef("UNAUTHORIZED", 401, 40101, "Missing or invalid bearer credential", Origin.SERVICE),
    ErrorDef("FORBIDDEN", 403, 40301, "Key lacks write permission", Origin.SERVICE),
    ErrorDef(
        "QUOTA_EXCEEDED",
        403,
        40302,
        "Plan's link limit or custom domain allocation exceeded",
        Origin.SERVICE,
    ),
    ErrorDef(
        "LINK_NOT_FOUND", 404, 40401, "Slug not present on the specified domain", Origin.SERVICE
    ),
    ErrorDef(
        "DOMAIN_NOT_FOUND",
        404,
        40402,
        "Custom domain not registered in this workspace",
        Origin.SERVICE,
    ),
    ErrorDef("SLUG_EXISTS", 409, 40901, "Slug already used on the chosen domain", Origin.SERVICE),
    ErrorDef(
        "RATE_LIMITED",
        429,
        42901,
        "Request rate above the plan's limit",
        Origin.SERVICE,
        retryable=True,
    ),
    ErrorDef(
        "INTERNAL_ERROR",
        500,
        50001,
        "Unexpected edge error; retry with exponential backoff",
        Origin.SERVICE,
        retryable=True,
    ),
    ErrorDef(
        "EDGE_UNAVAILABLE",
        503,
        50301,
        "Transient edge fault; retry after a short delay",
        Origin.SERVICE,
        retryable=True,
    ),
    # --- decided in DESIGN.md where the interface says "not shown" ---------------------
    ErrorDef(
        "INVALID_REQUEST",
        400,
        40000,
        "Bad JSON, wrong types, invalid role or host name, or a field that cannot change",
        Origin.DESIGN,
    ),
    ErrorDef("NOT_FOUND", 404, 40400, "Unknown route", Origin.DESIGN),
    ErrorDef("DOMAIN_EXISTS", 409, 40902, "Custom domain already registered", Origin.DESIGN),
    ErrorDef("MEMBER_EXISTS", 409, 40903, "Member or invitation already exists", Origin.DESIGN),
    # --- local: linksync's own findings; never sent by the service ---------------------
    ErrorDef("MISSING_URL", None, None, "Row has no destination URL", Origin.LOCAL),
    ErrorDef(
        "DUPLICATE_IN_SOURCE",
        None,
        None,
        "Same domain and slug declared twice in the sources",
        Origin.LOCAL,
    ),
    ErrorDef(
        "INVALID_FIELD",
        None,
        None,
        "A value has the wrong type or shape (tags, description, password, ...)",
        Origin.LOCAL,
    ),
    ErrorDef(
        "AMBIGUOUS_MATCH",
        None,
        None,
        "A row without slug matches several links with the same URL",
        Origin.LOCAL,
    ),
    ErrorDef(
        "DOMAIN_NOT_ACTIVE",
        None,
        None,
        "Custom domain is registered but not active yet",
        Origin.LOCAL,
    ),
    ErrorDef(
        "REPLACE_REQUIRED",
        None,
        None,
        "expiresAt differs and cannot be patched; run with --allow-replace",
        Origin.LOCAL,
    ),
    ErrorDef(
        "OWNED_BY_OTHER",
        None,
        None,
        "The link is marked by another owner's tag; the write would take it over "
        "(--allow-takeover)",
        Origin.LOCAL,
    ),
    ErrorDef(
        "STALE_PLAN",
        None,
        None,
        "The remote link changed since the saved plan was made",
        Origin.LOCAL,
    ),
    ErrorDef(
        "QUOTA_WOULD_EXCEED",
        None,
        None,
        "Creating this row would pass the plan's link quota",
        Origin.LOCAL,
    ),
    ErrorDef(
        "NOT_ATTEMPTED",
        None,
        None,
        "Row not attempted: an earlier failure stopped the run or this kind of write",
        Origin.LOCAL,
    ),
    ErrorDef(
        "TRANSPORT_ERROR",
        None,
        None,
        "No HTTP response: connection refused, reset or timed out",
        Origin.LOCAL,
        retryable=True,
    ),
    ErrorDef(
        "UNEXPECTED_RESPONSE",
        None,
        None,
        "The service answered something that is not its error shape (proxy page, empty body)",
        Origin.LOCAL,
    ),
)

ERRORS: dict[str, ErrorDef] = {e.constant: e for e in _TABLE}
"""Every constant, keyed by name."""

BY_CODE: dict[int, ErrorDef] = {e.code: e for e in _TABLE if e.code is not None}
"""Service and design constants, keyed by five-digit code."""


def lookup(constant: str) -> ErrorDef | None:
    return ERRORS.get(constant)


def http_status_of(constant: str) -> int | None:
    e = ERRORS.get(constant)
    return e.http_status if e else None


def code_of(constant: str) -> int | None:
    e = ERRORS.get(constant)
    return e.code if e else None


def is_retryable_status(status: int) -> bool:
    """Statuses the interface tells clients to retry (429, 500, 503), plus 502/504 from proxies."""
    return status in (429, 500, 502, 503, 504)


class LinksyncError(Exception):
    """Base of every exception linksync raises on purpose."""


class ConfigError(LinksyncError):
    """A profile, flag or environment value is wrong. Nothing was done."""


class SourceError(LinksyncError):
    """A source file cannot be read at all (missing, unreadable, wrong format)."""

    def __init__(self, message: str, *, path: str | None = None, sheet: str | None = None):
        super().__init__(message)
        self.path = path
        self.sheet = sheet


class ApiError(LinksyncError):
    """The service answered with an error (or, for TransportError, did not answer).

    Never carries the API key: messages are built from the response body, which the
    client redacts before raising.
    """

    def __init__(
        self,
        status: int | None,
        constant: str,
        message: str,
        *,
        code: int | None = None,
        request_id: str | None = None,
        retryable: bool | None = None,
        retry_after: float | None = None,
        attempts: int = 1,
    ):
        self.status = status
        self.constant = constant
        self.message = message
        known = ERRORS.get(constant)
        self.code = code if code is not None else (known.code if known else None)
        self.request_id = request_id
        if retryable is None:
            retryable = (known.retryable if known else False) or (
                status is not None and is_retryable_status(status)
            )
        self.retryable = retryable
        self.retry_after = retry_after
        self.attempts = attempts
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"HTTP {self.status} " if self.status is not None else ""
        rid = f" (requestId {self.request_id})" if self.request_id else ""
        return f"{where}{self.constant}: {self.message}{rid}"


class TransportError(ApiError):
    """No HTTP response at all. ``sent`` tells whether the request may have reached the
    service (a read timeout after sending) so a create can be confirmed before a retry."""

    def __init__(self, message: str, *, sent: bool = False, attempts: int = 1):
        super().__init__(None, "TRANSPORT_ERROR", message, retryable=True, attempts=attempts)
        self.sent = sent


class UnsafePlanError(LinksyncError):
    """The plan crosses a safety threshold (too many updates or deletes). Use --force."""


class LockError(LinksyncError):
    """Another linksync run holds the lock for this target."""
