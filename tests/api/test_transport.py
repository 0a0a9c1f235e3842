"""The network transport (httpx's own, as ``LinkServiceClient`` sets it up) on real
127.0.0.1 sockets: keep-alive reuse, body framings, servers that close or drop
connections, the connection limit, what every request carries, and the errors the
client's retry rules rely on."""

from __future__ import annotations

import asyncio
import gzip
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import pytest

from linksync import __version__
from linksync.api import LinkServiceClient, RetryPolicy
from linksync.api.base import Answer
from linksync.errors import ApiError, TransportError

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


class Server:
    """A scripted HTTP server: counts connections, the most open at once, requests."""

    def __init__(self) -> None:
        self.connections = 0
        self.open = 0
        self.most_open = 0
        self.requests: list[bytes] = []

    async def read_request(self, reader: asyncio.StreamReader) -> bytes | None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            return None
        length = 0
        for line in head.split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        body = await reader.readexactly(length) if length else b""
        self.requests.append(head.split(b"\r\n", 1)[0])
        return body


def answer(body: bytes, *extra: bytes, status: bytes = b"200 OK") -> bytes:
    head = [b"HTTP/1.1 " + status, b"content-type: application/json"]
    head += [b"content-length: " + str(len(body)).encode(), *extra]
    return b"\r\n".join(head) + b"\r\n\r\n" + body


OK = json.dumps({"code": 0, "data": {"slug": "s"}}).encode()


