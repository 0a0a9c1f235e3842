"""The request machinery under :class:`~linksync.api.client.LinkServiceClient`: one httpx
client, the shared rate limiter, the tenacity retry loop, error conversion, redaction,
and the call events subscribers receive (``linksync.api.events``).

The network goes through httpx's own transport (pool sized to the concurrency, env
proxies, ``SSL_CERT_FILE``: ``linksync.api.network``); a given transport (in-process
sandbox, test fakes) replaces it. Only this module, client.py, network.py import httpx.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Self, TypeVar

import httpx
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception

from linksync._version import __version__
from linksync.api.events import CallEvent, CallHook, CallHooks
from linksync.api.failures import error_from_answer, is_success, read_body, request_id_of
from linksync.api.limiter import RateLimiter
from linksync.api.network import (
    ConnectionTrace,
    Failure,
    Network,
    network_failure,
    proxy_auth_error,
    proxy_for,
    proxy_secrets,
    ssl_context,
)
from linksync.api.retry import RetryClass, RetryPolicy, classify
from linksync.api.types import ClientStats
from linksync.api.urls import check_base_url, clean_params
from linksync.errors import ApiError, ConfigError, TransportError
from linksync.rules.defaults import DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT
from linksync.safe.secrets import redact

log = logging.getLogger("linksync.api")

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Answer:
    """A successful answer: status, parsed JSON body (None when empty), requestId, and
    the body's bytes (``content``: what a list page is decoded from)."""

    status: int
    body: Any
    request_id: str | None
    content: bytes = b""


@dataclass(slots=True)
class CallState:
    """What one call (all its attempts) has seen so far; for its event, the final HTTP
    status and requestId (None when no answer came), and whether an unknown outcome
    (a timeout after sending) was settled by reading the service (``confirmed``)."""

    failures: Counter[RetryClass] = field(default_factory=Counter)
    attempts: int = 0
    unknown_outcome: bool = False
    first_sent_at: float | None = None
    status: int | None = None
    request_id: str | None = None
    confirmed: bool = False


