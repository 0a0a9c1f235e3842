"""GET /api/v1/links: paging, order, search, tag and domain filters, query errors."""

from __future__ import annotations

import httpx
import pytest

from support.sandbox_helpers import ManualClock

from .conftest import assert_error


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
