"""A faithful, strict local implementation of the link service (moto style).

State and rules are plain Python (``store``, ``rules``, ``backend``, ``ratelimit``,
``faults``); ``app`` holds thin Starlette routes. The same app runs in-process::

    app = create_app(SandboxSettings(), ":memory:")
    client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                               base_url="http://sandbox.local")

and as a real server (``linksync sandbox serve``: ``server.serve_forever``).

Layer: beside ``api`` and ``sources``. It may import errors, model, rules and safe only,
never the client side (api, sync, config): the emulator and the client share no code
above the service's value rules.
"""

from linksync.sandbox.app import create_app
from linksync.sandbox.settings import (
    DEFAULT_FULL_KEY,
    DEFAULT_READ_KEY,
    SandboxSettings,
)

__all__ = [
    "DEFAULT_FULL_KEY",
    "DEFAULT_READ_KEY",
    "SandboxSettings",
    "create_app",
]
