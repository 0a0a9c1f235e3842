"""The retry policy of the interface, as a small value the client's retry loop reads.

- 429 RATE_LIMITED: wait Retry-After (5 s when absent) plus up to 1 s of random jitter;
  at most 3 retries. The client also parks every other task for the same time.
- 500 INTERNAL_ERROR: exponential backoff (0.5, 1, 2, 4 s ... capped) plus jitter.
- 502/503/504: a short delay (Retry-After when the answer carries one).
- Transport errors (connection refused or dropped, timeouts): short exponential delay.
  A create whose outcome is unknown is confirmed by reading before it is re-sent (see
  ``LinkServiceClient.create_link``).
- A request that went out on a kept-alive connection the server closed without a byte
  of answer (``TransportError.reused``: the race with a server's keep-alive timeout or
  request limit, known and benign): retried at once, on a budget of its own (8), since
  each retry is a fresh draw of the same race (the closed connection is gone from the
  pool). Its outcome still counts as unknown, so a create is confirmed first.
- Everything else (400, 401, 403, 404, 409, unexpected shapes) is terminal.

``sleep``, ``random`` and ``clock`` are injectable so tests run fast without patching.
"""

from __future__ import annotations

import asyncio
import random as _random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum

from linksync.errors import ApiError, RateLimited, TransportError


class RetryClass(StrEnum):
    RATE_LIMITED = "rate_limited"
    SERVER_ERROR = "server_error"
    UNAVAILABLE = "unavailable"
    TRANSPORT = "transport"
    REUSED_CONNECTION = "reused_connection"


def classify(exc: BaseException) -> RetryClass | None:
    """Which retry budget an error draws on; None when it must not be retried."""
    if not isinstance(exc, ApiError) or not exc.retryable:
        return None
    if isinstance(exc, TransportError):
        return RetryClass.REUSED_CONNECTION if exc.reused else RetryClass.TRANSPORT
    if exc.status == 429 or isinstance(exc, RateLimited):
        return RetryClass.RATE_LIMITED
    if exc.status == 500:
        return RetryClass.SERVER_ERROR
    return RetryClass.UNAVAILABLE


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Budgets count retries (not attempts) per class of error within one call."""

    rate_limited_retries: int = 3
    server_error_retries: int = 4
    unavailable_retries: int = 4
    transport_retries: int = 3
    reused_connection_retries: int = 8
    default_retry_after: float = 5.0
    max_retry_after: float = 120.0
    jitter: float = 1.0
    backoff_base: float = 0.5
    backoff_max: float = 20.0
    unavailable_delay: float = 1.0
    transport_delay: float = 0.5
    #: How far back (seconds) a link's createdAt may lie before the first send and still
    #: count as made by an unconfirmed slugless create (clock difference with the service).
    created_tolerance: float = 120.0
    sleep: Callable[[float], Awaitable[None]] = field(default=asyncio.sleep, repr=False)
    random: Callable[[], float] = field(default=_random.random, repr=False)
    clock: Callable[[], float] = field(default=time.time, repr=False)

    def budget(self, kind: RetryClass) -> int:
        return {
            RetryClass.RATE_LIMITED: self.rate_limited_retries,
            RetryClass.SERVER_ERROR: self.server_error_retries,
            RetryClass.UNAVAILABLE: self.unavailable_retries,
            RetryClass.TRANSPORT: self.transport_retries,
            RetryClass.REUSED_CONNECTION: self.reused_connection_retries,
        }[kind]

    def retry_after(self, exc: ApiError) -> float:
        """Seconds a 429 asks for: Retry-After, or 5 s when absent (capped)."""
        announced = exc.retry_after if exc.retry_after is not None else self.default_retry_after
        return min(max(0.0, announced), self.max_retry_after)

    def delay(self, kind: RetryClass, exc: BaseException, failures: int) -> float:
        """Seconds to wait before retry number ``failures`` of this class (1-based)."""
        n = max(1, failures)
        if kind is RetryClass.REUSED_CONNECTION:
            return 0.0  # nothing to wait for: the next attempt takes another connection
        if kind is RetryClass.RATE_LIMITED and isinstance(exc, ApiError):
            return self.retry_after(exc) + self.random() * self.jitter
        if kind is RetryClass.SERVER_ERROR:
            step = min(self.backoff_max, self.backoff_base * 2.0 ** (n - 1))
            return step + self.random() * self.backoff_base
        if kind is RetryClass.UNAVAILABLE:
            announced = exc.retry_after if isinstance(exc, ApiError) else None
            base = self.unavailable_delay if announced is None else announced
            return min(base, self.max_retry_after) + self.random() * self.unavailable_delay / 2
        step = min(self.backoff_max, self.transport_delay * 2.0 ** (n - 1))
        return step + self.random() * self.transport_delay
