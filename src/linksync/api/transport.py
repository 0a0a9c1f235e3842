"""A lean HTTP/1.1 transport for httpx: asyncio streams, h11, a small keep-alive pool.

httpx's default transport (httpcore over anyio) costs about 1.2-1.8 ms of CPU per
request here; this one about 0.3 ms (``docs/performance.md``), which is what lets one
client keep a rate limit of 1,000 requests per second busy on a shared core. It is the
client's transport for the network; the in-process sandbox and test fakes plug in
their own (``asgi_transport``), and proxies from the environment still go through
httpx's own transports (the client mounts them).

What it does, and no more:

- one request at a time per connection (HTTP/1.1, no pipelining); idle connections
  are kept per origin, reused newest first, and dropped when the server closed them or
  after ``keepalive_expiry`` seconds idle; at most ``max_connections`` in use;
- h11 frames both directions (Content-Length, chunked, close-delimited bodies);
- TLS with httpx's own context (``httpx.create_ssl_context``: same CA bundle and
  environment variables as httpx);
- errors as httpx raises them: ``ConnectError`` / ``ConnectTimeout`` / ``PoolTimeout``
  before anything was sent, ``ReadError`` / ``WriteError`` / ``RemoteProtocolError``
  once the request may have been sent (the client then treats the outcome as unknown).
  A connection in the middle of an exchange that fails or is cancelled is closed.

Two ways in: ``handle_async_request`` (the httpx transport interface), and
:meth:`LeanTransport.exchange` with an ``h11.Request``, which the client uses directly
when no proxy is configured, skipping httpx's request and response models.
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

import h11
import httpx

Origin = tuple[str, str, int]
_DEFAULT_PORTS = {"http": 80, "https": 443}
_READ_SIZE = 65_536


def origin_of(scheme: str, host: str, port: int | None) -> Origin:
    """(scheme, host, port) of a URL, the key of the connection pool."""
    if scheme not in _DEFAULT_PORTS:
        raise httpx.UnsupportedProtocol(f"unsupported scheme {scheme!r}")
    return (scheme, host, port or _DEFAULT_PORTS[scheme])


class Answer:
    """A whole answer: the h11 response head and the body."""

    __slots__ = ("body", "head")

    def __init__(self, head: h11.Response, body: bytes) -> None:
        self.head, self.body = head, body

    @property
    def status(self) -> int:
        return int(self.head.status_code)

    def headers(self) -> dict[str, str]:
        """Header names lower-case (h11 normalises them); a repeated header keeps its last."""
        return {k.decode("latin-1"): v.decode("latin-1") for k, v in self.head.headers}


class _Connection:
    __slots__ = ("h11", "idle_since", "reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.h11 = h11.Connection(h11.CLIENT)
        self.idle_since = 0.0

    def usable(self, now: float, expiry: float) -> bool:
        return (
            now - self.idle_since < expiry
            and not self.reader.at_eof()
            and not self.writer.is_closing()
        )

    def close(self) -> None:
        self.writer.close()

    async def exchange(self, head: h11.Request, body: bytes) -> Answer:
        """Send one request, read its whole answer."""
        conn = self.h11
        data = conn.send(head) or b""
        if body:
            data += conn.send(h11.Data(data=body)) or b""
        data += conn.send(h11.EndOfMessage()) or b""
        try:
            self.writer.write(data)
            await self.writer.drain()
        except OSError as exc:
            raise httpx.WriteError(str(exc) or type(exc).__name__) from None
        answer: h11.Response | None = None
        parts: list[bytes] = []
        while True:
            try:
                event = conn.next_event()
            except h11.RemoteProtocolError as exc:
                raise _protocol_error(answer, exc) from None
            if event is h11.NEED_DATA:
                try:
                    chunk = await self.reader.read(_READ_SIZE)
                except OSError as exc:
                    if answer is None:
                        raise _protocol_error(None, exc) from None
                    raise httpx.ReadError(str(exc) or type(exc).__name__) from None
                conn.receive_data(chunk)
            elif isinstance(event, h11.Response):
                answer = event
            elif isinstance(event, h11.Data):
                parts.append(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage):
                break
            elif isinstance(event, h11.ConnectionClosed):
                raise _protocol_error(answer, None)
            # h11.InformationalResponse (1xx): wait for the final answer
        assert answer is not None
        return Answer(answer, b"".join(parts))

    def reusable(self) -> bool:
        conn = self.h11
        if conn.our_state is h11.DONE and conn.their_state is h11.DONE:
            conn.start_next_cycle()
            return True
        return False


def _request_head(method: str, target: bytes | str, headers: Any) -> h11.Request:
    """The request head, or ``httpx.LocalProtocolError`` before anything is sent (a line
    break in a header value, say, that would let a value forge another header)."""
    try:
        return h11.Request(method=method, target=target, headers=headers)
    except h11.LocalProtocolError as exc:
        raise httpx.LocalProtocolError(str(exc)) from None


def _protocol_error(answer: h11.Response | None, exc: BaseException | None) -> httpx.TransportError:
    if answer is None:
        return httpx.RemoteProtocolError("Server disconnected without sending a response.")
    why = str(exc) if exc is not None else "the connection closed"
    return httpx.RemoteProtocolError(f"incomplete answer: {why}")


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
        head = _request_head(request.method, url.raw_path, request.headers.raw)
        try:
            answer = await self.exchange(
                origin_of(url.scheme, url.host, url.port), head, body, timeouts
            )
        except httpx.TransportError as exc:
            exc.request = request
            raise
        return httpx.Response(
            answer.status,
            headers=list(answer.head.headers.raw_items()),
            stream=httpx.ByteStream(answer.body),
            extensions={"http_version": b"HTTP/1.1", "reason_phrase": bytes(answer.head.reason)},
            request=request,
        )

    async def exchange(
        self, origin: Origin, head: h11.Request, body: bytes, timeouts: Mapping[str, Any]
    ) -> Answer:
        """One request on a pooled connection to ``origin``, and its whole answer.
        ``timeouts``: "pool" (waiting for a free connection) and "connect", in seconds."""
        if self._closed:
            raise RuntimeError("the transport is closed")
        await self._acquire(timeouts.get("pool"))
        try:
            conn = self._reuse(origin) or await self._connect(origin, timeouts.get("connect"))
            self._busy.add(conn)
            try:
                answer = await conn.exchange(head, body)
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
        head = _request_head(method, target, headers)
        answer = await self._transport.exchange(self.origin, head, content, self._timeouts)
        return answer.status, answer.headers(), answer.body
