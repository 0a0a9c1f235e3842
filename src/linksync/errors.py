"""The one table of error constants, and the exception tree.

Every part of linksync names problems with the constants below: the client when the
service answers an error, local validation before any request, the sandbox when it
rejects a request, the executor when it stops a run, and the reports. Service
constants carry the HTTP status and the five-digit code the service uses; local
constants (problems only linksync can see, such as a duplicate row in a source file)
carry neither. What a failure stops for the rest of a run (``ErrorDef.stops``) and
which exception class an answer raises (``ErrorDef.error``) are columns of the table
too, so the executor, the retry policy and the exit codes dispatch on types and table
entries, never on strings.

Exception tree::

    LinksyncError                  base of everything linksync raises on purpose
    ├── ConfigError                bad profile, flag or environment (exit 2)
    ├── SourceError                a source file cannot be read at all (file-level)
    │   └── FileProblems           sources with errors that belong to no row (exit 1)
    ├── ApiError                   the service answered an error, or never answered
    │   ├── AccessError            the key may not do this: nothing after it succeeds
    │   │   ├── Unauthorized       401 UNAUTHORIZED (stops the run)
    │   │   └── Forbidden          403 FORBIDDEN (stops every write)
    │   ├── QuotaExceeded          403 QUOTA_EXCEEDED (stops creates)
    │   ├── LinkNotFound           404 LINK_NOT_FOUND
    │   ├── SlugExists             409 SLUG_EXISTS (another writer got there)
    │   ├── RateLimited            429 RATE_LIMITED (retried after Retry-After)
    │   └── TransportError         no HTTP response: connection refused/reset, timeout
    ├── UnsafePlanError            a plan crosses a safety threshold (use --force)
    ├── LockError                  another run holds the lock (exit 2)
    └── StoppedAfterWrites         an error or an interrupt ended a run that had
        └── InterruptedAfterWrites   written already (exit 1, or 130 when interrupted)

``ApiError.retryable`` is what the retry policy reads: transient errors (429, 500, 503,
transport) are retried, terminal ones are not. Errors are never changed once raised:
``ApiError.with_attempts`` makes a copy.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from linksync.model import Problem


class Origin(StrEnum):
    """Where a constant comes from."""

    SERVICE = "service"  # in the service interface's error table
    DESIGN = "design"  # decided in DESIGN.md where the interface says "not shown"
    LOCAL = "local"  # found by linksync itself, never sent by the service


class Stop(StrEnum):
    """What a failure stops for the rest of a run (the executor reads it)."""

    RUN = "run"  # nothing more is sent
    WRITES = "writes"  # no write can succeed: the run stops too
    CREATES = "creates"  # no more creates or replaces; updates and deletes go on


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


class FileProblems(SourceError):
    """The sources have an error that belongs to no row (a wrong YAML structure, a
    sheet that cannot be read): nothing was applied. ``problems`` are all of them."""

    def __init__(
        self, message: str, problems: Sequence[Problem], *, path: str | None = None
    ) -> None:
        super().__init__(message, path=path)
        self.problems = tuple(problems)


def is_retryable_status(status: int) -> bool:
    """Statuses the interface tells clients to retry (429, 500, 503), plus 502/504 from proxies."""
    return status in (429, 500, 502, 503, 504)


class ApiError(LinksyncError):
    """The service answered with an error (or, for TransportError, did not answer).

    Never carries the API key: messages are built from the response body, which the
    client redacts before raising. ``ApiError.of`` builds the class the table names
    for the constant (``Unauthorized`` for UNAUTHORIZED...).
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

    @classmethod
    def of(cls, status: int | None, constant: str, message: str, **kw: Any) -> ApiError:
        """The error of the class the table names for ``constant``."""
        known = ERRORS.get(constant)
        error_class = known.error if known is not None else ApiError
        return error_class(status, constant, message, **kw)

    @property
    def outcome_unknown(self) -> bool:
        """Whether the failed request may still have taken effect: sent but unanswered
        (a ``TransportError`` after sending), or a 500 / 502 / 504 (the edge or a proxy
        may fail after the work was done)."""
        return self.status in (500, 502, 504)

    @property
    def stops(self) -> Stop | None:
        """What this failure stops for the rest of a run (from the table)."""
        known = ERRORS.get(self.constant)
        return known.stops if known is not None else None

    def with_attempts(self, attempts: int) -> ApiError:
        """A copy of this error that counts ``attempts`` requests (the original is
        never changed once raised)."""
        twin = copy.copy(self)
        twin.attempts = attempts
        return twin

    def __copy__(self) -> ApiError:
        twin = self.__class__.__new__(self.__class__)
        twin.__dict__.update(self.__dict__)
        twin.args = self.args
        return twin

    def __str__(self) -> str:
        where = f"HTTP {self.status} " if self.status is not None else ""
        rid = f" (requestId {self.request_id})" if self.request_id else ""
        return f"{where}{self.constant}: {self.message}{rid}"


