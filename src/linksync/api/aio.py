"""The network transport: the client's requests over aiohttp's connection pool and HTTP
parser (on ``httpx_aiohttp.AiohttpTransport``'s set-up, made for the client's needs).

Why aiohttp: measured with ``benchmarks/transport.py`` (figures in docs/network.md),
httpx's own transport (httpcore) costs several times the client CPU per request of
aiohttp's, most of it in its connection pool's assignment passes; aiohttp's pool hands a
request an idle connection in one step.

What this class adds to ``httpx_aiohttp.AiohttpTransport``:

- **One session, set up once**: the pool sized to the concurrency, idle connections
  kept 5 s (as httpx's ``keepalive_expiry``; ``api/inflight.py`` counts on it), the TLS
  context (``api/network.ssl_context``), the proxy (resolved by httpx's rules in
  ``api/network.proxy_for``; its credentials go as the ``Proxy-Authorization`` header
  httpx makes of them), the timeouts and, straight to the service, the client's headers
  (the session's own: a request that sends just those hands aiohttp nothing to merge),
  not rebuilt per request.
- **No retry of its own**: aiohttp sends a GET, PUT or DELETE again once when a
  kept-alive connection was closed under it; the client's retry policy does that, counts
  the attempts and confirms unknown outcomes, so the session's retry is off.
- **Errors as httpx names them**, so ``api/network.network_failure`` tells "not sent"
  from "sent, outcome unknown" the same way for every transport: a failed connect
  (refused, DNS, certificate, unreachable proxy) is ``httpx.ConnectError`` (its cause
  chain holds the ``ssl.SSLCertVerificationError``), a proxy refusing the ``CONNECT`` is
  ``httpx.ProxyError("407 Proxy Authentication Required")`` as httpcore words it, a
  connection closed without an answer ``httpx.RemoteProtocolError``, a reset
  ``httpx.ReadError``, a socket timeout ``httpx.ReadTimeout``.
- **The attempt's ``ConnectionTrace``** (``api/network.py``): whether the connection
  was opened for it or kept alive from an earlier request (the connector notes it),
  and whether the head of an answer came.
- **A closed idle connection is not reused**: before a kept-alive connection takes a
  request, its socket is polled (as httpcore does): when the server closed it
  meanwhile (a keep-alive timeout of a few ms) and the event loop has not read that
  yet, it is dropped and another taken; what still races is the kept-alive race the
  client's retry policy handles.
- **The body read in one piece** (``await response.read()``), not in 16 KB chunks.
"""

from __future__ import annotations

import base64
import os
import select
import ssl
import weakref
from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any

import aiohttp
import httpx
import yarl
from httpx_aiohttp import AiohttpTransport

from linksync.api.network import ConnectionTrace

#: Idle connections are closed after this long (s), like httpx's ``keepalive_expiry``.
KEEPALIVE_EXPIRY = 5.0

#: The attempt a task is sending (its ``ConnectionTrace``), for ``_Connector``.
_ATTEMPT: ContextVar[ConnectionTrace | None] = ContextVar("linksync_attempt", default=None)


class _Connector(aiohttp.TCPConnector):
    """aiohttp's connector, noting on the attempt under way whether the connection it
    hands out was opened for it or kept alive from an earlier request (what a
    ``TraceConfig`` would tell, at a fraction of its cost: aiohttp makes and sends a
    dozen trace events a request once any trace is configured, about 80 us)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._known: weakref.WeakSet[Any] = weakref.WeakSet()

    async def connect(self, req: Any, traces: Any, timeout: Any) -> aiohttp.connector.Connection:
        while True:
            conn = await super().connect(req, traces, timeout)
            protocol = conn.protocol
            if protocol is None:
                return conn
            if protocol in self._known:
                if _closed_meanwhile(protocol.transport):
                    conn.close()  # dropped from the pool: take another, or a new one
                    continue
                return conn
            self._known.add(protocol)
            attempt = _ATTEMPT.get()
            if attempt is not None:
                attempt.opened = True
            return conn


def _closed_meanwhile(transport: Any) -> bool:
    """Whether an idle kept-alive connection has something to read: the server closed
    it (or sent what nobody asked for) since its last answer, and the event loop has
    not read it yet. httpcore polls an idle connection the same way before reusing it."""
    sock = transport.get_extra_info("socket") if transport is not None else None
    if sock is None:
        return False
    try:
        if hasattr(select, "poll"):  # no limit on the descriptor's number (select's 1024)
            poller = select.poll()
            poller.register(sock, select.POLLIN)
            return bool(poller.poll(0))
        readable, _, _ = select.select([sock], [], [], 0)  # Windows
    except (OSError, ValueError):  # closed under us
        return True
    return bool(readable)


def httpx_error(exc: BaseException) -> httpx.TransportError:
    """The httpx error for an aiohttp one (raised ``from`` it by the caller)."""
    text = str(exc)
    if isinstance(exc, aiohttp.ClientHttpProxyError):  # the proxy refused the CONNECT
        return httpx.ProxyError(f"{exc.status} {exc.message}".strip())
    if isinstance(exc, aiohttp.ConnectionTimeoutError):
        return httpx.ConnectTimeout(text)
    if isinstance(exc, aiohttp.ClientConnectorError):  # refused, DNS, TLS, proxy down
        return httpx.ConnectError(_connect_failure(exc))
    if isinstance(exc, aiohttp.ServerTimeoutError | TimeoutError):
        return httpx.ReadTimeout(text or "timed out")
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        return httpx.RemoteProtocolError("Server disconnected without sending a response.")
    if isinstance(exc, aiohttp.ClientOSError | OSError):
        return httpx.ReadError(text or type(exc).__name__)
    return httpx.RemoteProtocolError(text or type(exc).__name__)  # a malformed answer


def _connect_failure(exc: aiohttp.ClientConnectorError) -> str:
    """Why a connection could not be opened, in a few words: "cannot connect to
    host:port: Connection refused" (the proxy's when it is the proxy)."""
    error = exc.os_error
    if error.errno is not None and error.errno > 0:
        reason = os.strerror(error.errno)
    else:
        reason = error.strerror or str(error) or type(error).__name__
    if isinstance(exc, aiohttp.ClientProxyConnectionError):
        return f"cannot connect to the proxy: {reason}"
    return f"cannot connect to {exc.host}:{exc.port}: {reason}"


