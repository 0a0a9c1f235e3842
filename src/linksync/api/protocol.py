"""What the sync engine needs of a client: ``LinkClient``, a typed protocol.

``LinkServiceClient`` is the one implementation; a fake for a test or a benchmark need
only provide these members. The engine learns what each call did from call events
(``subscribe``, ``linksync.api.events.call_scope``), how long the shared rate limiter
will hold requests from ``rate_limit_wait``, and what the client sent from ``stats``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from linksync.api.events import CallHook
from linksync.api.types import ClientStats, Domain, LinkPage, OgSuggestion, Organization
from linksync.model import RemoteLink


class LinkClient(Protocol):
    """The calls and facts the sync engine uses (see module docstring)."""

    concurrency: int

    @property
    def stats(self) -> ClientStats: ...

    def rate_limit_wait(self) -> float: ...

    def set_queued(self, n: int) -> None: ...

    def subscribe(self, hook: CallHook) -> Callable[[], None]: ...

    async def get_organization(self) -> Organization: ...

    async def list_domains(self) -> tuple[Domain, ...]: ...

    async def list_links_page(
        self,
        page: int = 1,
        limit: int = 20,
        search: str | None = None,
        tag: str | None = None,
        domain: str | None = None,
    ) -> LinkPage: ...

    async def list_links(
        self, search: str | None = None, tag: str | None = None, domain: str | None = None
    ) -> list[RemoteLink]: ...

    async def get_link(self, slug: str, domain: str | None = None) -> RemoteLink: ...

    async def create_link(self, payload: Mapping[str, Any]) -> RemoteLink: ...

    async def update_link(
        self, slug: str, changes: Mapping[str, Any], domain: str | None = None
    ) -> RemoteLink: ...

    async def delete_link(self, slug: str, domain: str | None = None) -> None: ...

    async def ai_slug(self, url: str) -> str: ...

    async def ai_og(self, url: str) -> OgSuggestion: ...
