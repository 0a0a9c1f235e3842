"""``EarlyClient``: a ``LinkClient`` whose calls may be started before the run asks
for them (``linksync.pipeline.overlap``). Each answer started early serves the one
call of the same kind and arguments the run makes next (the organization, the custom
domains, a page of the link list), once; every other call goes to the client inside.
A call the run has already sent itself (it read its sources before the early calls
got that far) is not started early again (``asked``): it would be sent twice. An
answer not fetched (the early calls stopped) makes the call go to the service then;
an error is raised where the run makes the call, as if it had sent it then.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from linksync.api import LinkClient, LinkPage
from linksync.api.events import CallHook
from linksync.api.types import ClientStats, Domain, OgSuggestion, Organization
from linksync.model import RemoteLink
from linksync.sync.remote import PAGE

T = TypeVar("T")
Key = tuple[Any, ...]
ORG: Key = ("organization",)
DOMAINS: Key = ("domains",)


def page_key(page: int, domain: str | None, limit: int = PAGE, tag: str | None = None) -> Key:
    return ("page", page, limit, None, tag, domain)


class _NotFetched(Exception):
    """A call reserved early and not sent (the early calls stopped): send it now."""


class EarlyClient:
    """A ``LinkClient`` that answers a call started early (``start``, ``reserve``) with
    its answer, once, and sends every other call through ``inner``."""

    def __init__(self, inner: LinkClient) -> None:
        self.inner = inner
        self.concurrency = inner.concurrency
        self._waiting: dict[Key, deque[asyncio.Future[Any]]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        #: The keys the run sent itself, nothing started early being there for them.
        self._sent: set[Key] = set()
        #: Calls started early, and answered from them.
        self.started = 0
        self.served = 0

    def reserve(self, key: Key) -> asyncio.Future[Any]:
        """A place for the answer of a call that will be sent early."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(key, deque()).append(future)
        self.started += 1
        return future

    def start(self, key: Key, call: Callable[[], Awaitable[Any]]) -> asyncio.Future[Any]:
        """Send ``call`` now; its answer serves the next call of ``key``."""
        future = self.reserve(key)
        task = asyncio.ensure_future(fill(future, call))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return future

    def asked(self, key: Key) -> bool:
        """Whether the run already sent the call of ``key`` itself: one started early
        now would be sent a second time, and its answer serve nobody."""
        return key in self._sent

    @property
    def overtaken(self) -> bool:
        """Whether the run has sent a call itself: it is ahead of the early calls."""
        return bool(self._sent)

    async def _answer(self, key: Key, call: Callable[[], Awaitable[T]]) -> T:
        queue = self._waiting.get(key)
        if not queue:
            self._sent.add(key)
            return await call()
        future = queue.popleft()
        if not queue:
            del self._waiting[key]
        try:  # the answer is this call's alone: awaited as it is, no shield around it
            got: T = future.result() if future.done() else await future
        except _NotFetched:
            return await call()
        self.served += 1
        return got

    async def close(self) -> None:
        """Cancel what is still under way; drop the answers nobody asked for."""
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        for queue in self._waiting.values():
            for future in queue:
                if not future.done():
                    future.set_exception(_NotFetched())  # a call waiting sends its own
                if not future.cancelled():
                    future.exception()  # retrieved: dropped without a warning
        self._waiting.clear()

    # The calls answered early.
    async def get_organization(self) -> Organization:
        return await self._answer(ORG, self.inner.get_organization)

    async def list_domains(self) -> tuple[Domain, ...]:
        return await self._answer(DOMAINS, self.inner.list_domains)

    async def list_links_page(
        self,
        page: int = 1,
        limit: int = 20,
        search: str | None = None,
        tag: str | None = None,
        domain: str | None = None,
    ) -> LinkPage:
        def call() -> Awaitable[LinkPage]:
            return self.inner.list_links_page(page, limit, search, tag, domain)

        if search is not None:
            return await call()
        return await self._answer(page_key(page, domain, limit, tag), call)

    # Every other member is the inner client's.
    @property
    def stats(self) -> ClientStats:
        return self.inner.stats

    def rate_limit_wait(self) -> float:
        return self.inner.rate_limit_wait()

    def set_queued(self, n: int) -> None:
        self.inner.set_queued(n)

    def subscribe(self, hook: CallHook) -> Callable[[], None]:
        return self.inner.subscribe(hook)

    async def list_links(
        self, search: str | None = None, tag: str | None = None, domain: str | None = None
    ) -> list[RemoteLink]:
        return await self.inner.list_links(search, tag, domain)

    async def get_link(self, slug: str, domain: str | None = None) -> RemoteLink:
        return await self.inner.get_link(slug, domain)

    async def create_link(self, payload: Mapping[str, Any]) -> RemoteLink:
        return await self.inner.create_link(payload)

    async def update_link(
        self, slug: str, changes: Mapping[str, Any], domain: str | None = None
    ) -> RemoteLink:
        return await self.inner.update_link(slug, changes, domain)

    async def delete_link(self, slug: str, domain: str | None = None) -> None:
        await self.inner.delete_link(slug, domain)

    async def ai_slug(self, url: str) -> str:
        return await self.inner.ai_slug(url)

    async def ai_og(self, url: str) -> OgSuggestion:
        return await self.inner.ai_og(url)


async def fill(future: asyncio.Future[Any], call: Callable[[], Awaitable[Any]]) -> None:
    """Put the answer of ``call`` (or its error) in ``future``; cancelled, the call is
    left to be sent when asked (``_NotFetched``)."""
    try:
        got = await call()
    except asyncio.CancelledError:
        if not future.done():
            future.set_exception(_NotFetched())
            future.exception()
        raise
    except Exception as exc:  # the plan meets it where it makes the call
        if not future.done():
            future.set_exception(exc)
        return
    if not future.done():
        future.set_result(got)
