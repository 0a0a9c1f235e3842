"""The request machinery under :class:`~linksync.api.client.LinkServiceClient`: one
transport, the shared rate limiter, the retry loop, error conversion, redaction,
and the call events subscribers receive (``linksync.api.events``).

A request is built here as plain values (``linksync.api.wire``: the URL, the headers,
the body as orjson bytes) and handed to the wire: on the network
``linksync.api.aio.NetworkTransport`` (aiohttp's pool; the proxy and the trust of
``linksync.api.network``), else the given httpx transport (the in-process sandbox, test
fakes) as an ``httpx.Request``. Every request goes to the one base URL with the same
headers, so httpx's client layer (URL merging, cookies, auth and redirect passes,
event hooks) had nothing to add; measured, it cost more client CPU than aiohttp
itself (docs/network.md). The retry loop runs the rules of ``RetryPolicy`` as tenacity
would, in a plain loop (tenacity's per-call set-up was a seventh of the client's CPU).
Only this module and client.py, network.py, wire.py and aio.py import httpx.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Self, TypeVar

import httpx
import orjson

from linksync._version import __version__
from linksync.api.answers import Answer
from linksync.api.defaults import DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT
from linksync.api.events import CallHook, CallHooks
from linksync.api.failures import error_from_answer, read_body, request_id_of
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
from linksync.api.urls import check_base_url
from linksync.api.wire import HttpxWire, Wire, request_url, url_root
from linksync.errors import ApiError, ConfigError, TransportError
from linksync.safe.secrets import redact

log = logging.getLogger("linksync.api")

T = TypeVar("T")
__all__ = ["Answer", "BaseClient", "CallState"]


class CallState:
    """What one call (all its attempts) has seen so far; for its event, the final HTTP
    status and requestId (None when no answer came), and whether an unknown outcome
    (a timeout after sending) was settled by reading the service (``confirmed``)."""

    __slots__ = (
        "_failures", "attempts", "confirmed", "first_sent_at", "request_id", "status",
        "unknown_outcome",
    )  # fmt: skip

    def __init__(self) -> None:  # one a call: plain slots, the counter made when needed
        self._failures: Counter[RetryClass] | None = None
        self.attempts = 0
        self.unknown_outcome = False
        self.first_sent_at: float | None = None
        self.status: int | None = None
        self.request_id: str | None = None
        self.confirmed = False

    @property
    def failures(self) -> Counter[RetryClass]:
        """The failed attempts of each retry class."""
        if self._failures is None:
            self._failures = Counter()
        return self._failures


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
        self._headers = {
            "Authorization": f"Bearer {api_key}",
            "Accept": "application/json",
            "Accept-Encoding": "gzip",
            "User-Agent": f"linksync/{__version__}",
        }
        self._json_headers = {**self._headers, "Content-Type": "application/json"}
        self._root = url_root(self.base_url)
        network = network or Network()
        #: The proxy the network requests go through (None: straight, or in-process).
        self.proxy = proxy_for(self.base_url, network.proxy) if transport is None else None
        if self.proxy:
            self._secrets = (api_key, *proxy_secrets(self.proxy))
        self._wire: Wire
        if transport is None:
            # The network: aiohttp's pool sized to the concurrency, the proxy httpx's
            # environment rules name (or the given one), SSL_CERT_FILE / SSL_CERT_DIR.
            from linksync.api.aio import NetworkTransport  # aiohttp only when used

            # The scheme in any case (``HTTPS://`` is https): the CA settings apply to it.
            proxy = (self.proxy or "").lower()
            tls = self._root.startswith("https:") or proxy.startswith("https:")
            self._wire = NetworkTransport(
                verify=ssl_context(network) if tls else None,  # plain http: no CA loaded
                concurrency=concurrency,
                timeout=timeout,
                proxy=self.proxy,
                headers=self._headers,
            )
        else:
            self._wire = HttpxWire(transport, timeout)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r}, concurrency={self.concurrency})"

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._wire.aclose()

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
        limiter = self.limiter
        sent_at = await limiter.enter()  # ``limiter.slot()``, without its object
        answered: Mapping[str, str] | None = None
        try:
            state.attempts += 1
            if state.first_sent_at is None:
                state.first_sent_at = self.retry.clock()
            self._stats.requests_by_kind[kind] += 1
            trace = ConnectionTrace()
            url = request_url(self._root, path, params)
            if body is None:
                sent, data = self._headers, None
            else:
                sent, data = self._json_headers, orjson.dumps(body)
            try:
                async with asyncio.timeout(self.timeout):
                    status, reason, headers, content = await self._wire.exchange(
                        method, url, sent, data, trace
                    )
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
            answered = headers
        finally:
            limiter.leave(answered, sent_at)
        if log.isEnabledFor(logging.DEBUG):
            log.debug("%s %s -> HTTP %s", method, path, status)  # the path holds no secret
        self._stats.responses_by_status[status] += 1
        if status == 407:  # a proxy's answer (http:// services): the service saw nothing
            reason = self.redact(reason or "Proxy Authentication Required")
            raise proxy_auth_error(self.proxy, status, reason, state.attempts)
        if 200 <= status < 300:
            # Looked at for an error object, and decoded, when read (``Answer``).
            attempts = state.attempts

            def failed(text: str, parsed: Any) -> ApiError:
                return self._error(status, headers, parsed, text, attempts)

            fail = failed if content else None  # an empty body is None
            return Answer(status, None, request_id_of(headers), content, fail)
        text, parsed = read_body(content)
        error = self._error(status, headers, parsed, text, state.attempts)
        if status == 429:
            self._stats.rate_limited += 1
            self.limiter.pause(self.retry.retry_after(error))
        raise error

    def _error(
        self, status: int, headers: Mapping[str, str], parsed: Any, text: str, attempts: int
    ) -> ApiError:
        """The ApiError of an answer that is not a success (a 2xx one is not retried)."""
        error = error_from_answer(
            status, headers, parsed, text, secrets=self._secrets, attempts=attempts
        )
        if 200 <= status < 300:
            error.retryable = False
        return error

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
        outermost, token = self._hooks.enter()
        try:
            while True:  # the policy's rules, as tenacity would run them (module doc)
                try:
                    value: T = await self._attempt(
                        method, path, kind, state, params, body, parse, confirm, gone_ok
                    )
                    break
                except ApiError as exc:
                    failed = self._failed(exc, state)
                    kind_ = classify(failed)
                    if kind_ is None or state.failures[kind_] > policy.budget(kind_):
                        if outermost:
                            self._hooks.ended(
                                kind, failed.status, failed.request_id, failed.attempts,
                                error=failed,
                            )  # fmt: skip
                        if failed is not exc:
                            raise failed from None
                        raise
                    delay = policy.delay(kind_, failed, state.failures[kind_])
                    self._stats.retries += 1
                    self._stats.wait_seconds += delay
                    log.info("retrying %s in %.2f s after %s", kind, delay, failed)
                await policy.sleep(delay)
        finally:
            self._hooks.leave(token)
        if outermost:
            self._hooks.ended(
                kind, state.status, state.request_id, state.attempts, state.confirmed, result=value
            )
        return value

    async def _attempt(
        self,
        method: str,
        path: str,
        kind: str,
        state: CallState,
        params: Mapping[str, Any] | None,
        body: Any,
        parse: Callable[[Answer], Awaitable[T]],
        confirm: Callable[[CallState], Awaitable[T | None]] | None,
        gone_ok: Callable[[ApiError], Awaitable[T]] | None,
    ) -> T:
        """One attempt of a call: the read that settles an unknown outcome first, then
        the request, its answer parsed."""
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

    def _failed(self, exc: ApiError, state: CallState) -> ApiError:
        """Count a failed attempt against its retry budget; the error to raise (a copy
        that counts every attempt of the call: a raised error is never changed)."""
        counted = exc if exc.attempts >= state.attempts else exc.with_attempts(state.attempts)
        cls = classify(counted)
        if cls is not None:
            state.failures[cls] += 1
        return counted
