"""A lean HTTP/1.1 transport for httpx: asyncio streams, httptools, a small keep-alive pool.

httpx's default transport (httpcore over anyio) costs about 1.2-1.8 ms of CPU per
request here; this one a fraction of that (``docs/performance.md``), which is what lets
one client keep a rate limit of 1,000 requests per second busy on a shared core. It is
the client's transport for the network; the in-process sandbox and test fakes plug in
their own (``asgi_transport``), and proxies from the environment still go through
httpx's own transports (the client mounts them).

What it does, and no more:

- one request at a time per connection (HTTP/1.1, no pipelining); idle connections
  are kept per origin, reused newest first, and dropped when the server closed them or
  after ``keepalive_expiry`` seconds idle; at most ``max_connections`` in use;
- requests written and answers read by ``linksync.api.framing`` (httptools for the
  answers; the checks h11 made on what is sent);
- TLS with httpx's own context (``httpx.create_ssl_context``: same CA bundle and
  environment variables as httpx);
- errors as httpx raises them: ``ConnectError`` / ``ConnectTimeout`` / ``PoolTimeout``
  before anything was sent, ``ReadError`` / ``WriteError`` / ``RemoteProtocolError``
  once the request may have been sent (the client then treats the outcome as unknown).
  A connection in the middle of an exchange that fails or is cancelled is closed.

Two ways in: ``handle_async_request`` (the httpx transport interface), and
:meth:`LeanTransport.exchange` with the request head as bytes, which the client uses
directly when no proxy is configured, skipping httpx's request and response models.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode, urlsplit

import httptools
import httpx

from linksync.api.framing import (
    MAX_HEAD,
    Answer,
    Reading,
    check_headers,
    protocol_error,
    reason_phrase,
    request_head,
)

Origin = tuple[str, str, int]
_DEFAULT_PORTS = {"http": 80, "https": 443}
_READ_SIZE = 65_536


def origin_of(scheme: str, host: str, port: int | None) -> Origin:
    """(scheme, host, port) of a URL, the key of the connection pool."""
    if scheme not in _DEFAULT_PORTS:
        raise httpx.UnsupportedProtocol(f"unsupported scheme {scheme!r}")
    return (scheme, host, port or _DEFAULT_PORTS[scheme])


class _Connection:
    __slots__ = ("idle_since", "reader", "reusable_", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.idle_since = 0.0
        self.reusable_ = False

    def usable(self, now: float, expiry: float) -> bool:
        return (
            now - self.idle_since < expiry
            and not self.reader.at_eof()
            and not self.writer.is_closing()
        )

    def close(self) -> None:
        self.writer.close()

    async def exchange(self, head: bytes, body: bytes, *, body_expected: bool = True) -> Answer:
        """Send one request (its head as bytes, then its body), read its whole answer."""
        self.reusable_ = False
        try:
            self.writer.write(head + body if body else head)
            await self.writer.drain()
        except OSError as exc:
            raise httpx.WriteError(str(exc) or type(exc).__name__) from None
        reading = Reading(body_expected=body_expected)
        seen = 0
        while not reading.complete:
            try:
                chunk = await self.reader.read(_READ_SIZE)
            except OSError as exc:
                if not reading.head_done:
                    raise protocol_error(reading, exc) from None
                raise httpx.ReadError(str(exc) or type(exc).__name__) from None
            if not chunk:
                if reading.ends_at_close():
                    return reading.answer()
                raise protocol_error(reading, None)
            try:
                reading.parser.feed_data(chunk)
            except httptools.HttpParserError as exc:
                if not reading.complete:
                    raise protocol_error(reading, exc) from None
                reading.extra = True  # the answer is whole; what follows is not ours
            seen += len(chunk)
            if not reading.head_done and seen > MAX_HEAD:
                raise protocol_error(reading, ValueError("answer head too large"))
        self.reusable_ = reading.keep_alive and not reading.extra
        return reading.answer()

    def reusable(self) -> bool:
        return self.reusable_


class LeanTransport(httpx.AsyncBaseTransport):
    """See the module docstring. ``verify``: an SSL context, or None for httpx's."""

    def __init__(
        self,
        *,
        max_connections: int = 8,
        keepalive_expiry: float = 5.0,
        verify: ssl.SSLContext | None = None,
    ) -> None:
        if max_connections < 1:
            raise ValueError("max_connections must be at least 1")
        self._slots = asyncio.Semaphore(max_connections)
        self._idle: dict[Origin, list[_Connection]] = {}
        self._busy: set[_Connection] = set()
        self._expiry = keepalive_expiry
        self._ssl = verify
        self._closed = False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """The httpx transport interface."""
        url = request.url
        body = await request.aread()
        timeouts: Mapping[str, Any] = request.extensions.get("timeout") or {}
        headers = [
            (name, value)
            for name, value in request.headers.raw
            if name.lower() not in (b"transfer-encoding", b"content-length")
        ]
        if body or request.method in ("POST", "PUT", "PATCH"):
            headers.append((b"Content-Length", str(len(body)).encode("ascii")))
        check_headers(headers)
        head = request_head(request.method, url.raw_path, headers)
        try:
            answer = await self.exchange(
                origin_of(url.scheme, url.host, url.port),
                head,
                body,
                timeouts,
                body_expected=request.method != "HEAD",
            )
        except httpx.TransportError as exc:
            exc.request = request
            raise
        return httpx.Response(
            answer.status,
            headers=answer.raw_headers,
            stream=httpx.ByteStream(answer.body),
            extensions={"http_version": b"HTTP/1.1", "reason_phrase": reason_phrase(answer.status)},
            request=request,
        )

    async def exchange(
        self,
        origin: Origin,
        head: bytes,
        body: bytes,
        timeouts: Mapping[str, Any],
        *,
        body_expected: bool = True,
    ) -> Answer:
        """One request (``head`` from ``request_head``) on a pooled connection to
        ``origin``, and its whole answer. ``timeouts``: "pool" (waiting for a free
        connection) and "connect", in seconds. ``body_expected``: False for HEAD."""
        if self._closed:
            raise RuntimeError("the transport is closed")
        await self._acquire(timeouts.get("pool"))
        try:
            conn = self._reuse(origin) or await self._connect(origin, timeouts.get("connect"))
            self._busy.add(conn)
            try:
                answer = await conn.exchange(head, body, body_expected=body_expected)
            except BaseException:
                conn.close()
                raise
            finally:
                self._busy.discard(conn)
            if conn.reusable() and not self._closed:
                conn.idle_since = time.monotonic()
                self._idle.setdefault(origin, []).append(conn)
            else:
                conn.close()
        finally:
            self._slots.release()
        return answer

    async def _acquire(self, timeout: float | None) -> None:
        if not self._slots.locked():  # a free connection: no timer to set
            await self._slots.acquire()
            return
        try:
            async with asyncio.timeout(timeout):
                await self._slots.acquire()
        except TimeoutError:
            raise httpx.PoolTimeout("no free connection in time") from None

    def _reuse(self, origin: Origin) -> _Connection | None:
        idle = self._idle.get(origin)
        now = time.monotonic()
        while idle:
            conn = idle.pop()
            if conn.usable(now, self._expiry):
                return conn
            conn.close()
        return None

    async def _connect(self, origin: Origin, timeout: float | None) -> _Connection:
        scheme, host, port = origin
        tls: ssl.SSLContext | None = None
        if scheme == "https":
            if self._ssl is None:
                self._ssl = httpx.create_ssl_context()
            tls = self._ssl
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_connection(
                    host, port, ssl=tls, server_hostname=host if tls else None
                )
        except TimeoutError:
            raise httpx.ConnectTimeout(f"connecting to {host}:{port} timed out") from None
        except OSError as exc:  # ssl.SSLError included
            raise httpx.ConnectError(str(exc) or type(exc).__name__) from None
        return _Connection(reader, writer)

    async def aclose(self) -> None:
        self._closed = True
        conns = [c for idle in self._idle.values() for c in idle] + list(self._busy)
        self._idle.clear()
        for conn in conns:
            conn.close()
        for conn in conns:
            with contextlib.suppress(OSError):  # ssl.SSLError is an OSError
                await conn.writer.wait_closed()


