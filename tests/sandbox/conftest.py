"""Fixtures of the sandbox tests: apps on a ManualClock, clients per key."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from linksync.sandbox import SandboxSettings, create_app
from support.sandbox_helpers import ManualClock

FULL = "sandbox-full-access-key"
READ = "sandbox-read-only-key"
BASE = "http://sandbox.local"

AppFactory = Callable[..., Starlette]


def client_for(app: Starlette, key: str | None = FULL) -> httpx.AsyncClient:
    headers = {"Authorization": f"Bearer {key}"} if key is not None else {}
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE, headers=headers)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def make_app(clock: ManualClock) -> AppFactory:
    """``make_app(**settings)``: a fresh in-memory sandbox on the manual clock."""

    def make(**settings: Any) -> Starlette:
        settings.setdefault("rate_limit", 1_000_000)
        return create_app(SandboxSettings(**settings), ":memory:", clock=clock)

    return make


@pytest.fixture
def app(make_app: AppFactory) -> Starlette:
    return make_app()


@pytest.fixture
async def http(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    async with client_for(app) as c:
        yield c


@pytest.fixture
async def read_http(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    async with client_for(app, READ) as c:
        yield c


def assert_error(r: httpx.Response, status: int, constant: str) -> dict[str, Any]:
    """The response is the interface's error body with this status and constant."""
    from linksync.errors import ERRORS

    assert r.status_code == status, r.text
    body = r.json()
    err = body["error"]
    assert err["constant"] == constant, err
    assert err["code"] == ERRORS[constant].code
    assert isinstance(err["message"], str) and err["message"]
    assert err["requestId"] == r.headers["x-request-id"]
    assert set(body) == {"error"}
    return err  # type: ignore[no-any-return]
