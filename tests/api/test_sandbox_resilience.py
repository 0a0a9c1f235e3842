"""Rate limiting, injected faults and unknown outcomes against the in-process sandbox.
The sandbox and the client share a fake clock: waits are recorded, not slept."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from api_fakes import ClientFactory, FakeClock, fast_policy

from linksync.api import call_scope
from linksync.errors import ApiError, TransportError
from linksync.sandbox import SandboxSettings, create_app


async def test_429_waits_announced_time_and_succeeds(
    make_client: ClientFactory, clock: FakeClock
) -> None:
    settings = SandboxSettings(rate_limit=5, rate_window_s=10)
    app = create_app(settings, ":memory:", clock=clock)
    async with httpx.AsyncClient(  # another process spends the whole window at once
        transport=httpx.ASGITransport(app=app),
        base_url="http://sandbox.local",
        headers={"Authorization": f"Bearer {settings.full_key}"},
    ) as other:
        for i in range(5):
            assert (
                await other.post("/api/v1/tools/ai-slug", json={"url": f"https://e/{i}"})
            ).is_success
    async with make_client(app, concurrency=4) as client:
        t0 = clock()
        results = await asyncio.gather(*(client.ai_slug(f"https://e.com/{i}") for i in range(4)))
        stats = client.stats
    assert len(results) == 4
    assert stats.rate_limited == 1 and stats.retries == 1
    assert 10.5 in clock.sleeps  # Retry-After 10 + jitter 0.5
    assert clock() - t0 >= 10.0  # nobody sent before the announced time


async def test_after_three_retries_rate_limited(make_client: ClientFactory) -> None:
    frozen = FakeClock(1_767_225_600.0)  # the sandbox's window never ends
    app = create_app(SandboxSettings(rate_limit=1, rate_window_s=60), ":memory:", clock=frozen)
    async with make_client(app) as client:
        await client.get_organization()
        with call_scope() as scope, pytest.raises(ApiError) as info:
            await client.get_organization()
    exc, meta = info.value, scope.last
    assert (exc.status, exc.constant, exc.code, exc.attempts) == (429, "RATE_LIMITED", 42901, 4)
    assert exc.request_id and meta.attempts == 4 and meta.status == 429


async def test_sustained_load_within_limit_gets_no_429(
    make_client: ClientFactory, clock: FakeClock
) -> None:
    settings = SandboxSettings(rate_limit=20, rate_window_s=1)
    async with make_client(settings=settings, concurrency=8) as client:
        await client.get_organization()  # learn the window first
        t0 = clock()
        made = await asyncio.gather(
            *(client.create_link({"url": f"https://e.com/{i}"}) for i in range(100))
        )
        elapsed = clock() - t0
        stats = client.stats
    assert len({ln.slug for ln in made}) == 100
    assert stats.rate_limited == 0
    assert 4.0 <= elapsed <= 6.0  # 100 at 20/s


async def test_injected_500_and_503_are_retried(make_client: ClientFactory) -> None:
    settings = SandboxSettings(fail_500=0.15, fail_503=0.15, seed=7)
    async with make_client(settings=settings) as client:
        made = [await client.create_link({"url": f"https://e.com/{i}", "slug": f"s{i}"})
                for i in range(40)]  # fmt: skip
        stats = client.stats
        links = await client.list_links()
    assert len(made) == 40 and len(links) == 40
    assert stats.responses_by_status[500] > 0 and stats.responses_by_status[503] > 0
    assert stats.retries == stats.responses_by_status[500] + stats.responses_by_status[503]


async def test_500_after_write_does_not_duplicate_slugless_creates(
    make_client: ClientFactory,
) -> None:
    settings = SandboxSettings(fail_500_after_write=0.3, seed=3)
    async with make_client(settings=settings) as client:
        for i in range(30):
            await client.create_link({"url": f"https://e.com/{i}"})
        stats = client.stats
        links = await client.list_links()
    assert sorted(ln.url for ln in links) == sorted(f"https://e.com/{i}" for i in range(30))
    assert stats.confirmations > 0


class AfterWork:
    """Wraps an app: the first ``times`` matching requests are passed through (the work
    is done) and then the answer is lost: ``hang`` never answers, ``drop`` disconnects."""

    def __init__(self, app: Any, mode: str, method: str = "POST", times: int = 1) -> None:
        self.app, self.mode, self.method, self.left = app, mode, method, times

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] == self.method and self.left > 0:
            self.left -= 1

            async def discard(message: Any) -> None:
                pass

            await self.app(scope, receive, discard)
            if self.mode == "hang":
                await asyncio.sleep(3600)
            raise httpx.RemoteProtocolError("Server disconnected without sending a response.")
        await self.app(scope, receive, send)


@pytest.mark.parametrize("mode", ["hang", "drop"])
@pytest.mark.parametrize("slug", ["promo", None])
async def test_create_with_unknown_outcome_is_confirmed_not_duplicated(
    make_client: ClientFactory, sandbox: Any, mode: str, slug: str | None
) -> None:
    app = AfterWork(sandbox, mode)
    payload = {"url": "https://e.com/promo", "slug": slug}
    async with make_client(app, timeout=0.05) as client:
        with call_scope() as scope:
            link = await client.create_link(payload)
        links = await client.list_links()
    meta = scope.last
    assert [ln.url for ln in links] == ["https://e.com/promo"]
    assert link.slug == links[0].slug
    assert meta.confirmed and meta.attempts == 1


async def test_create_whose_first_send_failed_is_sent_again(
    make_client: ClientFactory, sandbox: Any
) -> None:
    class LoseRequest:
        def __init__(self) -> None:
            self.left = 1

        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] == "http" and scope["method"] == "POST" and self.left:
                self.left -= 1
                raise httpx.RemoteProtocolError("dropped before the work")
            await sandbox(scope, receive, send)

    async with make_client(LoseRequest()) as client:
        with call_scope() as scope:
            link = await client.create_link({"url": "https://e.com/x", "slug": "x"})
        assert [ln.slug for ln in await client.list_links()] == ["x"]
    meta = scope.last
    assert link.slug == "x" and meta.attempts == 2 and not meta.confirmed


async def test_delete_with_unknown_outcome_counts_as_done(
    make_client: ClientFactory, sandbox: Any
) -> None:
    async with make_client(sandbox) as setup:
        await setup.create_link({"url": "https://e.com/x", "slug": "x"})
    async with make_client(AfterWork(sandbox, "drop", method="DELETE")) as client:
        with call_scope() as scope:
            await client.delete_link("x")
        assert await client.list_links() == []
    meta = scope.last
    assert meta.confirmed and meta.attempts == 2


async def test_slugless_create_without_created_at_is_not_resent(clock: FakeClock) -> None:
    """A service whose records carry no createdAt: the client refuses to guess."""
    from api_fakes import FakeService, Reply, Seen, fake_client, ok

    posts = 0

    def handler(seen: Seen) -> Reply:
        nonlocal posts
        if seen.method == "POST":
            posts += 1
            return Reply(504, "<html>gateway timeout</html>", content_type="text/html")
        return ok([{"slug": "abc123", "domain": "lnk.test", "url": "https://e.com/a"}])

    async with fake_client(FakeService(handler), retry=fast_policy(clock)) as client:
        with pytest.raises(TransportError) as info:
            await client.create_link({"url": "https://e.com/a"})
    assert posts == 1 and not info.value.retryable
    assert "avoid a duplicate" in info.value.message
