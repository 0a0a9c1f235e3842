"""The one table of error constants, and the exception tree.

Every part of linksync names problems with the constants below: the client when the
service answers an error, local validation before any request, the sandbox when it
rejects a request, the executor when it stops a run, and the reports. Service
constants carry the HTTP status and the five-digit code the service uses; local
constants (problems only linksync can see, such as a duplicate row in a source file)
carry neither. What a failure stops for the rest of a run (``ErrorDef.stops``) and
are columns of the table too, and ``RAISES`` beside the exception tree names the
exception class an answer raises, so the executor, the retry policy and the exit codes
dispatch on types and table entries, never on strings. ``table`` is the package's lowest
module, ``tree`` reads it; the package imports nothing else of linksync.

Exception tree::

    LinksyncError                  base of everything linksync raises on purpose
    ├── ConfigError                bad profile, flag or environment (exit 2)
    │   └── SavedPlanMismatch      a saved plan made elsewhere, of other sources or options
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
    │   ├── TransportError         no HTTP response: connection refused/reset, timeout
    │   └── NetworkSetupError      the way to the service refused the run before any
    │       │                      request reached it (stops the run, never retried)
    │       ├── CertificateError   the service's TLS certificate did not verify
    │       └── ProxyAuthError     the proxy refused linksync's credentials (407)
    ├── UnsafePlanError            a plan crosses a safety threshold (use --force)
    │   └── MirrorRefused          a mirror's source declared nothing (no --force)
    ├── LockError                  another run holds the lock (exit 2)
    └── StoppedAfterWrites         an error or an interrupt ended a run that had
        └── InterruptedAfterWrites   written already (exit 1, or 130 when interrupted)

``ApiError.retryable`` is what the retry policy reads: transient errors (429, 500, 503,
transport) are retried, terminal ones are not. Errors are never changed once raised:
``ApiError.with_attempts`` makes a copy.

Layer: the lowest, beside ``model``, ``rules`` and ``safe``; it may import only those and
the standard library.
"""

from linksync.errors.table import (
    BY_CODE,
    ERRORS,
    Origin,
    Stop,
    code_of,
)
from linksync.errors.tree import (
    AccessError,
    ApiError,
    CertificateError,
    ConfigError,
    FileProblems,
    Forbidden,
    InterruptedAfterWrites,
    LinkNotFound,
    LinksyncError,
    LockError,
    MirrorRefused,
    NetworkSetupError,
    ProxyAuthError,
    QuotaExceeded,
    RateLimited,
    SavedPlanMismatch,
    SlugExists,
    SourceError,
    StoppedAfterWrites,
    TransportError,
    Unauthorized,
    UnsafePlanError,
    describe,
    is_retryable_status,
)

__all__ = [
    "BY_CODE",
    "ERRORS",
    "AccessError",
    "ApiError",
    "CertificateError",
    "ConfigError",
    "FileProblems",
    "Forbidden",
    "InterruptedAfterWrites",
    "LinkNotFound",
    "LinksyncError",
    "LockError",
    "MirrorRefused",
    "NetworkSetupError",
    "Origin",
    "ProxyAuthError",
    "QuotaExceeded",
    "RateLimited",
    "SavedPlanMismatch",
    "SlugExists",
    "SourceError",
    "Stop",
    "StoppedAfterWrites",
    "TransportError",
    "Unauthorized",
    "UnsafePlanError",
    "code_of",
    "describe",
    "is_retryable_status",
]