class Direct:
    """Requests to one base URL straight through a :class:`LeanTransport`, without
    httpx's request and response models: the same bytes on the wire as httpx sends
    (query encoding, compact UTF-8 JSON), for a fraction of the CPU."""

    def __init__(
        self,
        transport: LeanTransport,
        base_url: str,
        headers: Mapping[str, str],
        *,
        timeout: float,
    ) -> None:
        parts = urlsplit(base_url)
        host = (parts.hostname or "").encode("idna").decode("ascii")
        self.origin = origin_of(parts.scheme, host, parts.port)
        self._transport = transport
        self._prefix = parts.path.rstrip("/")
        netloc = f"[{host}]" if ":" in host else host
        if parts.port is not None:
            netloc += f":{parts.port}"
        self._headers = [(b"host", netloc.encode("ascii"))]
        self._headers += [
            (k.lower().encode("ascii"), v.encode("ascii")) for k, v in headers.items()
        ]
        # Checked once here; a bad value (a line break in a key) refuses every request.
        self._refused: httpx.LocalProtocolError | None = None
        try:
            check_headers(self._headers)
        except httpx.LocalProtocolError as exc:
            self._refused = exc
        self._timeouts = {"pool": timeout, "connect": timeout}

    async def send(
        self, method: str, path: str, params: Mapping[str, Any] | None, body: Any
    ) -> tuple[int, dict[str, str], bytes]:
        """Status, headers (names lower-case) and body of one request; ``body`` is sent
        as JSON unless None."""
        target = self._prefix + path
        if params:
            target += "?" + urlencode(params)
        headers = self._headers
        content = b""
        if body is not None:
            content = json.dumps(
                body, ensure_ascii=False, separators=(",", ":"), allow_nan=False
            ).encode("utf-8")
            headers = [*headers, (b"content-type", b"application/json")]
        if content or method in ("POST", "PUT", "PATCH"):
            headers = [*headers, (b"content-length", str(len(content)).encode("ascii"))]
        if self._refused is not None:
            raise httpx.LocalProtocolError(str(self._refused))
        try:
            raw_target = target.encode("ascii")
        except UnicodeEncodeError:
            raise httpx.LocalProtocolError(f"Illegal target characters {target!r}") from None
        head = request_head(method, raw_target, headers)
        answer = await self._transport.exchange(
            self.origin, head, content, self._timeouts, body_expected=method != "HEAD"
        )
        return answer.status, answer.headers(), answer.body
