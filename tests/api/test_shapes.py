"""Tolerant reading: list shapes, pagination present or missing, extra fields."""

from __future__ import annotations

from typing import Any

import pytest
from api_fakes import FakeService, Reply, Seen, fake_client, ok

from linksync.api.parse import parse_link, parse_link_page
from linksync.errors import ApiError


def _links(n: int, start: int = 0) -> list[dict[str, Any]]:
    return [
        {"slug": f"s{i}", "domain": "lnk.test", "url": f"https://e.com/{i}", "clicks": i}
        for i in range(start, start + n)
    ]


ALL = _links(250)


def _page(seen: Seen) -> tuple[list[dict[str, Any]], int, int]:
    page = int(seen.query.get("page", "1"))
    limit = int(seen.query.get("limit", "20"))
    return ALL[(page - 1) * limit : page * limit], page, limit


SHAPES = {
    "array with pagination": lambda items, page, limit: ok(
        items,
        pagination={"page": page, "limit": limit, "total": 250, "totalPages": 3},
    ),
    "array, no pagination": lambda items, page, limit: ok(items),
    "nested links": lambda items, page, limit: ok({"links": items, "total": 250}),
    "nested items snake_case": lambda items, page, limit: ok(
        {"items": items, "has_more": page * limit < 250}
    ),
    "nested data.data": lambda items, page, limit: ok({"data": items}),
    "no envelope": lambda items, page, limit: Reply(200, {"links": items}),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
async def test_iter_links_reads_every_shape(shape: str) -> None:
    def handler(seen: Seen) -> Reply:
        items, page, limit = _page(seen)
        return SHAPES[shape](items, page, limit)

    app = FakeService(handler)
    async with fake_client(app) as client:
        links = await client.list_links()
    assert [ln.slug for ln in links] == [f"s{i}" for i in range(250)]
    assert links[7].extra == {"clicks": 7}
    assert [s.query["page"] for s in app.seen] == ["1", "2", "3"]
    assert {s.query["limit"] for s in app.seen} == {"100"}


async def test_iteration_stops_when_service_ignores_page() -> None:
    app = FakeService(lambda seen: ok(ALL[:100]))
    async with fake_client(app) as client:
        links = await client.list_links()
    assert len(links) == 100
    assert len(app.seen) == 2  # the second page brought nothing new


async def test_filters_are_sent_and_empty_ones_left_out() -> None:
    app = FakeService(lambda seen: ok([]))
    async with fake_client(app) as client:
        page = await client.list_links_page(2, 50, search="spring", tag=None, domain="go.x")
    assert page.links == () and page.is_last
    assert app.seen[0].query == {"page": "2", "limit": "50", "search": "spring", "domain": "go.x"}


async def test_page_size_is_bounded() -> None:
    async with fake_client(FakeService(lambda s: ok([]))) as client:
        with pytest.raises(ValueError):
            await client.list_links_page(1, 101)


def test_link_record_snake_case_and_short_url_only() -> None:
    link = parse_link(
        {"short_url": "https://go.x/abc", "destination": "https://e.com", "has_password": True,
         "password": "hunter2", "expires_at": "2030-01-01T00:00:00Z", "tags": "a, b"}
    )  # fmt: skip
    assert (link.domain, link.slug, link.url) == ("go.x", "abc", "https://e.com")
    assert link.has_password and link.tags == ("a", "b")
    assert link.expires_at == "2030-01-01T00:00:00Z"
    assert "password" not in link.extra and "hunter2" not in repr(link)


def test_link_record_without_identity_is_refused() -> None:
    with pytest.raises(ApiError) as info:
        parse_link({"url": "https://e.com"})
    assert info.value.constant == "UNEXPECTED_RESPONSE"


def test_list_without_array_is_refused() -> None:
    with pytest.raises(ApiError) as info:
        parse_link_page({"code": 0, "data": {"count": 3}}, page=1, limit=20)
    assert info.value.constant == "UNEXPECTED_RESPONSE"


def test_pagination_metadata_decides_last_page() -> None:
    body = {"code": 0, "data": _links(20), "pagination": {"page": 1, "limit": 20, "totalPages": 1}}
    assert parse_link_page(body, page=1, limit=20).is_last
    body["pagination"] = {"page": 1, "limit": 20, "totalPages": 2}
    assert not parse_link_page(body, page=1, limit=20).is_last
