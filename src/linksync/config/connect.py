"""Opening the client of a resolved target: a service over the network, or the built-in
sandbox in this process.

    async with open_client(target, concurrency=8) as client:   # or settings.open_client()
        org = await client.get_organization()

``open_client`` is the one way the library gets a client: for a service, a
``LinkServiceClient`` with the target's proxy and trust of TLS; for the built-in
sandbox, the sandbox app itself (its state in ``.linksync/sandbox.db``, the folder made
when missing) behind an in-process transport. The client and the sandbox are imported
when a client is opened, never by importing this module, so a command's ``--help``
loads neither. ``retry_policy`` is a profile's ``retry:`` block as the client's
``RetryPolicy``.

Imports the target (``config.choice``), the client's defaults and ``safe``;
``linksync.config`` imports it for ``Settings.open_client``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from linksync.api.defaults import DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT
from linksync.config.choice import DEFAULT_SANDBOX_DB, Target
from linksync.safe.state_folder import make_folder

if TYPE_CHECKING:
    from linksync.api import LinkServiceClient, RetryPolicy


def retry_policy(retry: Mapping[str, float]) -> RetryPolicy:
    """A profile's ``retry:`` keys (checked when the profile was read) as a policy."""
    from linksync.api import RetryPolicy

    values: dict[str, Any] = {
        k: int(v) if k.endswith("_retries") else float(v) for k, v in retry.items()
    }
    return RetryPolicy(**values)


def open_client(
    target: Target,
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    timeout: float = DEFAULT_TIMEOUT,
    retry: RetryPolicy | None = None,
) -> LinkServiceClient:
    """The one way commands get a client: the in-process sandbox for a sandbox target,
    the network otherwise."""
    from linksync.api import LinkServiceClient, asgi_transport

    if not target.is_sandbox:
        from linksync.api.network import Network

        network = Network(target.proxy, target.ca_bundle, target.system_trust)
        return LinkServiceClient(
            target.base_url,
            target.api_key,
            concurrency=concurrency,
            timeout=timeout,
            allow_insecure=target.insecure,
            retry=retry,
            network=network,
        )
    from linksync.sandbox import SandboxSettings, create_app

    settings = target.sandbox  # read once, by ``sandbox_target``
    if settings is None:  # a Target built by hand
        settings = (
            SandboxSettings.load(target.sandbox_config)
            if target.sandbox_config
            else SandboxSettings()
        )
    db = target.sandbox_db or DEFAULT_SANDBOX_DB
    if db != ":memory:":
        make_folder(Path(db).parent)
    app = create_app(settings, db_path=db)
    return LinkServiceClient(
        target.base_url,
        target.api_key,
        transport=asgi_transport(app),
        concurrency=concurrency,
        timeout=timeout,
        allow_insecure=True,
        retry=retry,
    )
