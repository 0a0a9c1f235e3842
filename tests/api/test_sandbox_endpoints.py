"""Every endpoint against the in-process sandbox, and every error constant it can give."""

from __future__ import annotations

import pytest
from api_fakes import ClientFactory

from linksync.api import LinkServiceClient, call_scope
from linksync.errors import ApiError
from linksync.sandbox import DEFAULT_READ_KEY, SandboxSettings


async def test_organization(client: LinkServiceClient) -> None:
    org = await client.get_organization()
    assert org.name == "Sandbox Organization" and org.plan == "sandbox"
    assert (org.link_count, org.link_quota) == (0, 10_000)
    assert org.custom_domain_quota == 3
    assert [q.label for q in org.quotas()] == ["links", "clicks this month", "custom domains"]


async def test_members_list_and_invite(client: LinkServiceClient) -> None:
    members = await client.list_members()
    assert [(m.email, m.role) for m in members] == [("owner@sandbox.test", "owner")]
    inv = await client.invite_member("ana@example.com", "admin")
    assert (inv.email, inv.role) == ("ana@example.com", "admin")
    assert {m.email for m in await client.list_members()} >= {"ana@example.com"}
    with pytest.raises(ApiError) as dup:
        await client.invite_member("ana@example.com", "member")
    assert dup.value.constant == "MEMBER_EXISTS"
    with pytest.raises(ApiError) as bad:
        await client.invite_member("bo@example.com", "emperor")
    assert bad.value.constant == "INVALID_REQUEST"


async def test_domains_lifecycle(client: LinkServiceClient) -> None:
    d = await client.create_domain(
        "go.example.com", "https://example.com", "https://example.com/404"
    )
    assert d.domain == "go.example.com" and d.cname_target == "cname.lnk.test"
    assert d.root_redirect_url == "https://example.com"
    assert [x.id for x in await client.list_domains()] == [d.id]
    verified = await client.verify_domain(d.id)
    assert verified.id == d.id and verified.active
    with pytest.raises(ApiError) as exists:
        await client.create_domain("go.example.com")
    assert exists.value.constant == "DOMAIN_EXISTS"
    await client.delete_domain(d.id)
    assert await client.list_domains() == ()
    with pytest.raises(ApiError) as gone:
        await client.verify_domain(d.id)
    assert (gone.value.status, gone.value.constant) == (404, "DOMAIN_NOT_FOUND")


async def test_domain_quota(client: LinkServiceClient) -> None:
    for i in range(3):
        await client.create_domain(f"d{i}.example.com")
    with pytest.raises(ApiError) as info:
        await client.create_domain("d3.example.com")
    assert (info.value.status, info.value.constant) == (403, "QUOTA_EXCEEDED")


async def test_link_lifecycle(client: LinkServiceClient) -> None:
    with call_scope() as scope:
        link = await client.create_link(
            {
                "url": "https://example.com/sale",
                "slug": "spring-sale",
                "description": "Spring sale",
                "tags": ("sale", "spring"),
                "password": "s3cret",
                "expiresAt": "2030-01-01T00:00:00.000Z",
                "apple": "https://apps.apple.com/app/id1",
                "google": "https://play.google.com/store/apps/details?id=x",
            },
        )
    meta = scope.last
    assert (meta.status, meta.attempts) == (201, 1) and meta.request_id
    assert (link.domain, link.slug, link.url) == (
        "lnk.test",
        "spring-sale",
        "https://example.com/sale",
    )
    assert link.has_password and set(link.tags) == {"sale", "spring"}
    assert link.short_url and link.short_url.endswith("/spring-sale")
    got = await client.get_link("spring-sale")
    assert got == link
    updated = await client.update_link("spring-sale", {"description": None, "tags": ["x"]})
    assert updated.description is None and updated.tags == ("x",)
    page = await client.list_links_page(limit=10)
    assert [ln.slug for ln in page.links] == ["spring-sale"] and page.is_last
    await client.delete_link("spring-sale")
    with pytest.raises(ApiError) as info:
        await client.get_link("spring-sale")
    assert (info.value.status, info.value.constant) == (404, "LINK_NOT_FOUND")