class BaseClient:
    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        concurrency: int = DEFAULT_CONCURRENCY,
        timeout: float = DEFAULT_TIMEOUT,
        allow_insecure: bool = False,
        retry: RetryPolicy | None = None,
        network: Network | None = None,
    ) -> None:
        if (
            not api_key
            or any(c in api_key for c in "\r\n\t ")
            or not api_key.isprintable()
            or not api_key.isascii()
        ):
            raise ConfigError(
                "the API key is empty or holds whitespace, control or non-ASCII characters"
            )
        if concurrency < 1:
            raise ConfigError("concurrency must be at least 1")
        self.base_url = check_base_url(base_url, allow_insecure=allow_insecure)
        self.concurrency = concurrency
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self._stats = ClientStats()
        self.limiter = RateLimiter(concurrency, sleep=self.retry.sleep, clock=self.retry.clock)
        self._secrets: tuple[str, ...] = (api_key,)
        self._hooks = CallHooks()
        headers = {
            "Authorization": f"Bearer {api_key}",
            "Accept": "application/json",
            "Accept-Encoding": "gzip",
            "User-Agent": f"linksync/{__version__}",
        }
        network = network or Network()
        #: The proxy the network requests go through (None: straight, or in-process).
        self.proxy = proxy_for(self.base_url, network.proxy) if transport is None else None
        if self.proxy:
            self._secrets = (api_key, *proxy_secrets(self.proxy))
        self.limiter.entry.gate = transport is None  # httpx's own pool: api/poolentry.py
        # No transport given: httpx's own, with its environment rules (proxies, NO_PROXY,
        # SSL_CERT_FILE / SSL_CERT_DIR) and the pool sized to the concurrency.
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            transport=transport,
            headers=headers,
            timeout=httpx.Timeout(timeout),
            limits=httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency),
            follow_redirects=False,
            trust_env=True,
            proxy=network.proxy if transport is None else None,
            verify=ssl_context(network) if transport is None else True,
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r}, concurrency={self.concurrency})"

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    @property
    def stats(self) -> ClientStats:
        """Counters so far (the limiter's parking time included)."""
        self._stats.limiter_wait_seconds = self.limiter.waited
        return self._stats

    def set_queued(self, n: int) -> None:
        """How many more requests the caller holds back for later (a worker pool's
        queue): when they fit in what the rate window has left, pacing does not spread
        them. A hint only; the window's budget still holds."""
        self.limiter.queued = n

    def redact(self, text: str) -> str:
        return redact(text, self._secrets)

    def subscribe(self, hook: CallHook) -> Callable[[], None]:
        """Hand ``hook`` a ``CallEvent`` each time a call ends; returns the unsubscribe."""
        return self._hooks.subscribe(hook)

    def rate_limit_wait(self) -> float:
        """Seconds the shared limiter will still hold every request (0 when none)."""
        return max(0.0, self.limiter.state().resume_at - self.retry.clock())

    # --- one request --------------------------------------------------------------------

    async def _send(
        self,
        method: str,
        path: str,
        kind: str,
        state: CallState,
        params: Mapping[str, Any] | None,
        body: Any,
    ) -> Answer:
        async with self.limiter.slot() as slot:
            state.attempts += 1
            if state.first_sent_at is None:
                state.first_sent_at = self.retry.clock()
            self._stats.requests_by_kind[kind] += 1
            trace, entry = ConnectionTrace(), self.limiter.entry
            try:
                async with asyncio.timeout(self.timeout), entry.enter(trace) as extensions:
                    resp = await self._http.request(
                        method, path, params=clean_params(params), json=body, extensions=extensions
                    )
                status, headers, content = resp.status_code, resp.headers, resp.content
            except TimeoutError:
                what = f"no answer within {self.timeout:g} s"
                raise self._transport_error(kind, Failure(what, True), state) from None
            except (httpx.TransportError, OSError) as exc:
                failure = network_failure(
                    exc, base_url=self.base_url, proxy=self.proxy, attempts=state.attempts,
                    trace=trace, redact=self.redact,
                )  # fmt: skip
                if isinstance(failure, ApiError):  # terminal: no retry
                    self._stats.transport_errors += 1
                    raise failure from None
                raise self._transport_error(kind, failure, state) from None
            slot.observe(headers)
        if log.isEnabledFor(logging.DEBUG):
            log.debug("%s %s -> HTTP %s", method, path, status)  # the path holds no secret
        self._stats.responses_by_status[status] += 1
        if status == 407:  # a proxy's answer (http:// services): the service saw nothing
            reason = self.redact(resp.reason_phrase or "Proxy Authentication Required")
            raise proxy_auth_error(self.proxy, status, reason, state.attempts)
        text, parsed = read_body(content)
        if is_success(status, text, parsed):
            return Answer(status, parsed, request_id_of(headers), content)
        error = error_from_answer(
            status,
            headers,
            parsed,
            text,
            secrets=self._secrets,
            attempts=state.attempts,
        )
        if 200 <= status < 300:
            error.retryable = False
        if status == 429:
            self._stats.rate_limited += 1
            self.limiter.pause(self.retry.retry_after(error))
        raise error

    def _transport_error(self, kind: str, failure: Failure, state: CallState) -> TransportError:
        self._stats.transport_errors += 1
        stage = "after sending, outcome unknown" if failure.sent else "before sending"
        message = self.redact(f"{kind}: {failure.what} ({stage})")
        return TransportError(
            message, sent=failure.sent, attempts=state.attempts, reused=failure.reused
        )

    # --- one call: attempts under the retry policy, then its event ---------------------

    async def _call(
        self,
        method: str,
        path: str,
        *,
        kind: str,
        parse: Callable[[Answer], Awaitable[T]],
        params: Mapping[str, Any] | None = None,
        body: Any = None,
        confirm: Callable[[CallState], Awaitable[T | None]] | None = None,
        gone_ok: Callable[[ApiError], Awaitable[T]] | None = None,
    ) -> T:
        """One call: send with retries, within the policy's budgets. After an unknown
        outcome (a transport error once the request was sent) ``confirm`` reads the
        service and returns the result when the first send did take effect; ``gone_ok``
        turns a 404 after an unknown outcome into the result (a delete that did delete).

        When the call ends, its ``CallEvent`` goes to the caller's ``call_scope`` and to
        every subscribed hook (not for the calls a call makes for itself)."""
        state, policy = CallState(), self.retry

        async def attempt() -> T:
            if state.unknown_outcome and confirm is not None:
                found = await confirm(state)
                if found is not None:
                    self._stats.confirmations += 1
                    state.confirmed = True
                    return found
            try:
                answer = await self._send(method, path, kind, state, params, body)
            except ApiError as exc:
                if state.unknown_outcome and gone_ok is not None and exc.status == 404:
                    self._stats.confirmations += 1
                    state.status, state.request_id = exc.status, exc.request_id
                    state.confirmed = True
                    return await gone_ok(exc)
                # sent but unanswered, or a 500/502/504: it may still have taken effect
                state.unknown_outcome = exc.outcome_unknown
                raise
            state.status, state.request_id = answer.status, answer.request_id
            return await parse(answer)

        async def counted() -> T:
            try:
                return await attempt()
            except ApiError as exc:
                failed = self._failed(exc, state)
                if failed is not exc:
                    raise failed from None
                raise

        def stop(rs: RetryCallState) -> bool:
            exc = rs.outcome.exception() if rs.outcome else None
            kind_ = classify(exc) if exc else None
            return kind_ is None or state.failures[kind_] > policy.budget(kind_)

        def wait(rs: RetryCallState) -> float:
            exc = rs.outcome.exception() if rs.outcome else None
            kind_ = classify(exc) if exc else None
            if exc is None or kind_ is None:
                return 0.0
            return policy.delay(kind_, exc, state.failures[kind_])

        def before_sleep(rs: RetryCallState) -> None:
            self._stats.retries += 1
            self._stats.wait_seconds += rs.upcoming_sleep
            exc = rs.outcome.exception() if rs.outcome else None
            log.info("retrying %s in %.2f s after %s", kind, rs.upcoming_sleep, exc)

        retrying = AsyncRetrying(
            sleep=policy.sleep,
            stop=stop,
            wait=wait,
            retry=retry_if_exception(lambda e: classify(e) is not None),
            before_sleep=before_sleep,
            reraise=True,
        )
        with self._hooks.call() as outermost:
            try:
                value: T = await retrying(counted)
            except ApiError as exc:
                if outermost:
                    self._hooks.emit(
                        CallEvent(kind, exc.status, exc.request_id, exc.attempts, error=exc)
                    )
                raise
        if outermost:
            event = CallEvent(
                kind, state.status, state.request_id, state.attempts, state.confirmed, result=value
            )
            self._hooks.emit(event)
        return value

    def _failed(self, exc: ApiError, state: CallState) -> ApiError:
        """Count a failed attempt against its retry budget; the error to raise (a copy
        that counts every attempt of the call: a raised error is never changed)."""
        counted = exc if exc.attempts >= state.attempts else exc.with_attempts(state.attempts)
        cls = classify(counted)
        if cls is not None:
            state.failures[cls] += 1
        return counted
