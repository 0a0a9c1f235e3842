"""A lean HTTP/1.1 transport for httpx: asyncio streams, a strict small codec, a
keep-alive pool.

httpx's default transport (httpcore over anyio) costs about 1.2-1.8 ms of CPU per
request here; asyncio streams with h11 about 0.3 ms, and with this codec less again
(``docs/performance.md``), which is what lets one client keep a rate limit of 1,000
requests per second busy on a shared core. It is the client's transport for the
network; the in-process sandbox and test fakes plug in their own (``asgi_transport``),
and proxies from the environment still go through httpx's own transports.

What it does, and no more:

- one request at a time per connection (HTTP/1.1, no pipelining); idle connections
  are kept per origin, reused newest first, and dropped when the server closed them or
  after ``keepalive_expiry`` seconds idle; at most ``max_connections`` in use;
- answers framed as RFC 9112 says: no body for 1xx/204/304, chunked (extensions and
  trailers skipped), Content-Length (several must agree), else up to the close;
  anything malformed (a bad status line, a folded or nameless header, a bad chunk size)
  is a ``RemoteProtocolError``, never a guess; ``Connection: close`` and HTTP/1.0 are
  not reused;
- TLS with httpx's own context (``httpx.create_ssl_context``: same CA bundle and
  environment variables as httpx);
- errors as httpx raises them: ``ConnectError`` / ``ConnectTimeout`` / ``PoolTimeout``
  before anything was sent, ``ReadError`` / ``WriteError`` / ``RemoteProtocolError``
  once the request may have been sent (the client then treats the outcome as unknown).
  A connection in the middle of an exchange that fails or is cancelled is closed.

Two ways in: ``handle_async_request`` (the httpx transport interface), and
:meth:`LeanTransport.exchange` with a :class:`Head`, which the client uses directly
when no proxy is configured, skipping httpx's request and response models.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

import httpx

Origin = tuple[str, str, int]
Headers = Sequence[tuple[bytes, bytes]]
_DEFAULT_PORTS = {"http": 80, "https": 443}
_NO_BODY = frozenset({204, 304})


def origin_of(scheme: str, host: str, port: int | None) -> Origin:
    """(scheme, host, port) of a URL, the key of the connection pool."""
    if scheme not in _DEFAULT_PORTS:
        raise httpx.UnsupportedProtocol(f"unsupported scheme {scheme!r}")
    return (scheme, host, port or _DEFAULT_PORTS[scheme])


@dataclass(frozen=True, slots=True)
class Head:
    """The request line and headers (with Host) of one request."""

    method: str
    target: str
    headers: Headers

    def encode(self, body: bytes) -> bytes:
        lines = [f"{self.method} {self.target} HTTP/1.1".encode("ascii")]
        lines += [name + b": " + value for name, value in self.headers]
        for line in lines:
            if b"\n" in line or b"\r" in line:
                raise httpx.LocalProtocolError("a request line or header holds a line break")
        return b"\r\n".join(lines) + b"\r\n\r\n" + body


@dataclass(frozen=True, slots=True)
class Answer:
    """A whole answer: status, headers (names lower-case, in order), body."""

    status: int
    reason: bytes
    header_list: tuple[tuple[str, str], ...]
    body: bytes
    keep_alive: bool

    def headers(self) -> dict[str, str]:
        """As a mapping (a repeated header keeps its last value)."""
        return dict(self.header_list)


def _bad(what: str) -> httpx.RemoteProtocolError:
    return httpx.RemoteProtocolError(f"malformed answer: {what}")


async def read_answer(reader: asyncio.StreamReader, method: str) -> Answer:
    """Read one whole answer from ``reader`` (see the module docstring for the rules)."""
    while True:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError as exc:
            if exc.partial:
                raise _bad("cut short in its head") from None
            raise httpx.RemoteProtocolError(
                "Server disconnected without sending a response."
            ) from None
        except asyncio.LimitOverrunError:
            raise _bad("head too long") from None
        lines = head[:-4].split(b"\r\n")
        version, _, rest = lines[0].partition(b" ")
        code, _, reason = rest.partition(b" ")
        if version not in (b"HTTP/1.1", b"HTTP/1.0") or len(code) != 3 or not code.isdigit():
            raise _bad(f"status line {lines[0][:60]!r}")
        status = int(code)
        if 100 <= status < 200 and status != 101:
            continue  # informational: the final answer follows
        break
    fields: list[tuple[str, str]] = []
    for line in lines[1:]:
        name, colon, value = line.partition(b":")
        if not colon or not name or name != name.strip() or line[:1] in (b" ", b"\t"):
            raise _bad(f"header line {line[:60]!r}")
        fields.append((name.decode("latin-1").lower(), value.strip(b" \t").decode("latin-1")))
    tokens = {t.strip().lower() for k, v in fields if k == "connection" for t in v.split(",")}
    keep = version == b"HTTP/1.1" and "close" not in tokens and status != 101
    coding = [v for k, v in fields if k == "transfer-encoding"]
    lengths = {v.strip() for k, v in fields if k == "content-length"}
    try:
        if method == "HEAD" or status in _NO_BODY or status == 101:
            body = b""
        elif coding:
            if coding[-1].split(",")[-1].strip().lower() != "chunked":
                body, keep = await reader.read(), False
            else:
                body = await _chunked(reader)
        elif lengths:
            if len(lengths) != 1 or not next(iter(lengths)).isdigit():
                raise _bad(f"Content-Length {sorted(lengths)}")
            body = await reader.readexactly(int(next(iter(lengths))))
        else:
            body, keep = await reader.read(), False
    except asyncio.IncompleteReadError:
        raise httpx.RemoteProtocolError("incomplete answer: the connection closed") from None
    except asyncio.LimitOverrunError:
        raise _bad("chunk line too long") from None
    return Answer(status, reason, tuple(fields), body, keep)


async def _chunked(reader: asyncio.StreamReader) -> bytes:
    parts: list[bytes] = []
    while True:
        line = await reader.readuntil(b"\r\n")
        size_text = line[:-2].split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            raise _bad(f"chunk size {size_text[:20]!r}") from None
        if size < 0:
            raise _bad("negative chunk size")
        if size == 0:
            while await reader.readuntil(b"\r\n") != b"\r\n":
                pass  # trailer fields: not used
            return b"".join(parts)
        parts.append(await reader.readexactly(size))
        if await reader.readexactly(2) != b"\r\n":
            raise _bad("chunk not followed by CRLF")


class _Connection:
    __slots__ = ("idle_since", "reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.idle_since = 0.0

    def usable(self, now: float, expiry: float) -> bool:
        return (
            now - self.idle_since < expiry
            and not self.reader.at_eof()
            and not self.writer.is_closing()
        )

    def close(self) -> None:
        self.writer.close()

    async def exchange(self, head: Head, body: bytes) -> Answer:
        """Send one request, read its whole answer."""
        data = head.encode(body)
        try:
            self.writer.write(data)
            await self.writer.drain()
        except OSError as exc:
            raise httpx.WriteError(str(exc) or type(exc).__name__) from None
        try:
            return await read_answer(self.reader, head.method)
        except OSError as exc:
            raise httpx.ReadError(str(exc) or type(exc).__name__) from None


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
        head = Head(request.method, url.raw_path.decode("ascii"), request.headers.raw)
        try:
            answer = await self.exchange(
                origin_of(url.scheme, url.host, url.port), head, body, timeouts
            )
        except httpx.TransportError as exc:
            exc.request = request
            raise
        return httpx.Response(
            answer.status,
            headers=list(answer.header_list),
            stream=httpx.ByteStream(answer.body),
            extensions={"http_version": b"HTTP/1.1", "reason_phrase": answer.reason},
            request=request,
        )

    async def exchange(
        self, origin: Origin, head: Head, body: bytes, timeouts: Mapping[str, Any]
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
            if answer.keep_alive and not self._closed:
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
        head = Head(method, target, headers)
        answer = await self._transport.exchange(self.origin, head, content, self._timeouts)
        return answer.status, answer.headers(), answer.body