async def test_generated_slug_and_listing_all_pages(client: LinkServiceClient) -> None:
    made = [await client.create_link({"url": f"https://e.com/{i}", "tags": ["t"] if i % 2 else []})
            for i in range(201)]  # fmt: skip
    assert all(len(ln.slug) == 6 for ln in made)
    links = await client.list_links()
    assert len(links) == 201 and {ln.slug for ln in links} == {ln.slug for ln in made}
    assert len(await client.list_links(tag="t")) == 100
    assert [ln.url for ln in await client.list_links(search="e.com/200")] == ["https://e.com/200"]
    # 3 pages for all; the metadata says 1 page for the tag and for the search
    assert client.stats.requests_by_kind["GET /links"] == 3 + 1 + 1


@pytest.mark.parametrize(
    ("payload", "status", "constant"),
    [
        ({"url": "ftp://x"}, 400, "INVALID_URL"),
        ({"url": "https://e.com", "slug": "bad--slug"}, 400, "INVALID_SLUG"),
        ({"url": "https://e.com", "slug": "api"}, 400, "RESERVED_SLUG"),
        ({"url": "https://e.com", "expiresAt": "2001-01-01T00:00:00Z"}, 400, "INVALID_EXPIRY"),
        ({"url": "https://e.com", "expiresAt": "next week"}, 400, "INVALID_EXPIRY"),
        ({"url": "https://e.com", "slug": "dup"}, 409, "SLUG_EXISTS"),
        ({"url": "https://e.com", "domain": "nope.example.com"}, 404, "DOMAIN_NOT_FOUND"),
        ({"url": "https://e.com", "tags": "not-a-list"}, 400, "INVALID_REQUEST"),
    ],
)
async def test_link_errors(
    client: LinkServiceClient, payload: dict[str, object], status: int, constant: str
) -> None:
    await client.create_link({"url": "https://e.com/first", "slug": "dup"})
    with pytest.raises(ApiError) as info:
        await client.create_link(payload)
    exc = info.value
    assert (exc.status, exc.constant) == (status, constant)
    assert exc.request_id and exc.code and exc.attempts == 1


async def test_patch_and_delete_of_missing_link(client: LinkServiceClient) -> None:
    for call in (
        client.update_link("ghost", {"url": "https://e.com"}),
        client.delete_link("ghost"),
    ):
        with pytest.raises(ApiError) as info:
            await call
        assert info.value.constant == "LINK_NOT_FOUND"


async def test_link_quota(make_client: ClientFactory) -> None:
    async with make_client(settings=SandboxSettings(link_quota=2)) as client:
        for i in range(2):
            await client.create_link({"url": f"https://e.com/{i}"})
        with pytest.raises(ApiError) as info:
            await client.create_link({"url": "https://e.com/3"})
    assert (info.value.status, info.value.constant) == (403, "QUOTA_EXCEEDED")


async def test_read_only_key_cannot_write(make_client: ClientFactory, sandbox: object) -> None:
    async with make_client(sandbox, key=DEFAULT_READ_KEY) as client:
        assert (await client.get_organization()).plan == "sandbox"
        with pytest.raises(ApiError) as info:
            await client.create_link({"url": "https://e.com"})
    assert (info.value.status, info.value.constant) == (403, "FORBIDDEN")


async def test_unknown_key(make_client: ClientFactory, sandbox: object) -> None:
    async with make_client(sandbox, key="wrong-key-value") as client:
        with pytest.raises(ApiError) as info:
            await client.list_links_page()
    assert (info.value.status, info.value.constant, info.value.code) == (401, "UNAUTHORIZED", 40101)
    assert "wrong-key-value" not in str(info.value)


async def test_ai_tools(client: LinkServiceClient) -> None:
    slug = await client.ai_slug("https://example.com/blog/spring-sale-2026")
    assert slug and slug == slug.lower()
    og = await client.ai_og("https://example.com/blog/spring-sale-2026")
    assert og.title
