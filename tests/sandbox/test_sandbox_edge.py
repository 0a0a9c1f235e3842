"""The edge: authentication, rate limit headers and 429, request ids, unknown routes,
and the seeded faults."""

from __future__ import annotations

import httpx
import pytest
from starlette.applications import Starlette

from support.sandbox_helpers import ManualClock

from .conftest import AppFactory, assert_error, client_for

ENDPOINTS = [
    ("GET", "/api/v1/organizations/current"),
    ("GET", "/api/v1/organizations/members"),
    ("POST", "/api/v1/organizations/members/invite"),
    ("GET", "/api/v1/domains"),
    ("POST", "/api/v1/domains"),
    ("POST", "/api/v1/domains/dom_x/verify"),
    ("DELETE", "/api/v1/domains/dom_x"),
    ("POST", "/api/v1/tools/ai-slug"),
    ("POST", "/api/v1/tools/ai-og"),
    ("GET", "/api/v1/links"),
    ("POST", "/api/v1/links"),
    ("GET", "/api/v1/links/x"),
    ("PATCH", "/api/v1/links/x"),
    ("DELETE", "/api/v1/links/x"),
]


@pytest.mark.parametrize(("method", "path"), ENDPOINTS)
@pytest.mark.parametrize(
    "auth",
    [None, "Bearer wrong-key", "Basic c2FuZGJveA==", "Bearer ", "sandbox-full-access-key"],
)
async def test_every_endpoint_needs_a_valid_bearer_key(
    app: Starlette, method: str, path: str, auth: str | None
) -> None:
    headers = {"Authorization": auth} if auth is not None else {}
    async with client_for(app, None) as anon:
        r = await anon.request(method, path, headers=headers, json={"url": "https://e.com"})
    err = assert_error(r, 401, "UNAUTHORIZED")
    assert "sandbox-full-access-key" not in err["message"]
    assert r.headers["www-authenticate"] == "Bearer"
    assert "x-ratelimit-limit" in r.headers


async def test_bearer_scheme_is_case_insensitive(app: Starlette) -> None:
    async with client_for(app, None) as anon:
        r = await anon.get(
            "/api/v1/organizations/current",
            headers={"Authorization": "bearer sandbox-read-only-key"},
        )
    assert r.status_code == 200


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/v1/nothing"),
        ("GET", "/api/v2/links"),
        ("PUT", "/api/v1/links/x"),
        ("POST", "/api/v1/organizations/current"),
        ("GET", "/api/v1/links/a/b"),
    ],
)
async def test_unknown_routes_are_404_not_found(
    http: httpx.AsyncClient, method: str, path: str
) -> None:
    assert_error(await http.request(method, path), 404, "NOT_FOUND")


async def test_every_response_has_request_id_and_rate_headers(http: httpx.AsyncClient) -> None:
    ids = set()
    for r in [
        await http.get("/api/v1/organizations/current"),
        await http.post("/api/v1/links", json={"url": "https://e.com", "slug": "x"}),
        await http.post("/api/v1/links", json={"url": "https://e.com", "slug": "x"}),
        await http.get("/api/v1/links/none"),
    ]:
        assert r.headers["x-request-id"].startswith("req_")
        ids.add(r.headers["x-request-id"])
        for h in ("x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"):
            assert r.headers[h].isdigit()
    assert len(ids) == 4
    redirect = await http.get("/r/lnk.test/x")
    assert redirect.headers["x-request-id"].startswith("req_")


async def test_fixed_window_rate_limit(make_app: AppFactory, clock: ManualClock) -> None:
    clock.set(1_767_225_600.25)
    app = make_app(rate_limit=3, rate_window_s=2)
    async with client_for(app) as http, client_for(app, "sandbox-read-only-key") as ro:
        remaining = []
        for _ in range(3):
            r = await http.get("/api/v1/links")
            assert r.status_code == 200
            assert r.headers["x-ratelimit-limit"] == "3"
            assert r.headers["x-ratelimit-reset"] == "1767225602"
            remaining.append(int(r.headers["x-ratelimit-remaining"]))
        assert remaining == [2, 1, 0]
        r = await http.post("/api/v1/links", json={"url": "https://e.com", "slug": "late"})
        assert_error(r, 429, "RATE_LIMITED")
        assert r.headers["retry-after"] == "2"
        assert r.headers["x-ratelimit-remaining"] == "0"
        # the rejected create did nothing; another key has its own window
        assert (await ro.get("/api/v1/links/late")).status_code == 404
        clock.advance(1.0)
        r = await http.get("/api/v1/links")
        assert r.status_code == 429 and r.headers["retry-after"] == "1"
        clock.advance(0.75)  # next window
        r = await http.get("/api/v1/links")
        assert r.status_code == 200
        assert r.headers["x-ratelimit-remaining"] == "2"
        assert r.headers["x-ratelimit-reset"] == "1767225604"


