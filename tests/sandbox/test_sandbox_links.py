"""Links through HTTP: create, get, patch, delete, and every link error rule."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from support.sandbox_helpers import ManualClock

from .conftest import AppFactory, assert_error, client_for

LINK_KEYS = {
    "id",
    "domain",
    "slug",
    "shortUrl",
    "url",
    "description",
    "tags",
    "apple",
    "google",
    "hasPassword",
    "expiresAt",
    "createdAt",
    "updatedAt",
}
FUTURE = "2026-06-30T12:00:00Z"  # the manual clock starts at 2026-01-01


async def create(http: httpx.AsyncClient, **body: Any) -> httpx.Response:
    return await http.post("/api/v1/links", json=body)


async def test_create_returns_201_and_the_full_record(http: httpx.AsyncClient) -> None:
    r = await create(
        http,
        url="https://example.com/sale",
        slug="Spring-Sale",
        description="Spring sale",
        tags=["sale", "spring", "sale"],
        password="s3cret",
        expiresAt="2026-06-30T14:00:00+02:00",
        apple="https://apps.apple.com/app/id1",
        google="https://play.google.com/store/apps/details?id=x",
    )
    assert r.status_code == 201
    body = r.json()
    assert body["code"] == 0
    link = body["data"]
    assert set(link) == LINK_KEYS
    assert link["domain"] == "lnk.test"
    assert link["slug"] == "Spring-Sale"
    assert link["shortUrl"] == "https://lnk.test/Spring-Sale"
    assert link["tags"] == ["sale", "spring"]
    assert link["hasPassword"] is True
    assert "password" not in link and "s3cret" not in r.text
    assert link["expiresAt"] == FUTURE.replace("Z", ".000Z")
    assert link["createdAt"] == "2026-01-01T00:00:00.000Z" == link["updatedAt"]
    got = await http.get("/api/v1/links/spring-sale")  # slugs match case-insensitively
    assert got.status_code == 200 and got.json() == {"code": 0, "data": link}


async def test_generated_slugs_are_six_characters_and_distinct(http: httpx.AsyncClient) -> None:
    slugs = set()
    for _ in range(30):
        r = await create(http, url="https://example.com/x")
        assert r.status_code == 201
        slug = r.json()["data"]["slug"]
        assert len(slug) == 6 and slug.isalnum() and slug == slug.lower()
        slugs.add(slug)
    assert len(slugs) == 30


@pytest.mark.parametrize(
    ("body", "status", "constant"),
    [
        ({"url": "ftp://example.com"}, 400, "INVALID_URL"),
        ({"url": "example.com"}, 400, "INVALID_URL"),
        ({"url": "https://example.com/\u200bx"}, 400, "INVALID_URL"),
        ({"url": "https://example.com/x\u00a0"}, 400, "INVALID_URL"),
        ({"url": "https://example.com/\u202ex"}, 400, "INVALID_URL"),
        ({"url": ""}, 400, "INVALID_URL"),
        ({}, 400, "INVALID_URL"),
        ({"url": "https://e.com", "apple": "itms://x"}, 400, "INVALID_URL"),
        ({"url": "https://e.com", "google": "https://e.com/\ufeff"}, 400, "INVALID_URL"),
        ({"url": "https://e.com", "slug": "bad slug"}, 400, "INVALID_SLUG"),
        ({"url": "https://e.com", "slug": "a--b"}, 400, "INVALID_SLUG"),
        ({"url": "https://e.com", "slug": "-a"}, 400, "INVALID_SLUG"),
        ({"url": "https://e.com", "slug": "x" * 2049}, 400, "INVALID_SLUG"),
        ({"url": "https://e.com", "slug": ""}, 400, "INVALID_SLUG"),
        ({"url": "https://e.com", "slug": "api"}, 400, "RESERVED_SLUG"),
        ({"url": "https://e.com", "slug": "Dashboard"}, 400, "RESERVED_SLUG"),
        ({"url": "https://e.com", "expiresAt": "2025-12-31T00:00:00Z"}, 400, "INVALID_EXPIRY"),
        ({"url": "https://e.com", "expiresAt": "next week"}, 400, "INVALID_EXPIRY"),
        ({"url": "https://e.com", "expiresAt": "2026-12-31"}, 400, "INVALID_EXPIRY"),
        ({"url": "https://e.com", "domain": "go.nowhere.com"}, 404, "DOMAIN_NOT_FOUND"),
        ({"url": 5}, 400, "INVALID_REQUEST"),
        ({"url": "https://e.com", "slug": 123}, 400, "INVALID_REQUEST"),
        ({"url": "https://e.com", "tags": "a,b"}, 400, "INVALID_REQUEST"),
        ({"url": "https://e.com", "tags": ["ok", 1]}, 400, "INVALID_REQUEST"),
        ({"url": "https://e.com", "tags": [""]}, 400, "INVALID_REQUEST"),
        ({"url": "https://e.com", "password": ""}, 400, "INVALID_REQUEST"),
        ({"url": "https://e.com", "expires_at": FUTURE}, 400, "INVALID_REQUEST"),
        ({"url": "https://e.com", "expiresAt": 1767225600}, 400, "INVALID_REQUEST"),
    ],
)
async def test_create_error_rows(
    http: httpx.AsyncClient, body: dict[str, Any], status: int, constant: str
) -> None:
    assert_error(await http.post("/api/v1/links", json=body), status, constant)
    org = (await http.get("/api/v1/organizations/current")).json()["data"]
    assert org["linkCount"] == 0


async def test_slug_exists_is_409_per_domain_and_case_insensitive(http: httpx.AsyncClient) -> None:
    assert (await create(http, url="https://e.com/1", slug="promo")).status_code == 201
    err = assert_error(await create(http, url="https://e.com/2", slug="PROMO"), 409, "SLUG_EXISTS")
    assert "PATCH" in err["message"]
    dom = await http.post("/api/v1/domains", json={"domain": "go.example.com"})
    assert dom.status_code == 201
    other = await create(http, url="https://e.com/3", slug="promo", domain="GO.example.com")
    assert other.status_code == 201
    assert other.json()["data"]["domain"] == "go.example.com"
    assert other.json()["data"]["shortUrl"] == "https://go.example.com/promo"


@pytest.mark.parametrize(
    "body",
    [b"{not json", b"[1, 2]", b'"text"', b"\xff\xfe"],
)
async def test_bad_json_bodies_are_invalid_request(http: httpx.AsyncClient, body: bytes) -> None:
    r = await http.post("/api/v1/links", content=body, headers={"Content-Type": "application/json"})
    assert_error(r, 400, "INVALID_REQUEST")


@pytest.mark.parametrize(
    ("body", "status", "constant"),
    [
        # a UTF-8 byte order mark, and UTF-16: read as before, the link is created
        (b'\xef\xbb\xbf{"url": "https://e.com/bom", "slug": "bom"}', 201, None),
        ('{"url": "https://e.com/u16", "slug": "u16"}'.encode("utf-16"), 201, None),
        # NaN, an integer past 64 bits: JSON read, then refused by field
        (b'{"url": "https://e.com/n", "description": NaN}', 400, "INVALID_REQUEST"),
        (b'{"url": "https://e.com/i", "tags": [123456789012345678901234567890]}', 400,
         "INVALID_REQUEST"),
        # a lone surrogate is no Unicode text: refused whole, not a server error
        (b'{"url": "https://e.com/s", "slug": "\\ud800"}', 400, "INVALID_REQUEST"),
        (b'{"url": "https://e.com/\\udc00x"}', 400, "INVALID_REQUEST"),
        (b'{"url": "https://e.com/p", "password": "pa\\ud800ss-word-1"}', 400,
         "INVALID_REQUEST"),
    ],
)  # fmt: skip
async def test_bodies_only_a_lenient_json_reader_reads_are_answered_as_before(
    http: httpx.AsyncClient, body: bytes, status: int, constant: str | None
) -> None:
    r = await http.post("/api/v1/links", content=body, headers={"Content-Type": "application/json"})
    if constant is None:
        assert r.status_code == status, r.text
        assert r.json()["data"]["url"].startswith("https://e.com/")
    else:
        assert_error(r, status, constant)


async def test_wrong_content_type_is_invalid_request(http: httpx.AsyncClient) -> None:
    r = await http.post("/api/v1/links", content=b'{"url":"https://e.com"}')
    assert_error(r, 400, "INVALID_REQUEST")
    r = await http.post("/api/v1/links", data={"url": "https://e.com"})
    assert_error(r, 400, "INVALID_REQUEST")


async def test_link_quota_is_403_quota_exceeded(make_app: AppFactory) -> None:
    async with client_for(make_app(link_quota=2)) as http:
        for i in range(2):
            assert (await create(http, url=f"https://e.com/{i}")).status_code == 201
        assert_error(await create(http, url="https://e.com/x"), 403, "QUOTA_EXCEEDED")
        # an existing slug is still reported as such, not as quota
        first = (await http.get("/api/v1/links")).json()["data"][0]["slug"]
        assert_error(await create(http, url="https://e.com/y", slug=first), 409, "SLUG_EXISTS")
        # deleting frees room
        assert (await http.delete(f"/api/v1/links/{first}")).status_code == 200
        assert (await create(http, url="https://e.com/z")).status_code == 201


async def test_patch_changes_only_supplied_fields(
    http: httpx.AsyncClient, clock: ManualClock
) -> None:
    await create(
        http, url="https://e.com/a", slug="p", description="d", tags=["t"], apple="https://a.com"
    )
    clock.advance(60)
    r = await http.patch("/api/v1/links/p", json={"url": "https://e.com/b", "tags": ["u", "v"]})
    assert r.status_code == 200
    link = r.json()["data"]
    assert (link["url"], link["tags"], link["description"], link["apple"]) == (
        "https://e.com/b",
        ["u", "v"],
        "d",
        "https://a.com",
    )
    assert link["updatedAt"] == "2026-01-01T00:01:00.000Z"
    assert link["createdAt"] == "2026-01-01T00:00:00.000Z"
    r = await http.patch(
        "/api/v1/links/p?domain=lnk.test",
        json={"description": None, "apple": None, "tags": None, "password": "pw"},
    )
    link = r.json()["data"]
    assert (link["description"], link["apple"], link["tags"], link["hasPassword"]) == (
        None,
        None,
        [],
        True,
    )
    r = await http.patch("/api/v1/links/p", json={"password": None})
    assert r.json()["data"]["hasPassword"] is False


@pytest.mark.parametrize(
    ("body", "status", "constant"),
    [
        ({"expiresAt": FUTURE}, 400, "INVALID_REQUEST"),
        ({"slug": "other"}, 400, "INVALID_REQUEST"),
        ({"domain": "lnk.test"}, 400, "INVALID_REQUEST"),
        ({"nope": 1}, 400, "INVALID_REQUEST"),
        ({}, 400, "INVALID_REQUEST"),
        ({"url": None}, 400, "INVALID_URL"),
        ({"url": "mailto:a@b.c"}, 400, "INVALID_URL"),
        ({"url": "https://e.com/\u2060"}, 400, "INVALID_URL"),
        ({"apple": "nope"}, 400, "INVALID_URL"),
        ({"tags": [None]}, 400, "INVALID_REQUEST"),
        ({"description": 3}, 400, "INVALID_REQUEST"),
    ],
)
async def test_patch_error_rows(
    http: httpx.AsyncClient, body: dict[str, Any], status: int, constant: str
) -> None:
    await create(http, url="https://e.com/a", slug="p")
    assert_error(await http.patch("/api/v1/links/p", json=body), status, constant)
    assert (await http.get("/api/v1/links/p")).json()["data"]["url"] == "https://e.com/a"


@pytest.mark.parametrize("method", ["GET", "PATCH", "DELETE"])
async def test_missing_link_is_404_link_not_found(http: httpx.AsyncClient, method: str) -> None:
    await http.post("/api/v1/domains", json={"domain": "go.example.com"})
    await create(http, url="https://e.com/a", slug="here")
    body = {"json": {"description": "x"}} if method == "PATCH" else {}
    r = await http.request(method, "/api/v1/links/missing", **body)  # type: ignore[arg-type]
    assert_error(r, 404, "LINK_NOT_FOUND")
    r = await http.request(method, "/api/v1/links/here?domain=go.example.com", **body)  # type: ignore[arg-type]
    assert_error(r, 404, "LINK_NOT_FOUND")
    r = await http.request(method, "/api/v1/links/here?domain=unknown.example", **body)  # type: ignore[arg-type]
    assert_error(r, 404, "DOMAIN_NOT_FOUND")


async def test_delete_returns_the_removed_link(http: httpx.AsyncClient) -> None:
    created = (await create(http, url="https://e.com/a", slug="gone")).json()["data"]
    r = await http.delete("/api/v1/links/gone?domain=lnk.test")
    assert r.status_code == 200 and r.json() == {"code": 0, "data": created}
    assert_error(await http.get("/api/v1/links/gone"), 404, "LINK_NOT_FOUND")
    assert_error(await http.delete("/api/v1/links/gone"), 404, "LINK_NOT_FOUND")


async def test_expired_links_stay_listed_and_readable(
    http: httpx.AsyncClient, clock: ManualClock
) -> None:
    await create(http, url="https://e.com/a", slug="soon", expiresAt="2026-01-01T00:00:10Z")
    clock.advance(60)
    assert (await http.get("/api/v1/links/soon")).status_code == 200
    # a past expiry cannot be set any more
    r = await create(http, url="https://e.com/a", expiresAt="2026-01-01T00:00:30Z")
    assert_error(r, 400, "INVALID_EXPIRY")


async def test_read_only_key_cannot_write_links(app: Starlette, http: httpx.AsyncClient) -> None:
    await create(http, url="https://e.com/a", slug="mine")
    async with client_for(app, "sandbox-read-only-key") as ro:
        assert (await ro.get("/api/v1/links/mine")).status_code == 200
        assert_error(await create(ro, url="https://e.com/b"), 403, "FORBIDDEN")
        assert_error(
            await ro.patch("/api/v1/links/mine", json={"url": "https://x.com"}), 403, "FORBIDDEN"
        )
        assert_error(await ro.delete("/api/v1/links/mine"), 403, "FORBIDDEN")
        # FORBIDDEN comes before body validation
        assert_error(await create(ro, url="not a url"), 403, "FORBIDDEN")
    assert (await http.get("/api/v1/links/mine")).json()["data"]["url"] == "https://e.com/a"
