"""List pages read from the answer's bytes: the service's own shape decoded straight
into records, every other shape by the tolerant reader, the same links either way."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from linksync.api.pages import fast_link
from linksync.api.parse import parse_link, parse_link_page, unwrap_record
from linksync.errors import ApiError
from linksync.model import RemoteLink


def _record(i: int, **changes: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": f"lnk_{i:04d}",
        "domain": "lnk.test",
        "slug": f"spring-{i}",
        "shortUrl": f"https://lnk.test/spring-{i}",
        "url": f"https://example.com/{i}",
        "description": f"Link {i}",
        "tags": ["news"] if i % 2 else [],
        "apple": None,
        "google": None,
        "hasPassword": False,
        "expiresAt": None,
        "createdAt": "2026-11-01T10:00:00.000Z",
        "updatedAt": "2026-11-01T10:00:00.000Z",
    }
    record.update(changes)
    return {k: v for k, v in record.items() if v is not ...}


def _own(records: list[dict[str, Any]], **pagination: Any) -> dict[str, Any]:
    block = {"page": 1, "limit": 100, "total": len(records), "totalPages": 1} | pagination
    return {"code": 0, "data": records, "pagination": block}


#: name -> (answer body, what the links must show)
SHAPES: dict[str, dict[str, Any]] = {
    "the service's own": _own([_record(i) for i in range(5)]),
    "an unknown field": _own([_record(1, clicks=7)]),
    "a password in the record": _own([_record(1, password="hunter2", hasPassword=True)]),
    "snake_case keys": _own(
        [
            {
                "slug": "a",
                "domain": "lnk.test",
                "url": "https://e.com/a",
                "short_url": "https://lnk.test/a",
                "has_password": True,
            }
        ]
    ),
    "tags as text": _own([_record(1, tags="a, b")]),
    "a numeric id": _own([_record(1, id=42)]),
    "no domain": _own([_record(1, domain=...)]),
    "an empty slug": _own([_record(1, slug="")]),
    "an empty domain": _own([_record(1, domain="")]),
    "a null domain": _own([_record(1, domain=None)]),
    "a null URL": _own([_record(1, url=None)]),
    "a title, no description": _own([_record(1, description=..., title="Spring")]),
    "no pagination": {"code": 0, "data": [_record(1)]},
    "pagination as text": _own([_record(1)], page="1", total="1"),
    "pagination with hasMore": _own([_record(1)], hasMore=True),
    "a zero page": _own([_record(1)], page=0, limit=0),
    "nested in data": {"code": 0, "data": {"links": [_record(1)], "total": 1}},
    "no envelope": {"links": [_record(1)]},
    "an extra top-level key": {**_own([_record(1)]), "meta": {"total": 9}},
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_page_from_bytes_equals_page_from_json(shape: str) -> None:
    raw = json.dumps(SHAPES[shape]).encode()
    from_bytes = parse_link_page(raw, page=1, limit=100)
    assert from_bytes == parse_link_page(json.loads(raw), page=1, limit=100)
    assert all(isinstance(link, RemoteLink) for link in from_bytes.links)
    for link in from_bytes.links:
        assert "password" not in link.extra and "hunter2" not in repr(link)


def test_own_shape_fields() -> None:
    raw = json.dumps(_own([_record(i) for i in range(3)], total=250, totalPages=3)).encode()
    page = parse_link_page(raw, page=1, limit=100)
    assert (page.total, page.total_pages, page.is_last) == (250, 3, False)
    second = page.links[1]
    assert second.key == ("lnk.test", "spring-1")
    assert second.tags == ("news",) and second.short_url == "https://lnk.test/spring-1"
    assert second.extra == {} and second.to_dict()["createdAt"] == "2026-11-01T10:00:00.000Z"
    # one text per domain, however many links
    assert page.links[0].domain is page.links[2].domain


def test_links_made_together_hold_their_time_once() -> None:
    later = "2026-11-02T08:00:00.000Z"
    records = [_record(0), _record(1), _record(2, createdAt=later, updatedAt=later)]
    first, second, third = parse_link_page(
        json.dumps(_own(records)).encode(), page=1, limit=100
    ).links
    assert first.created_at == second.created_at == "2026-11-01T10:00:00.000Z"
    assert second.created_at is first.created_at  # equal times of neighbours: one text
    assert (
        third.created_at == third.updated_at == later and third.created_at is not first.created_at
    )
    assert [link.to_dict()["createdAt"] for link in (first, second, third)] == [
        "2026-11-01T10:00:00.000Z", "2026-11-01T10:00:00.000Z", later,
    ]  # fmt: skip


def test_unknown_fields_and_short_url_fallbacks() -> None:
    raw = json.dumps(
        _own([_record(1, clicks=7), _record(2, domain=..., slug=..., title="T", description=...)])
    ).encode()
    first, second = parse_link_page(raw, page=1, limit=100).links
    assert first.extra == {"clicks": 7}
    assert (second.domain, second.slug, second.description) == ("lnk.test", "spring-2", "T")


def test_bytes_that_are_not_json_are_refused() -> None:
    with pytest.raises(ApiError) as caught:
        parse_link_page(b"<html>busy</html>", page=1, limit=100)
    assert caught.value.constant == "UNEXPECTED_RESPONSE"


ONE_LINK: dict[str, dict[str, Any]] = {
    name: {"code": 0, "data": body["data"][0]}
    for name, body in SHAPES.items()
    if isinstance(body.get("data"), list) and body["data"]
} | {
    "no envelope code": {"data": _record(3)},
    "nested under link": {"code": 0, "data": {"link": _record(4)}},
    "a request id beside data": {"code": 0, "data": _record(5), "requestId": "req_1"},
}


@pytest.mark.parametrize("shape", sorted(ONE_LINK))
def test_one_links_answer_from_bytes_equals_the_tolerant_reading(shape: str) -> None:
    raw = json.dumps(ONE_LINK[shape]).encode()
    tolerant = parse_link(unwrap_record(json.loads(raw), "link"))
    fast = fast_link(raw)
    if shape in ("the service's own", "no envelope code"):
        assert fast is not None  # the service's own shape: no dict in between
    if fast is not None:
        assert fast == tolerant and repr(fast) == repr(tolerant)
        assert fast.to_dict() == tolerant.to_dict()


def test_one_links_answer_of_another_shape_is_left_to_the_tolerant_reader() -> None:
    for body in (_record(1, clicks=7), _record(1, slug=""), _record(1, url=None)):
        assert fast_link(json.dumps({"code": 0, "data": body}).encode()) is None
    assert fast_link(b"<html>busy</html>") is None


def test_a_page_decodes_to_the_records_made_by_hand() -> None:
    """Decoded from a page's bytes or built field by field, the same records: equal,
    shown alike, the same dicts; the page's records hold their domain and equal times
    once, and the usual short URL is not held as text."""
    later = "2026-11-02T08:00:00.000Z"
    records = [_record(0), _record(1, shortUrl="http://lnk.test/spring-1"),
               _record(2, createdAt=later, updatedAt=later, shortUrl="https://x.test/2"),
               _record(3, domain="go.test", shortUrl="https://go.test/spring-3")]  # fmt: skip
    page = parse_link_page(json.dumps(_own(records)).encode(), page=1, limit=100)
    made = [RemoteLink(r["domain"], r["slug"], r["url"], id=r["id"], short_url=r["shortUrl"],
                       description=r["description"], tags=tuple(r["tags"]),
                       created_at=r["createdAt"], updated_at=r["updatedAt"])
            for r in records]  # fmt: skip
    assert list(page.links) == made
    assert [repr(link) for link in page.links] == [repr(link) for link in made]
    assert [link.to_dict() for link in page.links] == [link.to_dict() for link in made]
    assert [link.short_url for link in page.links] == [r["shortUrl"] for r in records]
    first, second, third, fourth = page.links
    assert first.domain is second.domain is third.domain and fourth.domain == "go.test"
    assert second.created_at is first.created_at and first.updated_at is first.created_at
    assert third.updated_at is third.created_at and third.created_at is not first.created_at
    held = [msgspec.structs.astuple(link) for link in page.links]
    assert "https://lnk.test/spring-0" not in held[0] and "https://go.test/spring-3" not in held[3]
    assert "https://x.test/2" in held[2]


@pytest.mark.parametrize("field", ["domain", "slug"])
def test_an_empty_domain_or_slug_is_taken_from_the_short_url(field: str) -> None:
    raw = json.dumps(_own([_record(7, **{field: ""})])).encode()
    (link,) = parse_link_page(raw, page=1, limit=100).links
    assert (link.domain, link.slug, link.short_url) == (
        "lnk.test", "spring-7", "https://lnk.test/spring-7",
    )  # fmt: skip
    answer = json.dumps({"code": 0, "data": _record(7, **{field: ""})}).encode()
    assert fast_link(answer) is None  # left to the tolerant reader, which reads the same