class AccessError(ApiError):
    """The key may not do this (401, or 403 FORBIDDEN): nothing after it can succeed,
    so a run stops, and a run that wrote nothing ends with exit 2."""


class Unauthorized(AccessError):
    """401 UNAUTHORIZED: the key is missing or refused."""


class Forbidden(AccessError):
    """403 FORBIDDEN: the key may read but not write."""


class QuotaExceeded(ApiError):
    """403 QUOTA_EXCEEDED: the plan's link (or domain) allocation is used up."""


class LinkNotFound(ApiError):
    """404 LINK_NOT_FOUND."""


class SlugExists(ApiError):
    """409 SLUG_EXISTS: another writer created the slug first."""


class RateLimited(ApiError):
    """429 RATE_LIMITED: retried after Retry-After."""


class TransportError(ApiError):
    """No HTTP response at all. ``sent`` tells whether the request may have reached the
    service (a read timeout after sending) so a create can be confirmed before a retry."""

    def __init__(
        self,
        message: str,
        *,
        sent: bool = False,
        attempts: int = 1,
        retryable: bool = True,
    ):
        super().__init__(None, "TRANSPORT_ERROR", message, retryable=retryable, attempts=attempts)
        self.sent = sent

    @property
    def outcome_unknown(self) -> bool:
        return self.sent


class UnsafePlanError(LinksyncError):
    """The plan crosses a safety threshold (too many updates or deletes). Use --force."""


class LockError(LinksyncError):
    """Another linksync run holds the lock for this target."""


class StoppedAfterWrites(LinksyncError):
    """An error ended a run after it had written to the workspace. The message says
    what was written (``written``) and where the journal is; ``__cause__`` is the
    error itself. Never exit 2: the workspace changed."""

    def __init__(self, message: str, *, written: str, journal: str | None = None):
        super().__init__(message)
        self.written = written
        self.journal = journal


class InterruptedAfterWrites(StoppedAfterWrites):
    """Interrupted a second time (Ctrl-C while the run finished its requests in
    flight) after writing: exit 130, the message says what was written."""


