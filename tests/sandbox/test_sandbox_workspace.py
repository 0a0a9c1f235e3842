"""Organization usage, members, custom domains and the AI tools, through HTTP."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from .conftest import AppFactory, assert_error, client_for

ORG_KEYS = {
    "id",
    "name",
    "plan",
    "linkCount",
    "linkQuota",
    "clickCountMonthly",
    "clickQuotaMonthly",
    "customDomainCount",
    "customDomainQuota",
}


async def org(http: httpx.AsyncClient) -> dict[str, Any]:
    r = await http.get("/api/v1/organizations/current")
    assert r.status_code == 200 and r.json()["code"] == 0
    data: dict[str, Any] = r.json()["data"]
    return data


async def test_organization_defaults(http: httpx.AsyncClient) -> None:
    data = await org(http)
    assert set(data) == ORG_KEYS
    assert (data["linkQuota"], data["customDomainQuota"], data["clickQuotaMonthly"]) == (
        10_000,
        3,
        100_000,
    )
    assert (data["linkCount"], data["customDomainCount"], data["clickCountMonthly"]) == (0, 0, 0)


async def test_usage_is_live(http: httpx.AsyncClient) -> None:
    dom = (await http.post("/api/v1/domains", json={"domain": "go.example.com"})).json()["data"]
    await http.post("/api/v1/links", json={"url": "https://e.com", "slug": "a"})
    await http.post("/api/v1/links", json={"url": "https://e.com", "domain": "go.example.com"})
    assert (await http.get("/r/lnk.test/a")).status_code == 302
    assert (await http.get("/r/lnk.test/a")).status_code == 302
    data = await org(http)
    assert (data["linkCount"], data["customDomainCount"], data["clickCountMonthly"]) == (2, 1, 2)
    await http.delete(f"/api/v1/domains/{dom['id']}")  # takes its links with it
    data = await org(http)
    assert (data["linkCount"], data["customDomainCount"]) == (1, 0)


async def test_members_seeded_owner_and_invites(http: httpx.AsyncClient) -> None:
    members = (await http.get("/api/v1/organizations/members")).json()["data"]
    assert [(m["email"], m["role"], m["status"]) for m in members] == [
        ("owner@sandbox.test", "owner", "active")
    ]
    for role in ("admin", "member", "owner"):
        r = await http.post(
            "/api/v1/organizations/members/invite",
            json={"email": f"{role}@Example.com", "role": role},
        )
        assert r.status_code == 201
        assert r.json()["data"]["status"] == "pending"
        assert r.json()["data"]["email"] == f"{role}@example.com"
    members = (await http.get("/api/v1/organizations/members")).json()["data"]
    assert [m["role"] for m in members] == ["owner", "admin", "member", "owner"]
    r = await http.post(
        "/api/v1/organizations/members/invite",
        json={"email": "ADMIN@example.com", "role": "member"},
    )
    assert_error(r, 409, "MEMBER_EXISTS")


@pytest.mark.parametrize(
    "body",
    [
        {"email": "a@example.com", "role": "superuser"},
        {"email": "a@example.com", "role": "Admin"},
        {"email": "a@example.com"},
        {"email": "not-an-email", "role": "member"},
        {"email": "a@b", "role": "member"},
        {"role": "member"},
        {"email": 1, "role": "member"},
        {"email": "a@example.com", "role": "member", "extra": True},
    ],
)
async def test_invite_error_rows(http: httpx.AsyncClient, body: dict[str, Any]) -> None:
    r = await http.post("/api/v1/organizations/members/invite", json=body)
    assert_error(r, 400, "INVALID_REQUEST")


async def test_domain_lifecycle(http: httpx.AsyncClient) -> None:
    r = await http.post(
        "/api/v1/domains",
        json={
            "domain": "Go.Example.com",
            "rootRedirectUrl": "https://example.com",
            "notFoundRedirectUrl": "https://example.com/404",
        },
    )
    assert r.status_code == 201
    dom = r.json()["data"]
    assert dom["domain"] == "go.example.com"
    assert (dom["status"], dom["sslStatus"], dom["cnameTarget"]) == (
        "pending",
        "pending",
        "cname.lnk.test",
    )
    assert dom["rootRedirectUrl"] == "https://example.com"
    assert dom["createdAt"].endswith("Z") and len(dom["createdAt"]) == 24
    listed = (await http.get("/api/v1/domains")).json()
    assert listed == {"code": 0, "data": [dom]}
    verified = (await http.post(f"/api/v1/domains/{dom['id']}/verify")).json()["data"]
    assert (verified["status"], verified["sslStatus"]) == ("active", "active")
    again = await http.post(f"/api/v1/domains/{dom['id']}/verify")
    assert again.status_code == 200 and again.json()["data"]["status"] == "active"
    deleted = await http.delete(f"/api/v1/domains/{dom['id']}")
    assert deleted.status_code == 200 and deleted.json()["data"]["id"] == dom["id"]
    assert (await http.get("/api/v1/domains")).json()["data"] == []


async def test_pending_domain_accepts_links(http: httpx.AsyncClient) -> None:
    await http.post("/api/v1/domains", json={"domain": "go.example.com"})
    r = await http.post(
        "/api/v1/links", json={"url": "https://e.com", "slug": "x", "domain": "go.example.com"}
    )
    assert r.status_code == 201


@pytest.mark.parametrize(
    ("body", "status", "constant"),
    [
        ({"domain": "not a host"}, 400, "INVALID_REQUEST"),
        ({"domain": "localhost"}, 400, "INVALID_REQUEST"),
        ({"domain": "exa_mple.com"}, 400, "INVALID_REQUEST"),
        ({"domain": "x.lnk.test"}, 400, "INVALID_REQUEST"),
        ({"rootRedirectUrl": "https://e.com"}, 400, "INVALID_REQUEST"),
        ({"domain": 7}, 400, "INVALID_REQUEST"),
        ({"domain": "go.example.com", "rootRedirectUrl": "e.com"}, 400, "INVALID_URL"),
        ({"domain": "go.example.com", "notFoundRedirectUrl": "ftp://e"}, 400, "INVALID_URL"),
        ({"domain": "lnk.test"}, 409, "DOMAIN_EXISTS"),
    ],
)
async def test_domain_create_error_rows(
    http: httpx.AsyncClient, body: dict[str, Any], status: int, constant: str
) -> None:
    assert_error(await http.post("/api/v1/domains", json=body), status, constant)


async def test_domain_exists_and_quota(make_app: AppFactory) -> None:
    async with client_for(make_app(custom_domain_quota=2)) as http:
        for host in ("a.example.com", "b.example.com"):
            assert (await http.post("/api/v1/domains", json={"domain": host})).status_code == 201
        r = await http.post("/api/v1/domains", json={"domain": "A.example.com"})
        assert_error(r, 409, "DOMAIN_EXISTS")
        r = await http.post("/api/v1/domains", json={"domain": "c.example.com"})
        assert_error(r, 403, "QUOTA_EXCEEDED")


@pytest.mark.parametrize(("method", "suffix"), [("POST", "/verify"), ("DELETE", "")])
async def test_unknown_domain_id_is_404(http: httpx.AsyncClient, method: str, suffix: str) -> None:
    r = await http.request(method, f"/api/v1/domains/dom_missing{suffix}")
    assert_error(r, 404, "DOMAIN_NOT_FOUND")


async def test_read_only_key_reads_but_cannot_manage(app: Starlette) -> None:
    async with client_for(app) as http, client_for(app, "sandbox-read-only-key") as ro:
        dom = (await http.post("/api/v1/domains", json={"domain": "go.example.com"})).json()
        dom_id = dom["data"]["id"]
        assert (await ro.get("/api/v1/domains")).status_code == 200
        assert (await ro.get("/api/v1/organizations/members")).status_code == 200
        assert (await ro.get("/api/v1/organizations/current")).status_code == 200
        for method, path, body in [
            ("POST", "/api/v1/domains", {"domain": "b.example.com"}),
            ("POST", f"/api/v1/domains/{dom_id}/verify", None),
            ("DELETE", f"/api/v1/domains/{dom_id}", None),
            ("POST", "/api/v1/organizations/members/invite", {"email": "a@b.co", "role": "admin"}),
        ]:
            assert_error(await ro.request(method, path, json=body), 403, "FORBIDDEN")
        # the AI tools create nothing: a read-only key may use them
        r = await ro.post("/api/v1/tools/ai-slug", json={"url": "https://e.com/spring-sale"})
        assert r.status_code == 200


@pytest.mark.parametrize(
    ("url", "slug"),
    [
        ("https://shop.example.com/products/summer-shoes/index.html", "products-summer-shoes"),
        ("https://example.com/blog/2024/how-to-ship-fast?utm_source=x", "how-to-ship-fast"),
        ("https://www.example.co.uk/", "example"),
        ("https://api.example.com/docs", "docs-link"),
        ("https://example.com/%C3%A9t%C3%A9-sale", "ete-sale"),
    ],
)
async def test_ai_slug(http: httpx.AsyncClient, url: str, slug: str) -> None:
    r = await http.post("/api/v1/tools/ai-slug", json={"url": url})
    assert r.status_code == 200
    assert r.json() == {"code": 0, "data": {"slug": slug}}


async def test_ai_slug_is_valid_and_free(http: httpx.AsyncClient) -> None:
    url = "https://example.com/spring-sale"
    first = (await http.post("/api/v1/tools/ai-slug", json={"url": url})).json()["data"]["slug"]
    assert first == "spring-sale"
    await http.post("/api/v1/links", json={"url": url, "slug": first})
    second = (await http.post("/api/v1/tools/ai-slug", json={"url": url})).json()["data"]["slug"]
    assert second == "spring-sale-2"
    r = await http.post("/api/v1/links", json={"url": url, "slug": second})
    assert r.status_code == 201


async def test_ai_og(http: httpx.AsyncClient) -> None:
    r = await http.post(
        "/api/v1/tools/ai-og", json={"url": "https://shop.example.com/summer-shoes"}
    )
    assert r.json() == {
        "code": 0,
        "data": {
            "title": "Summer shoes | Example",
            "description": "Summer shoes on Example. Open the link to read more.",
        },
    }
    home = (await http.post("/api/v1/tools/ai-og", json={"url": "https://example.com"})).json()
    assert home["data"] == {"title": "Example", "description": "Home page of Example."}


@pytest.mark.parametrize("tool", ["ai-slug", "ai-og"])
@pytest.mark.parametrize(
    ("body", "constant"),
    [
        ({"url": "notaurl"}, "INVALID_URL"),
        ({"url": "https://e.com/\u200d"}, "INVALID_URL"),
        ({}, "INVALID_URL"),
        ({"url": ["x"]}, "INVALID_REQUEST"),
        ({"url": "https://e.com", "lang": "fr"}, "INVALID_REQUEST"),
    ],
)
async def test_ai_tool_errors(
    http: httpx.AsyncClient, tool: str, body: dict[str, Any], constant: str
) -> None:
    assert_error(await http.post(f"/api/v1/tools/{tool}", json=body), 400, constant)
