"""The client of the link service: every endpoint, retries, one shared rate limiter.

    async with LinkServiceClient(base_url, api_key) as client:
        org = await client.get_organization()
        async for link in client.iter_links(tag="spring"):
            ...

Failures raise :class:`linksync.errors.ApiError` (``TransportError`` when no answer came).
Each call that ends is told to the hooks given to ``client.subscribe`` as a
``CallEvent``; ``LinkClient`` is the protocol the sync engine talks to.

Layer: beside ``sandbox`` and ``sources``. It may import errors, model, rules and safe,
never the sandbox (a client talks to it over HTTP only), sync or anything above.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what editors and type checkers see; imported on first use
    from linksync.api.client import LinkServiceClient, asgi_transport
    from linksync.api.events import CallEvent, call_scope
    from linksync.api.limiter import RateLimiter
    from linksync.api.protocol import LinkClient
    from linksync.api.retry import RetryPolicy
    from linksync.api.types import ROLES, Domain, LinkPage, Member, Organization, Quota

#: Where each public name lives, imported on first use: a module of the package (the
#: defaults a profile is checked against) loads without the client and httpx.
_HOMES = {
    **dict.fromkeys(("LinkServiceClient", "asgi_transport"), "client"),
    **dict.fromkeys(("CallEvent", "call_scope"), "events"),
    "RateLimiter": "limiter",
    "LinkClient": "protocol",
    "RetryPolicy": "retry",
    **dict.fromkeys(("ROLES", "Domain", "LinkPage", "Member", "Organization", "Quota"), "types"),
}

__all__ = [
    "ROLES",
    "CallEvent",
    "Domain",
    "LinkClient",
    "LinkPage",
    "LinkServiceClient",
    "Member",
    "Organization",
    "Quota",
    "RateLimiter",
    "RetryPolicy",
    "asgi_transport",
    "call_scope",
]


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        from importlib import import_module

        return getattr(import_module(f"linksync.api.{_HOMES[name]}"), name)
    raise AttributeError(f"module 'linksync.api' has no attribute {name!r}")
