"""Opening the client of a resolved target (``settings.open_client()`` hands over here).

``open_client`` is the one way the library gets a client: for a service, a
``LinkServiceClient`` with the target's proxy and trust of TLS; for the built-in
sandbox, the sandbox app in this process (its state in ``.linksync/sandbox.db``). The
client and the sandbox are imported only when a client opens, so a command's ``--help``
loads neither. Imports the target (``config.choice``); ``linksync.config`` imports it.
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
    from linksync.sandbox import create_app
    from linksync.sandbox.settings import resolve_settings

    # read once, by ``sandbox_target``; a Target built by hand: read now
    settings = target.sandbox or resolve_settings(target.sandbox_config or None)
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
