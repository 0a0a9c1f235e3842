"""The entry to httpx's connection pool (``api/poolentry.py``): one request at a time
until it holds a connection, never one at a time for the whole request."""

from __future__ import annotations

import asyncio

import pytest
from test_transport import OK, Server, answer, client, serve

from linksync.api.poolentry import PoolEntry


async def test_the_next_request_enters_once_the_first_holds_its_connection() -> None:
    entry = PoolEntry()
    order: list[str] = []
    first_traced = asyncio.Event()

    async def first() -> None:
        async with entry.enter() as extensions:
            order.append("first in")
            await asyncio.sleep(0.01)
            await extensions["trace"]("http11.send_request_headers.started", {})
            await extensions["trace"]("http11.send_request_body.started", {})  # once only
            first_traced.set()
            await asyncio.sleep(0.01)
            order.append("first done")

    async def second() -> None:
        await asyncio.sleep(0)  # after the first has entered
        async with entry.enter():
            assert first_traced.is_set()
            order.append("second in")

    await asyncio.gather(first(), second())
    assert order == ["first in", "second in", "first done"]
    assert (entry.entered, entry.released_by_trace) == (2, 1)


async def test_a_request_that_fails_before_any_trace_lets_the_next_one_in() -> None:
    entry = PoolEntry()
    with pytest.raises(OSError):
        async with entry.enter():
            raise OSError("connection refused")
    async with asyncio.timeout(1):
        async with entry.enter() as extensions:
            assert "trace" in extensions


async def test_without_the_gate_nothing_waits_and_no_trace_is_asked_for() -> None:
    entry = PoolEntry(gate=False)
    async with entry.enter() as one, entry.enter() as two:
        assert one == two == {}
    assert entry.entered == 0


async def test_another_trace_is_told_every_event_with_or_without_the_gate() -> None:
    """The keep-alive race is told apart by the attempt's own trace (``ConnectionTrace``):
    the gate passes each event on to it, and without the gate it is the only one."""
    for gate in (True, False):
        entry, seen = PoolEntry(gate=gate), []

        async def then(name: str, info: dict[str, object], seen: list[str] = seen) -> None:
            seen.append(name)

        async with entry.enter(then) as extensions:
            await extensions["trace"]("connection.connect_tcp.started", {})
            await extensions["trace"]("http11.receive_response_headers.complete", {})
        async with asyncio.timeout(1), entry.enter():
            pass  # the gate was let go
        assert seen == [
            "connection.connect_tcp.started",
            "http11.receive_response_headers.complete",
        ]


async def test_requests_on_the_network_are_still_in_flight_together() -> None:
    """httpx's transport reports each request's connection through the trace extension,
    so the gate never holds a request for its whole round trip: with 50 ms answers,
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
