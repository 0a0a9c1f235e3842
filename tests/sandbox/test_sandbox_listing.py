"""GET /api/v1/links: paging, order, search, tag and domain filters, query errors."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from linksync.sandbox import SandboxSettings, create_app
from support.sandbox_helpers import ManualClock

from .conftest import AppFactory, assert_error, client_for


async def seed(http: httpx.AsyncClient, clock: ManualClock, n: int) -> list[str]:
    slugs = []
    for i in range(n):
        r = await http.post(
            "/api/v1/links",
            json={
                "url": f"https://shop.example.com/item/{i}",
                "slug": f"item-{i:03d}",
                "tags": ["even" if i % 2 == 0 else "odd"],
                "description": f"Item number {i}",
            },
        )
        assert r.status_code == 201
        slugs.append(r.json()["data"]["slug"])
        if i % 3 == 0:
            clock.advance(0.5)  # several links share a createdAt: id breaks the tie
    return slugs


async def test_default_page_and_pagination_block(
    http: httpx.AsyncClient, clock: ManualClock
) -> None:
    slugs = await seed(http, clock, 45)
    r = await http.get("/api/v1/links")
    body = r.json()
    assert body["code"] == 0
    assert body["pagination"] == {"page": 1, "limit": 20, "total": 45, "totalPages": 3}
    assert [link["slug"] for link in body["data"]] == slugs[:20]


async def test_pages_cover_everything_once_in_creation_order(
    http: httpx.AsyncClient, clock: ManualClock
) -> None:
    slugs = await seed(http, clock, 45)
    seen: list[str] = []
    page = 1
    while True:
        body = (await http.get("/api/v1/links", params={"page": page, "limit": 7})).json()
        seen += [link["slug"] for link in body["data"]]
        if len(body["data"]) < 7:
            break
        page += 1
    assert seen == slugs
    assert body["pagination"] == {"page": 7, "limit": 7, "total": 45, "totalPages": 7}
    past = (await http.get("/api/v1/links", params={"page": 99})).json()
    assert past["data"] == [] and past["pagination"]["total"] == 45


async def test_limit_100_is_allowed(http: httpx.AsyncClient, clock: ManualClock) -> None:
    await seed(http, clock, 3)
    r = await http.get("/api/v1/links", params={"limit": 100})
    assert r.status_code == 200 and len(r.json()["data"]) == 3


async def test_empty_list(http: httpx.AsyncClient) -> None:
    body = (await http.get("/api/v1/links")).json()
    assert body == {
        "code": 0,
        "data": [],
        "pagination": {"page": 1, "limit": 20, "total": 0, "totalPages": 0},
    }


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"search": "ITEM-00"}, 10),  # slug, case-insensitive
        ({"search": "item/4"}, 6),  # url: item/4 and item/40..44
        ({"search": "number 1"}, 11),  # description: 1, 10-19
        ({"tag": "even"}, 23),
        ({"tag": "odd"}, 22),
        ({"tag": "EVEN"}, 0),  # tags match exactly
        ({"tag": "even", "search": "item-01"}, 5),
        ({"domain": "lnk.test"}, 45),
        ({"domain": "LNK.TEST"}, 45),
        ({"domain": "go.example.com"}, 0),
        ({"search": "%"}, 0),  # no LIKE wildcards
        ({"search": "_"}, 0),
    ],
)
async def test_filters(
    http: httpx.AsyncClient, clock: ManualClock, params: dict[str, str], expected: int
) -> None:
    await seed(http, clock, 45)
    body = (await http.get("/api/v1/links", params={**params, "limit": 100})).json()
    assert body["pagination"]["total"] == expected
    assert len(body["data"]) == expected


async def test_domain_filter_separates_domains(http: httpx.AsyncClient) -> None:
    await http.post("/api/v1/domains", json={"domain": "go.example.com"})
    await http.post("/api/v1/links", json={"url": "https://e.com/1", "slug": "a"})
    await http.post(
        "/api/v1/links", json={"url": "https://e.com/2", "slug": "a", "domain": "go.example.com"}
    )
    body = (await http.get("/api/v1/links", params={"domain": "go.example.com"})).json()
    assert [(x["domain"], x["url"]) for x in body["data"]] == [
        ("go.example.com", "https://e.com/2")
    ]


@pytest.mark.parametrize(
    "params",
    [
        {"page": "0"},
        {"page": "-1"},
        {"page": "x"},
        {"page": "1.5"},
        {"limit": "0"},
        {"limit": "101"},
        {"limit": "ten"},
        {"limit": "\u00b2"},
    ],
)
async def test_bad_query_is_invalid_request(
    http: httpx.AsyncClient, params: dict[str, str]
) -> None:
    assert_error(await http.get("/api/v1/links", params=params), 400, "INVALID_REQUEST")


async def _every_page(http: httpx.AsyncClient, **params: str) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for page in range(1, 100):
        body = (await http.get("/api/v1/links", params={**params, "page": page, "limit": 7})).json()
        out += body["data"]
        if page >= body["pagination"]["totalPages"]:
            return out
    raise AssertionError("more pages than expected")


async def test_a_page_listed_again_shows_every_write_since(
    http: httpx.AsyncClient, clock: ManualClock
) -> None:
    """The sandbox keeps each listed link encoded: every write shows on the next page."""
    await seed(http, clock, 20)
    assert await http.post("/api/v1/domains", json={"domain": "go.example.com"})
    await http.post("/api/v1/links", json={"url": "https://b.example/", "domain": "go.example.com"})
    before = await _every_page(http)
    clock.advance(1)
    patched = await http.patch(
        "/api/v1/links/item-003",
        json={"url": "https://shop.example.com/new", "tags": ["x", "ü"], "password": "pw"},
    )
    assert patched.status_code == 200
    assert (await http.delete("/api/v1/links/item-007")).status_code == 200
    clock.advance(1)
    await http.post("/api/v1/links", json={"url": "https://shop.example.com/late", "slug": "late"})
    after = await _every_page(http)
    by_slug = {link["slug"]: link for link in after}
    assert by_slug["item-003"] == patched.json()["data"]
    assert by_slug["item-003"]["hasPassword"] is True and by_slug["item-003"]["tags"] == ["x", "ü"]
    assert by_slug["item-003"]["updatedAt"] != by_slug["item-003"]["createdAt"]
    assert "item-007" not in by_slug and after[-1]["slug"] == "late"
    assert [x["slug"] for x in after] == [x["slug"] for x in before if x["slug"] != "item-007"] + [
        "late"
    ]
    for link in after:  # a page's record is the record a GET of the link gives
        one = await http.get(f"/api/v1/links/{link['slug']}", params={"domain": link["domain"]})
        assert one.json()["data"] == link
    domains = (await http.get("/api/v1/domains")).json()["data"]
    assert (await http.delete(f"/api/v1/domains/{domains[0]['id']}")).status_code == 200
    assert {x["domain"] for x in await _every_page(http)} == {"lnk.test"}


async def test_a_page_shows_the_writes_of_another_app_on_the_same_file(
    tmp_path: Path, clock: ManualClock
) -> None:
    """Two sandboxes on one state file: a page one of them listed shows the other's
    writes (the kept records are dropped when the file changed under it)."""
    path = str(tmp_path / "sandbox.db")
    ours = create_app(SandboxSettings(rate_limit=1_000_000), path, clock=clock)
    theirs = create_app(SandboxSettings(rate_limit=1_000_000), path, clock=clock)
    async with client_for(ours) as a, client_for(theirs) as b:
        await seed(a, clock, 10)
        assert [x["url"] for x in await _every_page(a)][4] == "https://shop.example.com/item/4"
        assert (
            await b.patch("/api/v1/links/item-004", json={"url": "https://o.example/"})
        ).is_success
        assert (await b.delete("/api/v1/links/item-005")).is_success
        listed = await _every_page(a)
        assert listed[4]["url"] == "https://o.example/"
        assert "item-005" not in {x["slug"] for x in listed}


@pytest.mark.parametrize("scheme", ["https", "http"])
async def test_a_listed_link_reads_as_the_same_link_fetched_alone(
    make_app: AppFactory, scheme: str
) -> None:
    """Every field of a list page's record, whatever its text holds (quotes, backslashes,
    line breaks, tabs, emoji, U+2028, text in other scripts), as GET of the one link."""
    async with client_for(make_app(short_url_scheme=scheme)) as http:
        assert (await http.post("/api/v1/domains", json={"domain": "go.example.com"})).is_success
        bodies = [
            {"url": "https://e.com/plain", "slug": "plain"},
            {
                "url": 'https://e.com/caf\u00e9?q="x"&p=1#\u00fc',
                "slug": "tricky",
                "domain": "go.example.com",
                "description": 'Line one\nline\ttwo "quoted" back\\slash \u2028 \U0001f600 \u6f22',
                "tags": ["caf\u00e9", 'say "hi"', "back\\slash", "\u0444\u043e\u0442\u043e"],
                "password": "s3cret",
                "expiresAt": "2099-01-02T03:04:05.678Z",
                "apple": "https://apps.apple.com/app/id1",
                "google": "https://play.google.com/store/apps/details?id=x",
            },
        ]
        for body in bodies:
            assert (await http.post("/api/v1/links", json=body)).status_code == 201
        listed = {}
        for domain in (None, "go.example.com"):
            params = {"domain": domain} if domain else {}
            for link in (await http.get("/api/v1/links", params=params)).json()["data"]:
                listed[link["slug"]] = link
        assert set(listed) == {"plain", "tricky"}
        for slug, domain in (("plain", None), ("tricky", "go.example.com")):
            params = {"domain": domain} if domain else {}
            alone = (await http.get(f"/api/v1/links/{slug}", params=params)).json()["data"]
            assert listed[slug] == alone
            assert list(listed[slug]) == list(alone)  # the same fields in the same order
        assert listed["tricky"]["hasPassword"] is True
        assert listed["plain"]["hasPassword"] is False
        assert listed["tricky"]["shortUrl"] == f"{scheme}://go.example.com/tricky"
