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

from linksync.api.client import LinkServiceClient, asgi_transport
from linksync.api.events import CallEvent, call_scope
from linksync.api.limiter import RateLimiter
from linksync.api.protocol import LinkClient
from linksync.api.retry import RetryPolicy
from linksync.api.types import ROLES, Domain, LinkPage, Member, Organization, Quota

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