@dataclass(frozen=True, slots=True)
class ErrorDef:
    """One constant: HTTP status and code (service constants), what it means, where it
    comes from, whether it is retried, what it stops for the rest of a run (``stops``,
    with ``stop_reason``: the words of the summary), and the exception class an answer
    carrying it raises (``error``)."""

    constant: str
    http_status: int | None
    code: int | None
    meaning: str
    origin: Origin
    retryable: bool = False
    stops: Stop | None = None
    stop_reason: str | None = None
    error: type[ApiError] = ApiError


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
    ErrorDef(
        "UNAUTHORIZED",
        401,
        40101,
        "Missing or invalid bearer credential",
        Origin.SERVICE,
        stops=Stop.RUN,
        stop_reason="the API key was refused (401 UNAUTHORIZED)",
        error=Unauthorized,
    ),
    ErrorDef(
        "FORBIDDEN",
        403,
        40301,
        "Key lacks write permission",
        Origin.SERVICE,
        stops=Stop.WRITES,
        stop_reason="the API key may not write (403 FORBIDDEN)",
        error=Forbidden,
    ),
    ErrorDef(
        "QUOTA_EXCEEDED",
        403,
        40302,
        "Plan's link limit or custom domain allocation exceeded",
        Origin.SERVICE,
        stops=Stop.CREATES,
        stop_reason="the link quota is used up (403 QUOTA_EXCEEDED)",
        error=QuotaExceeded,
    ),
    ErrorDef(
        "LINK_NOT_FOUND",
        404,
        40401,
        "Slug not present on the specified domain",
        Origin.SERVICE,
        error=LinkNotFound,
    ),
    ErrorDef(
        "DOMAIN_NOT_FOUND",
        404,
        40402,
        "Custom domain not registered in this workspace",
        Origin.SERVICE,
    ),
    ErrorDef(
        "SLUG_EXISTS",
        409,
        40901,
        "Slug already used on the chosen domain",
        Origin.SERVICE,
        error=SlugExists,
    ),
    ErrorDef(
        "RATE_LIMITED",
        429,
        42901,
        "Request rate above the plan's limit",
        Origin.SERVICE,
        retryable=True,
        error=RateLimited,
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
        "EMPTY_SOURCE",
        None,
        None,
        "A source holds nothing to read (an empty file or sheet, a header without rows, "
        "a folder without link files) or files a folder source does not read",
        Origin.LOCAL,
    ),
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
        "INTERRUPTED",
        None,
        None,
        "The run was interrupted (Ctrl-C, or cancelled from the page): no new requests, "
        "those in flight finished",
        Origin.LOCAL,
        stops=Stop.RUN,
        stop_reason="the run was interrupted",
    ),
    ErrorDef(
        "TRANSPORT_ERROR",
        None,
        None,
        "No HTTP response: connection refused, reset or timed out",
        Origin.LOCAL,
        retryable=True,
        error=TransportError,
    ),
    ErrorDef(
        "UNEXPECTED_RESPONSE",
        None,
        None,
        "The service answered something that is not its error shape (proxy page, empty body)",
        Origin.LOCAL,
    ),
    # --- what ended a whole target of a run over several (linksync.outcome) ------------
    *(
        ErrorDef(constant, None, None, meaning, Origin.LOCAL)
        for constant, meaning in (
            ("CONFIG_ERROR", "A profile, target, flag, variable or output is wrong: nothing done"),
            ("LOCK_HELD", "Another linksync run holds the lock of this workspace: nothing done"),
            ("UNSAFE_PLAN", "The plan crosses a safety threshold: nothing done; --force to apply"),
            ("FILE_ERROR", "A file the run reads or writes cannot be used (missing, no access)"),
            ("UNEXPECTED_ERROR", "linksync failed in a way it does not foresee (a bug)"),
        )
    ),
)

ERRORS: dict[str, ErrorDef] = {e.constant: e for e in _TABLE}
"""Every constant, keyed by name."""

BY_CODE: dict[int, ErrorDef] = {e.code: e for e in _TABLE if e.code is not None}
"""Service and design constants, keyed by five-digit code."""


def code_of(constant: str) -> int | None:
    e = ERRORS.get(constant)
    return e.code if e else None


def describe(exc: BaseException) -> str:
    """One line for a person: an API error with its constant, status, code and
    requestId; a file that cannot be used with its name and the system's reason."""
    if isinstance(exc, ApiError):
        rid = f" (requestId {exc.request_id})" if exc.request_id else ""
        status = f"HTTP {exc.status}, " if exc.status is not None else ""
        return f"{exc.constant}: {exc.message} [{status}code {exc.code}]{rid}"
    if isinstance(exc, OSError) and not isinstance(exc, LinksyncError):
        where = f" {exc.filename}" if exc.filename else ""
        return f"cannot use{where}: {exc.strerror or exc}"
    return str(exc)
