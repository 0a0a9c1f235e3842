"""The lean network transport (``linksync.api.transport``) on real 127.0.0.1 sockets:
keep-alive reuse, body framings, servers that close or drop connections, the
connection limit, and the errors the client's retry rules rely on."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import httpx
import pytest

from linksync.api import LinkServiceClient, RetryPolicy
from linksync.api.transport import LeanTransport
from linksync.errors import TransportError

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

    transport = LeanTransport(max_connections=2)
    async with serve(server, slow) as base, httpx.AsyncClient(transport=transport) as http:
        answers = await asyncio.gather(*(http.get(f"{base}/x?i={i}") for i in range(8)))
    assert [a.status_code for a in answers] == [200] * 8
    assert server.most_open <= 2 and len(server.requests) == 8


async def test_a_cancelled_exchange_closes_its_connection() -> None:
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

    transport = LeanTransport(max_connections=1)
    async with serve(server, hang_once) as base, httpx.AsyncClient(transport=transport) as http:
        with pytest.raises(asyncio.TimeoutError):
            async with asyncio.timeout(0.05):
                await http.get(f"{base}/slow")
        again = await http.get(f"{base}/fast")
    assert again.status_code == 200 and server.connections == 2


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
            keep = {k: v for k, v in headers.items() if k in (b"content-type", b"authorization")}
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


async def test_the_direct_path_sends_what_httpx_sends(monkeypatch: pytest.MonkeyPatch) -> None:
    direct, via_httpx = Recorder(), Recorder()
    async with serve(direct, direct.handler) as base, client(base) as c:
        await calls(c)
    # A proxy in the environment sends requests through httpx's models (127.0.0.1 is
    # exempted from the proxy, so they still reach the server, over the lean transport).
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    async with serve(via_httpx, via_httpx.handler) as base, client(base) as c:
        await calls(c)
    assert direct.seen == via_httpx.seen and len(direct.seen) == 4
    assert direct.seen[0][0].startswith(b"GET /api/v1/links?page=2&limit=100&search=https%3A")


def raw_reply(server: Server, raw: bytes) -> Handler:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if await server.read_request(reader) is not None:
            writer.write(raw)
            await writer.drain()

    return handler


async def fetch_raw(raw: bytes, method: str = "GET") -> tuple[httpx.Response, Server]:
    server = Server()
    async with serve(server, raw_reply(server, raw)) as base:
        transport = LeanTransport()
        try:
            request = httpx.Request(method, base + "/x")
            response = await transport.handle_async_request(request)
            await response.aread()
            return response, server
        finally:
            await transport.aclose()


@pytest.mark.parametrize(
    ("raw", "status", "body"),
    [
        (b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nhi", 200, b"hi"),
        (
            b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\nx",
            201,
            b"x",
        ),
        (
            b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
            b"3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nx-trailer: 1\r\n\r\n",
            200,
            b"abcde",
        ),
        (b"HTTP/1.1 204 No Content\r\n\r\n", 204, b""),
        (b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 1\r\n\r\nz", 200, b"z"),
        (b"HTTP/1.0 200 OK\r\ncontent-length: 1\r\n\r\nz", 200, b"z"),
        (b"HTTP/1.1 200 OK\r\n\r\nuntil the end", 200, b"until the end"),
    ],
)
async def test_answers_are_framed_as_http_says(raw: bytes, status: int, body: bytes) -> None:
    response, _ = await fetch_raw(raw)
    assert (response.status_code, response.content) == (status, body)


@pytest.mark.parametrize(
    "raw",
    [
        b"HTTP/2 200 OK\r\n\r\n",
        b"HTTP/1.1 2000 OK\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nno colon\r\n\r\n",
        b"HTTP/1.1 200 OK\r\ncontent-length: 3\r\ncontent-length: 4\r\n\r\nabcd",
        b"HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n",
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
        b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nshort",
        b"HTTP/1.1 200 OK\r\ncontent-le",
        b"",
    ],
)
async def test_malformed_answers_are_refused(raw: bytes) -> None:
    with pytest.raises(httpx.RemoteProtocolError):
        await fetch_raw(raw)


async def test_a_line_break_in_a_header_is_refused_before_sending() -> None:
    server = Server()
    async with serve(server, keep_alive(server)) as base:
        transport = LeanTransport()
        try:
            request = httpx.Request("GET", base + "/x", headers={"x-a": "1\r\nx-evil: 2"})
            with pytest.raises(httpx.LocalProtocolError):
                await transport.handle_async_request(request)
        finally:
            await transport.aclose()
    assert server.requests == []


async def test_bytes_after_an_answer_end_the_connection_and_the_answer_stands() -> None:
    """A server that sends more than one answer's worth (a second answer, or garbage)
    is not trusted with the next request: the next one goes on a new connection."""
    server = Server()
    extras = [answer(OK) + answer(OK), answer(OK) + b"garbage"]

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while await server.read_request(reader) is not None:
            writer.write(extras.pop(0) if extras else answer(OK))
            await writer.drain()

    async with serve(server, handler) as base, client(base) as c:
        for i in range(3):
            assert await c.ai_slug(f"https://e.com/{i}") == "s"
    assert server.connections == 3


async def test_header_values_lose_their_edge_spaces_and_head_answers_have_no_body() -> None:
    response, _ = await fetch_raw(
        b"HTTP/1.1 200 OK\r\nx-a:   padded  \r\ncontent-length: 0\r\n\r\n"
    )
    assert response.headers["x-a"] == "padded"
    # An answer to HEAD announces a length but has no body: it is not waited for.
    response, server = await fetch_raw(
        b"HTTP/1.1 200 OK\r\ncontent-length: 500\r\n\r\n", method="HEAD"
    )
    assert response.status_code == 200 and response.content == b""
    assert server.requests == [b"HEAD /x HTTP/1.1"]


async def test_an_answer_head_that_never_ends_is_refused() -> None:
    """A server that sends header lines without end (the connection left open) is cut
    off once 64 KiB hold no complete head, not waited on."""
    server = Server()

    async def endless(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await server.read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\n")
        for _ in range(100):
            writer.write(b"x-filler: " + b"a" * 1000 + b"\r\n")
        await writer.drain()
        await asyncio.sleep(5)

    async with serve(server, endless) as base:
        transport = LeanTransport()
        try:
            with pytest.raises(httpx.RemoteProtocolError, match="head too large"):
                await asyncio.wait_for(
                    transport.handle_async_request(httpx.Request("GET", base + "/x")), 2
                )
        finally:
            await transport.aclose()
