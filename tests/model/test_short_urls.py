"""A listed link's short URL of the usual form is read back as it came, but not held."""

from __future__ import annotations

import dataclasses

import msgspec
import pytest

from linksync.api.pages import fast_link_page
from linksync.model import RemoteLink


def _page(*records: dict[str, object]) -> bytes:
    return msgspec.json.encode({"code": 200, "data": list(records)})


def _record(slug: str, short: str | None) -> dict[str, object]:
    return {"id": f"lnk_{slug}", "domain": "go.example.com", "slug": slug,
            "shortUrl": short, "url": f"https://example.com/{slug}"}  # fmt: skip


@pytest.mark.parametrize(
    "short",
    [
        "https://go.example.com/spring",
        "http://go.example.com/spring",
        "https://go.example.com/other",
        "https://go.example.com:8443/spring",
        "https://other.example/spring",
        None,
    ],
)
def test_a_listed_links_short_url_reads_back_as_the_service_gave_it(short: str | None) -> None:
    page = fast_link_page(_page(_record("spring", short)), page=1, limit=100)
    assert page is not None
    (link,) = page.links
    assert link.short_url == short
    assert link.to_dict()["shortUrl"] == short
    assert f"short_url={short!r}" in repr(link)
    made = RemoteLink("go.example.com", "spring", "https://example.com/spring",
                      id="lnk_spring", short_url=short)  # fmt: skip
    assert link == made
    assert RemoteLink.from_dict(link.to_dict()) == link


def test_the_usual_short_url_is_not_held_as_text() -> None:
    page = fast_link_page(
        _page(_record("spring", "https://go.example.com/spring")), page=1, limit=100
    )
    assert page is not None
    held = msgspec.structs.astuple(page.links[0])
    assert "https://go.example.com/spring" not in held


def test_a_copy_with_another_slug_keeps_the_short_url_it_had() -> None:
    link = RemoteLink("go.example.com", "a", "https://e.com", short_url="https://go.example.com/a")
    moved = dataclasses.replace(link, slug="b")
    assert moved.short_url == "https://go.example.com/a"
    assert dataclasses.replace(link, url="https://f.com").short_url == "https://go.example.com/a"