@asynccontextmanager
async def serve(server: Server, handler: Handler) -> AsyncIterator[str]:
    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        server.connections += 1
        server.open += 1
        server.most_open = max(server.most_open, server.open)
        try:
            await handler(reader, writer)
        finally:
            server.open -= 1
            writer.close()

    listener = await asyncio.start_server(on_connect, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        listener.close()
        await listener.wait_closed()


def keep_alive(server: Server, reply: bytes = b"") -> Handler:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while await server.read_request(reader) is not None:
            writer.write(reply or answer(OK))
            await writer.drain()

    return handler


def client(base: str, concurrency: int = 4, **policy: object) -> LinkServiceClient:
    async def no_sleep(_: float) -> None:
        pass

    retry = RetryPolicy(sleep=no_sleep, random=lambda: 0.0, **policy)  # type: ignore[arg-type]
    return LinkServiceClient(base, "key-0123456789", concurrency=concurrency, retry=retry)


async def test_sequential_requests_reuse_one_connection() -> None:
    server = Server()
    async with serve(server, keep_alive(server)) as base, client(base) as c:
        for i in range(5):
            assert await c.ai_slug(f"https://e.com/{i}") == "s"
    assert server.connections == 1 and len(server.requests) == 5
    assert server.requests[0].startswith(b"POST /api/v1/tools/ai-slug HTTP/1.1")


async def test_chunked_and_close_delimited_answers() -> None:
    server = Server()
    chunked = (
        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
        b"transfer-encoding: chunked\r\n\r\n" + b"%x\r\n" % len(OK) + OK + b"\r\n0\r\n\r\n"
    )
    closing = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n"

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await server.read_request(reader)
        writer.write(chunked)
        await writer.drain()
        await server.read_request(reader)
        writer.write(closing + OK)  # no length: the body ends when the connection does
        await writer.drain()

    async with serve(server, handler) as base, client(base) as c:
        assert await c.ai_slug("https://e.com/1") == "s"
        assert await c.ai_slug("https://e.com/2") == "s"
        assert await c.ai_slug("https://e.com/3") == "s"  # a new connection after close
    assert server.connections == 2


async def test_an_idle_connection_the_server_closed_is_not_used() -> None:
    server = Server()

    async def one_each(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await server.read_request(reader)
        writer.write(answer(OK))  # keep-alive announced, then closed anyway
        await writer.drain()

    async with serve(server, one_each) as base, client(base) as c:
        for i in range(3):
            assert await c.ai_slug(f"https://e.com/{i}") == "s"
            await asyncio.sleep(0.01)  # let the client see the close
    assert server.connections == 3


async def test_a_dropped_connection_is_an_unknown_outcome() -> None:
    server = Server()

    async def drop(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await server.read_request(reader)  # read it, answer nothing

    async with serve(server, drop) as base, client(base, transport_retries=0) as c:
        with pytest.raises(TransportError) as info:
            await c.ai_slug("https://e.com/1")
    assert info.value.sent and "after sending" in info.value.message


async def test_a_refused_connection_was_not_sent() -> None:
    listener = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    listener.close()
    await listener.wait_closed()
    async with client(f"http://127.0.0.1:{port}", transport_retries=0) as c:
        with pytest.raises(TransportError) as info:
            await c.get_organization()
    assert not info.value.sent and "before sending" in info.value.message


async def test_no_more_connections_than_allowed() -> None:
    server = Server()

    async def slow(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while await server.read_request(reader) is not None:
            await asyncio.sleep(0.02)
            writer.write(answer(OK))
            await writer.drain()

    async with serve(server, slow) as base, client(base, concurrency=2) as c:
        got = await asyncio.gather(*(c.ai_slug(f"https://e.com/{i}") for i in range(8)))
    assert got == ["s"] * 8
    assert server.most_open <= 2 and len(server.requests) == 8


async def test_a_request_that_timed_out_does_not_leave_its_connection_in_use() -> None:
    server = Server()
    first = True

    async def hang_once(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal first
        while await server.read_request(reader) is not None:
            if first:
                first = False
                await reader.read()  # never answers; returns when the client hangs up
                return
            writer.write(answer(OK))
            await writer.drain()

    async with (
        serve(server, hang_once) as base,
        client(base, concurrency=1, transport_retries=0) as c,
    ):
        c.timeout = 0.2
        with pytest.raises(TransportError) as info:
            await c.ai_slug("https://e.com/slow")
        assert info.value.sent  # sent, no answer: outcome unknown
        assert await c.ai_slug("https://e.com/fast") == "s"
    assert server.connections == 2


SENT = (b"content-type", b"authorization", b"accept", b"accept-encoding", b"user-agent")


class Recorder(Server):
    """Keeps each request's first line, its headers that matter and its body."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[bytes, dict[bytes, bytes], bytes]] = []

    async def handler(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, ConnectionError):
                return
            lines = head.split(b"\r\n")
            headers = {}
            for line in lines[1:]:
                name, _, value = line.partition(b":")
                if name:
                    headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get(b"content-length", b"0")))
            keep = {k: v for k, v in headers.items() if k in SENT}
            self.seen.append((lines[0], keep, body))
            page = {"code": 0, "data": [], "pagination": {"page": 2, "total": 0}}
            link = {"code": 0, "data": {"slug": "s", "url": "https://e.com/é"}}
            domain = {"code": 0, "data": {"id": "dom_1", "domain": "go.example.com"}}
            reply = page if lines[0].startswith(b"GET") else link
            if b"/verify" in lines[0]:
                reply = domain
            writer.write(answer(json.dumps(reply).encode()))
            await writer.drain()


async def calls(c: LinkServiceClient) -> None:
    await c.list_links_page(page=2, limit=100, search="https://e.com/a b?x=1&y=é")
    await c.create_link({"url": "https://e.com/é", "slug": "s", "tags": ("a", "b")})
    await c.update_link("s", {"description": None}, domain="go.example.com")
    await c.verify_domain("dom_1")  # a POST without a body


async def test_every_request_carries_the_key_accept_gzip_and_the_user_agent() -> None:
    seen = Recorder()
    async with serve(seen, seen.handler) as base, client(base) as c:
        await calls(c)
    assert len(seen.seen) == 4
    lines = [line for line, _, _ in seen.seen]
    assert lines[0].startswith(b"GET /api/v1/links?page=2&limit=100&search=https%3A")
    assert lines[1:] == [
        b"POST /api/v1/links HTTP/1.1",
        b"PATCH /api/v1/links/s?domain=go.example.com HTTP/1.1",
        b"POST /api/v1/domains/dom_1/verify HTTP/1.1",
    ]
    for _, headers, _ in seen.seen:
        assert headers[b"authorization"] == b"Bearer key-0123456789"
        assert headers[b"accept"] == b"application/json"
        assert headers[b"accept-encoding"] == b"gzip"
        assert headers[b"user-agent"] == f"linksync/{__version__}".encode()
    create = json.loads(seen.seen[1][2])
    assert create == {"url": "https://e.com/é", "slug": "s", "tags": ["a", "b"]}
    assert seen.seen[1][1][b"content-type"] == b"application/json"


async def test_a_gzipped_answer_is_decoded() -> None:
    server = Server()
    packed = gzip.compress(OK)
    reply = answer(packed, b"content-encoding: gzip")

    async with serve(server, keep_alive(server, reply)) as base, client(base) as c:
        assert await c.ai_slug("https://e.com/1") == "s"


async def test_requests_on_the_network_are_still_in_flight_together() -> None:
    """Requests go out together, each on a connection of its own: with 50 ms answers,
    several are open at the server at once."""
    server = Server()
    answering = 0
    most_answering = 0

    async def slow(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal answering, most_answering
        while await server.read_request(reader) is not None:
            answering += 1
            most_answering = max(most_answering, answering)
            await asyncio.sleep(0.05)
            answering -= 1
            writer.write(answer(OK))
            await writer.drain()

    async with serve(server, slow) as base, client(base, concurrency=8) as c:
        got = await asyncio.gather(*(c.ai_slug(f"https://e.com/{i}") for i in range(24)))
    assert got == ["s"] * 24 and len(server.requests) == 24
    assert most_answering >= 4


async def test_a_server_closing_each_connection_at_once_costs_no_retry() -> None:
    """A server that closes every connection as soon as it has answered (a keep-alive
    timeout of a few ms): the next request, sent at once, must not go out on the closed
    connection (no retry, no error), but on a new one."""
    server = Server()

    async def one_each(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await server.read_request(reader)
        writer.write(answer(OK))  # keep-alive announced, then closed at once
        await writer.drain()

    async with serve(server, one_each) as base, client(base, concurrency=1) as c:
        for i in range(20):
            assert await c.ai_slug(f"https://e.com/{i}") == "s"
        assert c.stats.retries == 0 and c.stats.transport_errors == 0
    assert server.connections == 20 and len(server.requests) == 20


async def test_an_answer_cut_short_is_an_unknown_outcome() -> None:
    server = Server()

    async def cut(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await server.read_request(reader)
        head = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n"
        writer.write(head + OK[:10])  # the head, a tenth of the body, then the end

    async with serve(server, cut) as base, client(base, transport_retries=0) as c:
        with pytest.raises(TransportError) as info:
            await c.ai_slug("https://e.com/1")
    assert info.value.sent and "after sending, outcome unknown" in info.value.message


async def test_answers_hand_their_parse_step_the_body_bytes_decoded() -> None:
    """What a parse step of the client receives: the body's bytes as the service wrote
    them (gzip taken off), and its JSON decoded from them when asked for."""
    server = Server()
    body = json.dumps({"code": 0, "data": {"slug": "s", "title": "é"}}).encode()
    reply = answer(gzip.compress(body), b"content-encoding: gzip")
    got: list[tuple[bytes, object]] = []

    async def parse(a: Answer) -> None:
        got.append((a.content, a.body))

    async with serve(server, keep_alive(server, reply)) as base, client(base) as c:
        await c._call("GET", "/api/v1/organizations/current", kind="GET /x", parse=parse)
    assert got == [(body, {"code": 0, "data": {"slug": "s", "title": "é"}})]


async def test_a_2xx_answer_that_is_not_json_is_refused_when_read() -> None:
    server = Server()
    page = b"<html><body>Welcome to the hotel network</body></html>"
    reply = answer(page).replace(b"application/json", b"text/html")
    async with serve(server, keep_alive(server, reply)) as base, client(base) as c:
        with pytest.raises(ApiError) as info:
            await c.get_organization()
    assert info.value.status == 200 and not info.value.retryable
    assert "HTTP 200 with a non-JSON body (text/html): Welcome to the hotel network" in str(
        info.value
    )
    assert len(server.requests) == 1
