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


def test_records_made_one_after_another_hold_equal_text_once() -> None:
    """However a record is made (decoded, from a dict, by hand), its domain and a
    creation time equal to the record's before it are held once, as is an update time
    equal to its own creation time; the values read back as given."""
    when = "2026-11-01T10:00:00.000Z"
    first = RemoteLink.from_dict({"domain": "".join(["go.", "example.com"]), "slug": "a",
                                  "url": "https://e.com/a", "createdAt": when[:10] + when[10:],
                                  "updatedAt": when[:11] + when[11:]})  # fmt: skip
    second = RemoteLink("".join(["go.example", ".com"]), "b", "https://e.com/b",
                        created_at=when[:12] + when[12:])  # fmt: skip
    assert second.domain is first.domain and second.created_at is first.created_at
    assert first.updated_at is first.created_at
    assert (second.domain, second.created_at, first.updated_at) == ("go.example.com", when, when)
    other = RemoteLink("other.example", "c", "https://e.com/c", created_at="2026-11-02")
    assert (other.domain, other.created_at) == ("other.example", "2026-11-02")


def test_short_urls_read_back_as_given_when_a_page_switches_domains() -> None:
    """A page whose links switch between domains: each short URL is tested against its
    own link's domain, never the one before it; all read back as the service gave them."""
    records = []
    for i, (domain, host) in enumerate(
        [("a.example", "a.example"), ("b.example", "a.example"), ("b.example", "b.example"),
         ("a.example", "b.example"), ("a.example", "a.example"), ("", "a.example")]
    ):  # fmt: skip
        records.append({"domain": domain or "x", "slug": f"s{i}", "url": "https://e.com",
                        "shortUrl": f"https://{host}/s{i}"})  # fmt: skip
    page = fast_link_page(_page(*records), page=1, limit=100)
    assert page is not None
    assert [link.short_url for link in page.links] == [r["shortUrl"] for r in records]
    held = [msgspec.structs.astuple(link)[4] for link in page.links]
    own = [r["shortUrl"] == f"https://{r['domain']}/{r['slug']}" for r in records]
    assert [h != r["shortUrl"] for h, r in zip(held, records, strict=True)] == own
