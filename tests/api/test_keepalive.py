"""The keep-alive race: a server closes a kept-alive connection just as the client sends
a request on it. The request gets no answer; the client must neither fail the row nor
send a create twice (``TransportError.reused``, ``RetryClass.REUSED_CONNECTION``).

``KeepAliveLoser`` (``netfakes``) loses that race on purpose: it drops each request
that comes on a connection which already carried an answer, 4 times in a row, then
lets one through, in front of the sandbox on a real 127.0.0.1 socket.
"""

from __future__ import annotations

import asyncio
import csv
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from netfakes import KeepAliveLoser

from linksync.api import LinkServiceClient, RetryPolicy
from linksync.cli import cli
from linksync.errors import TransportError
from linksync.sandbox import DEFAULT_FULL_KEY

KEY = DEFAULT_FULL_KEY


@pytest.fixture
def loser(live_sandbox: str) -> Iterator[KeepAliveLoser]:
    with KeepAliveLoser(upstream=live_sandbox, streak=4) as front:
        yield front


def retry_policy(waits: list[float]) -> RetryPolicy:
    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    return RetryPolicy(sleep=sleep, random=lambda: 0.0)


async def test_requests_on_closed_kept_alive_connections_are_sent_again_at_once(
    loser: KeepAliveLoser, live_sandbox: str
) -> None:
    waits: list[float] = []
    async with LinkServiceClient(loser.url, KEY, concurrency=1, retry=retry_policy(waits)) as c:
        await c.get_organization()
        for n in range(3):
            await c.create_link({"url": f"https://example.com/s{n}", "slug": f"s{n}"})
            await c.create_link({"url": f"https://example.com/none{n}"})  # no slug
        await c.update_link("s0", {"description": "changed"})
        await c.delete_link("s1")
        links = await c.list_links()
    # Each create met 4 closed connections in a row: one more than the transport budget.
    assert loser.dropped >= 12
    assert waits and set(waits) == {0.0}  # no backoff: nothing to wait for
    per_url = Counter(link.url for link in links)
    assert per_url == {
        "https://example.com/s0": 1,
        "https://example.com/s2": 1,
        **{f"https://example.com/none{n}": 1 for n in range(3)},
    }  # no duplicate
    assert {link.slug: link.description for link in links}["s0"] == "changed"


async def test_a_fresh_connection_closed_without_an_answer_stays_a_transport_error() -> None:
    """Closed on a connection opened for the request: the server may have read and done
    it, nothing says it is the benign race: the transport budget and backoff apply."""
    connections = 0

    async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        await reader.readuntil(b"\r\n\r\n")
        writer.close()

    server = await asyncio.start_server(hang_up, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    waits: list[float] = []
    try:
        async with LinkServiceClient(
            f"http://127.0.0.1:{port}", KEY, concurrency=1, retry=retry_policy(waits)
        ) as c:
            with pytest.raises(TransportError) as info:
                await c.get_organization()
    finally:
        server.close()
        await server.wait_closed()
    error = info.value
    assert not error.reused and error.sent and "outcome unknown" in str(error)
    assert "kept-alive" not in str(error)
    assert error.attempts == 4 and connections == 4  # 3 retries, each on a new connection
    assert waits == [0.5, 1.0, 2.0]


def test_an_apply_one_request_at_a_time_loses_no_row(
    loser: KeepAliveLoser, live_sandbox: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LINKSYNC_API_KEY", KEY)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    rows = [("", "https://example.com/free")] + [
        (f"k{n}", f"https://example.com/k{n}") for n in range(6)
    ]
    with (tmp_path / "links.csv").open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([("slug", "url"), *rows])
    result = CliRunner().invoke(
        cli,
        ["apply", "links.csv", "--yes", "--no-progress", "--base-url", loser.url,
         "--concurrency", "1", "--report", "report.json"],
        catch_exceptions=False,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["summary"]["by_status"] == {"ok": len(rows)}
    assert [r["url"] for r in report["results"]] == [url for _, url in rows]
    assert loser.dropped >= 4  # the race was lost, more times in a row than 3 retries
    assert "outcome unknown" not in result.output

    async def every_url() -> Counter[str]:
        async with LinkServiceClient(live_sandbox, KEY) as c:  # straight, not the front
            return Counter(link.url for link in await c.list_links())

    assert asyncio.run(every_url()) == dict.fromkeys((url for _, url in rows), 1)