def _proxy_authorization(proxy: httpx.Proxy | None) -> dict[str, str] | None:
    """``Proxy-Authorization: Basic ...`` of the proxy URL's user and password (percent
    decoded, UTF-8), as httpcore makes it; None without credentials."""
    if proxy is None or proxy.raw_auth is None:
        return None
    user, password = proxy.raw_auth
    return {"Proxy-Authorization": "Basic " + base64.b64encode(user + b":" + password).decode()}


class NetworkTransport(AiohttpTransport):
    """``httpx_aiohttp.AiohttpTransport`` with one session set up once (see module)."""

    def __init__(
        self,
        *,
        verify: ssl.SSLContext | bool | None,
        concurrency: int,
        timeout: float,
        proxy: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        limits = httpx.Limits(
            max_connections=concurrency,
            max_keepalive_connections=concurrency,
            keepalive_expiry=KEEPALIVE_EXPIRY,
        )
        # ``verify=True`` reads SSL_CERT_FILE / SSL_CERT_DIR, as httpx's own transport.
        # None: nothing is spoken over TLS (an http:// service, no https:// proxy), so no
        # CA is loaded (a tenth of a second); aiohttp's verifying default stands anyway.
        self._tls = verify is not None
        super().__init__(verify=verify if verify is not None else False, limits=limits)
        self._proxy = httpx.Proxy(proxy) if proxy else None
        #: The proxy's credentials, as httpx's transport sends them.
        self._proxy_headers = _proxy_authorization(self._proxy)
        self._timeout = timeout
        #: The headers of most requests (``headers``): the session's own, so a request
        #: given this very mapping hands aiohttp none to merge into them. Not through a
        #: proxy: aiohttp merges a session's headers into the proxy's too (the key would
        #: go to the proxy).
        self._headers = headers if self._proxy is None else None
        self.client = self._session

    def _session(self) -> aiohttp.ClientSession:
        connector = _Connector(
            limit=self.limits.max_connections or 0,
            limit_per_host=0,
            keepalive_timeout=KEEPALIVE_EXPIRY,
            ssl=self.ssl_context if self._tls else True,
        )
        proxy = self._proxy
        session = aiohttp.ClientSession(
            connector=connector,
            # No read timeout of aiohttp's: the client bounds each request whole
            # (``asyncio.timeout`` in ``BaseClient._send``, from before it is sent, so it
            # always ends first), and aiohttp would move a timer at every read.
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=self._timeout),
            proxy=str(proxy.url) if proxy is not None else None,
            headers=self._headers,
            skip_auto_headers=("User-Agent", "Accept", "Accept-Encoding"),
            cookie_jar=aiohttp.CookieJar(unsafe=True),  # as httpx's client: IP hosts too
        )
        session._retry_connection = False  # the client's retry policy retries (see module)
        return session

    def _ready(self) -> aiohttp.ClientSession:
        if not isinstance(self.client, aiohttp.ClientSession):
            self.client = self.get_client()
        return self.client

    def _request(
        self,
        method: str,
        url: str,
        headers: Any,
        content: bytes | None,
    ) -> Any:
        """aiohttp's request context (not yet entered) for one request."""
        if headers is self._headers:
            headers = None  # the session's own: nothing to merge
        connect_headers = None
        if self._proxy_headers:  # credentials: on the CONNECT (https), else each request
            if url.startswith("https:"):
                connect_headers = self._proxy_headers
            else:
                pairs = headers.items() if isinstance(headers, Mapping) else headers or ()
                headers = [*pairs, *self._proxy_headers.items()]
        return self._ready().request(
            method,
            yarl.URL(url, encoded=True),  # as the client encoded it
            headers=headers,
            data=content or None,
            allow_redirects=False,
            compress=False,
            proxy_headers=connect_headers,
        )

    async def exchange(
        self,
        method: str,
        url: str,
        headers: Mapping[str, str],
        content: bytes | None,
        trace: ConnectionTrace,
    ) -> tuple[int, str, Mapping[str, str], bytes]:
        """One request, its answer read whole: status, reason, headers, body (gzip
        decoded by aiohttp). ``linksync.api.wire`` calls this; no httpx object made."""
        trace.seen = True
        token = _ATTEMPT.set(trace)
        try:
            async with self._request(method, url, headers, content) as response:
                trace.answered = True  # the head of the answer came
                body = await response.read()
        except (aiohttp.ClientError, OSError) as exc:
            raise httpx_error(exc) from exc
        finally:
            _ATTEMPT.reset(token)
        return response.status, response.reason or "", response.headers, body
