"""Short-link resolution: Host header and /r/{domain}/{slug}, expiry, password gate,
iOS/Android targets, custom-domain root and not-found redirects, click counting."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from support.sandbox_helpers import ManualClock

IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15"
IPAD = "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X)"
ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/120 Mobile"
DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0"


async def clicks(http: httpx.AsyncClient) -> int:
    r = await http.get("/api/v1/organizations/current")
    n: int = r.json()["data"]["clickCountMonthly"]
    return n


async def make(http: httpx.AsyncClient, **body: Any) -> None:
    r = await http.post("/api/v1/links", json={"url": "https://example.com/dest", **body})
    assert r.status_code == 201, r.text


async def test_host_header_and_path_forms(http: httpx.AsyncClient) -> None:
    await make(http, slug="hello")
    r = await http.get("/hello", headers={"Host": "lnk.test"})
    assert r.status_code == 302 and r.headers["location"] == "https://example.com/dest"
    r = await http.get("/Hello", headers={"Host": "LNK.test:8080"})
    assert r.status_code == 302
    r = await http.get("/r/lnk.test/hello")
    assert r.status_code == 302 and r.headers["location"] == "https://example.com/dest"
    assert r.headers["cache-control"] == "no-store"
    assert await clicks(http) == 3


@pytest.mark.parametrize(
    "path",
    ["/r/lnk.test/nothing", "/r/other.example/hello", "/r/lnk.test/api", "/r/lnk.test/bad--slug"],
)
async def test_unknown_is_404_page(http: httpx.AsyncClient, path: str) -> None:
    await make(http, slug="hello")
    r = await http.get(path)
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("text/html")
    assert await clicks(http) == 0


async def test_unknown_host_is_404(http: httpx.AsyncClient) -> None:
    await make(http, slug="hello")
    assert (await http.get("/hello")).status_code == 404  # Host: sandbox.local


async def test_expired_link_is_410(http: httpx.AsyncClient, clock: ManualClock) -> None:
    await make(http, slug="flash", expiresAt="2026-01-01T00:01:00Z")
    assert (await http.get("/r/lnk.test/flash")).status_code == 302
    clock.advance(59.9)
    assert (await http.get("/r/lnk.test/flash")).status_code == 302
    clock.advance(0.1)
    r = await http.get("/r/lnk.test/flash")
    assert r.status_code == 410 and "expired" in r.text
    assert await clicks(http) == 2


async def test_password_gate(http: httpx.AsyncClient) -> None:
    await make(http, slug="vip", password="open sesame")
    r = await http.get("/r/lnk.test/vip")
    assert r.status_code == 401
    assert '<form method="post">' in r.text and 'name="password"' in r.text
    assert (await http.get("/r/lnk.test/vip", params={"password": "nope"})).status_code == 401
    r = await http.get("/r/lnk.test/vip", params={"password": "open sesame"})
    assert r.status_code == 302 and r.headers["location"] == "https://example.com/dest"
    r = await http.post("/r/lnk.test/vip", data={"password": "open sesame"})
    assert r.status_code == 302
    r = await http.post("/vip", data={"password": "wrong"}, headers={"Host": "lnk.test"})
    assert r.status_code == 401 and "Wrong password" in r.text
    assert await clicks(http) == 2


@pytest.mark.parametrize(
    ("agent", "target"),
    [
        (IPHONE, "https://apps.apple.com/app/id1"),
        (IPAD, "https://apps.apple.com/app/id1"),
        (ANDROID, "https://play.google.com/store/apps/details?id=x"),
        (DESKTOP, "https://example.com/dest"),
        ("", "https://example.com/dest"),
    ],
)
async def test_device_targets(http: httpx.AsyncClient, agent: str, target: str) -> None:
    await make(
        http,
        slug="mobile",
        apple="https://apps.apple.com/app/id1",
        google="https://play.google.com/store/apps/details?id=x",
    )
    r = await http.get("/r/lnk.test/mobile", headers={"User-Agent": agent})
    assert r.status_code == 302 and r.headers["location"] == target


async def test_device_without_target_gets_the_url(http: httpx.AsyncClient) -> None:
    await make(http, slug="web")
    r = await http.get("/r/lnk.test/web", headers={"User-Agent": IPHONE})
    assert r.headers["location"] == "https://example.com/dest"


async def test_custom_domain_root_and_not_found(http: httpx.AsyncClient) -> None:
    await http.post(
        "/api/v1/domains",
        json={
            "domain": "go.example.com",
            "rootRedirectUrl": "https://example.com/home",
            "notFoundRedirectUrl": "https://example.com/missing",
        },
    )
    await make(http, slug="x", domain="go.example.com")
    host = {"Host": "go.example.com"}
    assert (await http.get("/x", headers=host)).headers["location"] == "https://example.com/dest"
    r = await http.get("/nope", headers=host)
    assert r.status_code == 302 and r.headers["location"] == "https://example.com/missing"
    r = await http.get("/", headers=host)
    assert r.status_code == 302 and r.headers["location"] == "https://example.com/home"
    assert (await http.get("/x", headers={"Host": "lnk.test"})).status_code == 404
    assert await clicks(http) == 1
    index = await http.get("/")
    assert index.status_code == 200 and "/api/v1" in index.text
