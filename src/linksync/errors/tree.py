"""The exception tree (see ``linksync.errors``). An error looks its constant up in the
one table (``linksync.errors.table``) for its code, whether it is retried and what it
stops; ``RAISES`` names, for each constant that has its own, the class of this tree an
answer carrying it raises. Imports only the table: the model's problems an error
carries are read through ``Finding`` (the model imports this package, not the reverse).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from linksync.errors.table import ERRORS, Stop


class Finding(Protocol):
    """What an error reads of a problem it carries (``linksync.model.Problem`` is one):
    the constant naming its cause, and its severity (``"error"`` or ``"warning"``)."""

    @property
    def constant(self) -> str: ...

    @property
    def severity(self) -> str: ...


class LinksyncError(Exception):
    """Base of every exception linksync raises on purpose."""


class ConfigError(LinksyncError):
    """A profile, flag or environment value is wrong. Nothing was done."""


class SavedPlanMismatch(ConfigError):
    """A saved plan does not fit the apply given it (PLAN_MISMATCH): another workspace,
    a source that is not the plan's or changed since, an option it was not made with.
    Nothing was done."""


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
        self, message: str, problems: Sequence[Finding], *, path: str | None = None
    ) -> None:
        super().__init__(message, path=path)
        self.problems = tuple(problems)


def is_retryable_status(status: int) -> bool:
    """Statuses the interface tells clients to retry (429, 500, 503), plus 502/504 from proxies."""
    return status in (429, 500, 502, 503, 504)


class ApiError(LinksyncError):
    """The service answered with an error (or, for TransportError, did not answer).

    Never carries the API key: messages are built from the response body, which the
    client redacts before raising. ``ApiError.of`` builds the class ``RAISES`` names
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
        """The error of the class ``RAISES`` names for ``constant``."""
        return RAISES.get(constant, ApiError)(status, constant, message, **kw)

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
        twin = self.__class__.__new__(self.__class__)
        twin.__dict__.update(self.__dict__)
        twin.args = self.args
        twin.attempts = attempts
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
    service (a read timeout after sending) so a create can be confirmed before a retry;
    ``reused`` that it went out on a kept-alive connection the server closed without
    answering (a race with the server's keep-alive limits, retried on its own budget)."""

    def __init__(
        self,
        message: str,
        *,
        sent: bool = False,
        attempts: int = 1,
        retryable: bool = True,
        reused: bool = False,
    ):
        super().__init__(None, "TRANSPORT_ERROR", message, retryable=retryable, attempts=attempts)
        self.sent = sent
        self.reused = reused

    @property
    def outcome_unknown(self) -> bool:
        return self.sent


class NetworkSetupError(ApiError):
    """The way to the service refused the run before any request reached it (its
    certificate, the proxy's credentials): nothing reaches the service until the setup
    is fixed, so it is not retried and a run stops (exit 2 when nothing was written)."""


class CertificateError(NetworkSetupError):
    """The service's TLS certificate did not verify (CERTIFICATE_ERROR). The message
    names the host, the reason and the fixes."""


class ProxyAuthError(NetworkSetupError):
    """The proxy refused linksync's credentials, or asked for some and none were given
    (PROXY_AUTH_ERROR: a 407, or a 401 to CONNECT). The message names the proxy
    (never its credentials) and where to put them."""


class UnsafePlanError(LinksyncError):
    """The plan crosses a safety threshold (too many updates or deletes). Use --force."""


class MirrorRefused(UnsafePlanError):
    """A mirror run refused before any write: one of its sources could not be read,
    declared nothing, or has a file-level problem, so the deletes it would plan follow
    from no declaration. ``--force`` does not pass it (it is for the thresholds).
    ``problems`` are the file-level problems that refused it."""

    def __init__(self, message: str, problems: Sequence[Finding] = ()) -> None:
        super().__init__(message)
        self.problems = tuple(problems)


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


RAISES: dict[str, type[ApiError]] = {
    "UNAUTHORIZED": Unauthorized,
    "FORBIDDEN": Forbidden,
    "QUOTA_EXCEEDED": QuotaExceeded,
    "LINK_NOT_FOUND": LinkNotFound,
    "SLUG_EXISTS": SlugExists,
    "RATE_LIMITED": RateLimited,
    "TRANSPORT_ERROR": TransportError,
    "CERTIFICATE_ERROR": CertificateError,
    "PROXY_AUTH_ERROR": ProxyAuthError,
}
"""The class an answer carrying each of these constants raises (``ApiError.of``); any
other constant raises ``ApiError``."""


def describe(exc: BaseException) -> str:
    """One line for a person: an API error with its constant, status, code and
    requestId; a file that cannot be used with its name and the system's reason."""
    if isinstance(exc, ApiError):
        rid = f" (requestId {exc.request_id})" if exc.request_id else ""
        parts = [f"HTTP {exc.status}"] if exc.status is not None else []
        parts += [f"code {exc.code}"] if exc.code is not None else []
        tail = f" [{', '.join(parts)}]" if parts else ""
        return f"{exc.constant}: {exc.message}{tail}{rid}"
    if isinstance(exc, OSError) and not isinstance(exc, LinksyncError):
        where = f" {exc.filename}" if exc.filename else ""
        return f"cannot use{where}: {exc.strerror or exc}"
    return str(exc)
