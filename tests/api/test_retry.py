"""The retry policy against a scripted service, with an injected clock (no real waiting)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from api_fakes import (
    FakeClock,
    FakeService,
    Reply,
    Seen,
    error,
    fake_client,
    fast_policy,
    no_retries,
    ok,
)

from linksync.api import RetryPolicy
from linksync.api.retry import RetryClass, classify
from linksync.errors import ApiError, TransportError

LINK = {"slug": "abc", "domain": "lnk.test", "url": "https://e.com"}


def script(*replies: Reply) -> FakeService:
    it: Iterator[Reply] = iter(replies)
    return FakeService(lambda s: next(it))


def rate_limited(retry_after: str | None = "2") -> Reply:
    headers = {"x-ratelimit-limit": "10", "x-ratelimit-remaining": "0"}
    if retry_after is not None:
        headers["retry-after"] = retry_after
    reply = error(429, "RATE_LIMITED", 42901, "slow down")
    reply.headers = headers
    return reply


async def test_429_waits_retry_after_plus_jitter_then_succeeds() -> None:
    clock = FakeClock()
    app = script(rate_limited("2"), ok(LINK))
    async with fake_client(app, retry=fast_policy(clock)) as client:
        link = await client.get_link("abc")
        stats = client.stats
    assert link.slug == "abc"
    assert clock.sleeps == [2.5]  # Retry-After 2 + jitter 0.5 (random() = 0.5, up to 1 s)
    assert (stats.rate_limited, stats.retries) == (1, 1)
    assert stats.wait_seconds == pytest.approx(2.5)


async def test_429_without_retry_after_waits_five_seconds() -> None:
    clock = FakeClock()
    app = script(rate_limited(None), ok(LINK))
    async with fake_client(app, retry=fast_policy(clock)) as client:
        await client.get_link("abc")
    assert clock.sleeps == [5.5]


async def test_429_gives_up_after_three_retries() -> None:
    clock = FakeClock()
    app = FakeService(lambda s: rate_limited("1"))
    async with fake_client(app, retry=fast_policy(clock)) as client:
        with pytest.raises(ApiError) as info:
            await client.get_link("abc")
    assert info.value.constant == "RATE_LIMITED"
    assert info.value.attempts == 4
    assert len(app.seen) == 4
    assert clock.sleeps == [1.5, 1.5, 1.5]


async def test_500_backs_off_exponentially() -> None:
    clock = FakeClock()
    app = FakeService(lambda s: error(500, "INTERNAL_ERROR", 50001))
    async with fake_client(app, retry=fast_policy(clock)) as client:
        with pytest.raises(ApiError) as info:
            await client.get_organization()
    assert info.value.constant == "INTERNAL_ERROR" and info.value.attempts == 5
    # base 0.5 s doubling, plus jitter random()*base = 0.25
    assert clock.sleeps == [0.75, 1.25, 2.25, 4.25]


async def test_503_and_502_short_delay_then_success() -> None:
    clock = FakeClock()
    app = script(
        error(503, "EDGE_UNAVAILABLE", 50301),
        Reply(502, "<html>bad gateway</html>", content_type="text/html"),
        ok({"title": "T", "description": "D"}),
    )
    async with fake_client(app, retry=fast_policy(clock)) as client:
        og = await client.ai_og("https://e.com")
    assert (og.title, og.description) == ("T", "D")
    assert clock.sleeps == [1.25, 1.25]


async def test_terminal_errors_are_not_retried() -> None:
    app = FakeService(lambda s: error(400, "INVALID_URL", 40001))
    async with fake_client(app) as client:
        with pytest.raises(ApiError):
            await client.create_link({"url": "ftp://x"})
    assert len(app.seen) == 1


async def test_connection_errors_are_retried() -> None:
    """A transport that refuses the first two connections, then passes through."""
    import httpx

    from linksync.api import LinkServiceClient

    inner = httpx.ASGITransport(app=FakeService(lambda s: ok({"slug": "x1"})))

    class Flaky(httpx.AsyncBaseTransport):
        def __init__(self) -> None:
            self.calls = 0

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            self.calls += 1
            if self.calls <= 2:
                raise httpx.ConnectError("connection refused", request=request)
            return await inner.handle_async_request(request)

    clock = FakeClock()
    flaky = Flaky()
    client = LinkServiceClient("http://127.0.0.1:9", "k", transport=flaky, retry=fast_policy(clock))
    async with client:
        assert await client.ai_slug("https://e.com") == "x1"
        assert client.stats.transport_errors == 2
    assert flaky.calls == 3
    assert clock.sleeps == [0.75, 1.25]


async def test_transport_errors_exhaust_into_transport_error() -> None:
    import httpx

    from linksync.api import LinkServiceClient

    class Down(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            raise httpx.ConnectError("connection refused", request=request)

    async with LinkServiceClient(
        "http://localhost:9", "k", transport=Down(), retry=fast_policy()
    ) as client:
        with pytest.raises(TransportError) as info:
            await client.list_domains()
    assert info.value.constant == "TRANSPORT_ERROR" and info.value.attempts == 4
    assert "before sending" in info.value.message


async def test_timeout_of_a_hanging_service() -> None:
    async def hang(seen: Seen) -> Reply:
        await asyncio.sleep(30)
        return ok({})

    app = FakeService(hang)
    async with fake_client(app, timeout=0.05, retry=no_retries()) as client:
        with pytest.raises(TransportError) as info:
            await client.get_organization()
    assert info.value.sent and "outcome unknown" in info.value.message


def test_classify() -> None:
    assert classify(ApiError(429, "RATE_LIMITED", "x")) is RetryClass.RATE_LIMITED
    assert classify(ApiError(500, "INTERNAL_ERROR", "x")) is RetryClass.SERVER_ERROR
    assert classify(ApiError(504, "UNEXPECTED_RESPONSE", "x")) is RetryClass.UNAVAILABLE
    assert classify(TransportError("x")) is RetryClass.TRANSPORT
    assert classify(ApiError(409, "SLUG_EXISTS", "x")) is None
    assert classify(ValueError()) is None
    undecided = TransportError("x", sent=True)
    undecided.retryable = False
    assert classify(undecided) is None


def test_a_closed_kept_alive_connection_has_its_own_budget_and_no_wait() -> None:
    policy = RetryPolicy(random=lambda: 0.0)
    reused = TransportError("x", sent=True, reused=True)
    assert classify(reused) is RetryClass.REUSED_CONNECTION
    assert policy.budget(RetryClass.REUSED_CONNECTION) == 8 > policy.transport_retries
    assert [policy.delay(RetryClass.REUSED_CONNECTION, reused, n) for n in (1, 8)] == [0, 0]
    assert no_retries().budget(RetryClass.REUSED_CONNECTION) == 0
    assert reused.outcome_unknown  # a create is still confirmed by reading first
