"""Fixtures: the in-process sandbox driven by a fake clock shared with the client, so
rate windows and retry waits pass instantly; ``pki``, a CA and a server certificate for
127.0.0.1 made once per module (``netfakes.make_pki``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from api_fakes import ClientFactory, FakeClock, fast_policy
from netfakes import Pki, make_pki

from linksync.api import LinkServiceClient, asgi_transport
from linksync.sandbox import DEFAULT_FULL_KEY, SandboxSettings, create_app


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(1_767_225_600.0)


@pytest.fixture
def make_client(clock: FakeClock) -> ClientFactory:
    """``make_client(app=None, key=full key, settings=..., **client kwargs)``."""

    def make(
        app: Any = None,
        *,
        key: str = DEFAULT_FULL_KEY,
        settings: SandboxSettings | None = None,
        **kw: Any,
    ) -> LinkServiceClient:
        if app is None:
            app = create_app(settings or SandboxSettings(), ":memory:", clock=clock)
        kw.setdefault("retry", fast_policy(clock))
        return LinkServiceClient(
            "http://sandbox.local", key, transport=asgi_transport(app), allow_insecure=True, **kw
        )

    return make


@pytest.fixture
def sandbox(clock: FakeClock) -> Any:
    return create_app(SandboxSettings(), ":memory:", clock=clock)


@pytest.fixture
async def client(make_client: ClientFactory, sandbox: Any) -> AsyncIterator[LinkServiceClient]:
    async with make_client(sandbox) as c:
        yield c


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))