async def test_retry_after_is_at_least_one_second(make_app: AppFactory, clock: ManualClock) -> None:
    clock.set(1_767_225_600.9)
    async with client_for(make_app(rate_limit=1, rate_window_s=1)) as http:
        await http.get("/api/v1/links")
        r = await http.get("/api/v1/links")
        assert r.status_code == 429 and r.headers["retry-after"] == "1"


async def test_redirects_are_not_rate_limited(make_app: AppFactory) -> None:
    app = make_app(rate_limit=1)
    async with client_for(app) as http:
        await http.post("/api/v1/links", json={"url": "https://e.com", "slug": "x"})
        for _ in range(3):
            assert (await http.get("/r/lnk.test/x")).status_code == 302


async def statuses(app: Starlette, n: int) -> list[int]:
    out = []
    async with client_for(app) as http:
        for _ in range(n):
            out.append((await http.get("/api/v1/organizations/current")).status_code)
    return out


async def test_faults_are_seeded_and_repeatable(make_app: AppFactory) -> None:
    first = await statuses(make_app(fail_500=0.2, fail_503=0.2, seed=7), 200)
    again = await statuses(make_app(fail_500=0.2, fail_503=0.2, seed=7), 200)
    other = await statuses(make_app(fail_500=0.2, fail_503=0.2, seed=8), 200)
    assert first == again
    assert first != other
    assert set(first) == {200, 500, 503}
    # 0.2 of 503 first, then 0.2 of the rest as 500: about 40 and 32 of 200
    assert 20 <= first.count(503) <= 60
    assert 15 <= first.count(500) <= 50


async def test_fault_responses_use_the_error_table(make_app: AppFactory) -> None:
    async with client_for(make_app(fail_503=1.0)) as http:
        r = await http.post("/api/v1/links", json={"url": "https://e.com", "slug": "a"})
        assert_error(r, 503, "EDGE_UNAVAILABLE")
    async with client_for(make_app(fail_500=1.0)) as http:
        r = await http.post("/api/v1/links", json={"url": "https://e.com", "slug": "a"})
        assert_error(r, 500, "INTERNAL_ERROR")


async def test_faults_before_the_work_have_no_side_effects(make_app: AppFactory) -> None:
    app = make_app(fail_500=0.5, fail_503=0.3, seed=1)
    async with client_for(app) as http:
        results = []
        for i in range(40):
            r = await http.post("/api/v1/links", json={"url": "https://e.com", "slug": f"s{i}"})
            results.append(r.status_code)
    created = results.count(201)
    assert 0 < created < 40
    backend = app.state.backend
    assert backend.store.count_links() == created


async def test_500_after_write_did_the_write(make_app: AppFactory) -> None:
    app = make_app(fail_500_after_write=1.0)
    async with client_for(app) as http:
        r = await http.post("/api/v1/links", json={"url": "https://e.com", "slug": "done"})
        assert_error(r, 500, "INTERNAL_ERROR")
        got = await http.get("/api/v1/links/done")  # reads are not affected
        assert got.status_code == 200
        r = await http.post("/api/v1/links", json={"url": "https://e.com", "slug": "done"})
        assert_error(r, 500, "INTERNAL_ERROR")  # the 409 is hidden behind the fault too


async def test_drop_in_process_is_a_transport_error(make_app: AppFactory) -> None:
    async with client_for(make_app(drop=1.0)) as http:
        with pytest.raises(httpx.TransportError):
            await http.get("/api/v1/organizations/current")


async def test_latency_is_applied(make_app: AppFactory) -> None:
    # no timing assertion: the request completes with latency configured
    async with client_for(make_app(latency_ms=(1, 2))) as http:
        assert (await http.get("/api/v1/links")).status_code == 200
