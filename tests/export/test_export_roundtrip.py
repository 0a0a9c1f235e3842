"""Round trip against the in-process sandbox: export, read back, compare to the remote.

Every exported link must read back (``linksync.sources.read_sources``) as a desired link
that ``linksync.sync.compare`` finds identical to the remote record, in every format
and split; the password link must leave its password unmanaged. And the sync engine's
own plan of the exported files is empty.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import linksync
from linksync.api import LinkServiceClient, asgi_transport
from linksync.config import Profile, resolve, sandbox_target
from linksync.config.connect import open_client
from linksync.export import ExportInfo, export_links
from linksync.model import LinkSpec, RemoteLink
from linksync.sandbox import SandboxSettings, create_app
from linksync.sources import read_sources
from linksync.sync import SyncOptions, compare

FULL_KEY = "sandbox-full-access-key"
CUSTOM = "go.example.com"

SEED: list[dict[str, Any]] = [
    {
        "slug": "spring-sale",
        "url": "https://example.com/sale?utm_source=news&x=1#top",
        "description": "Spring sale: 20% off # today",
        "tags": ["sale", "spring-2026"],
        "expiresAt": "2031-12-31T23:59:59Z",
        "apple": "https://apps.apple.com/app/id1",
        "google": "https://play.google.com/store/apps/details?id=x",
    },
    {"slug": "007", "url": "https://example.com/bond", "tags": ["no", "0123", "2025-12-31"]},
    {"slug": "vip", "url": "https://example.com/vip", "password": "s3cret-pass"},
    {"slug": "true", "url": "https://example.com/t", "description": "yes"},
    {"url": "https://example.com/generated"},
    {"slug": "promo", "domain": CUSTOM, "url": "https://example.com/promo", "tags": ["sale"]},
    {"slug": "spring-sale", "domain": CUSTOM, "url": "https://example.com/other"},
]


@pytest.fixture
async def client() -> AsyncIterator[LinkServiceClient]:
    app = create_app(SandboxSettings(rate_limit=1_000_000), ":memory:")
    async with LinkServiceClient(
        "http://sandbox.local", FULL_KEY, transport=asgi_transport(app), allow_insecure=True
    ) as c:
        domain = await c.create_domain(CUSTOM)
        await c.verify_domain(domain.id)
        for payload in SEED:
            await c.create_link(payload)
        yield c


def _by_key(remote: list[RemoteLink]) -> dict[tuple[str, str], RemoteLink]:
    return {link.key: link for link in remote}


def _assert_round_trip(specs: tuple[LinkSpec, ...], remote: list[RemoteLink]) -> None:
    by_key = _by_key(remote)
    assert len(specs) == len(remote)
    seen = set()
    for spec in specs:
        assert spec.slug is not None and spec.domain is not None, spec
        key = (spec.domain.lower(), spec.slug.lower())
        assert key in by_key, f"{key} read back but not on the remote"
        seen.add(key)
        link = by_key[key]
        comparison = compare(spec, link, SyncOptions())
        assert comparison.same, (key, comparison.fields)
        assert spec.url == link.url
        assert "password" not in spec.managed
    assert seen == set(by_key)


@pytest.mark.parametrize(
    ("fmt", "split_by"),
    [("yaml", None), ("yaml", "domain"), ("yaml", "tag"), ("csv", None), ("xlsx", "domain")],
)
async def test_export_reads_back_unchanged(
    client: LinkServiceClient, tmp_path: Path, fmt: Any, split_by: Any
) -> None:
    remote = await client.list_links()
    assert len(remote) == len(SEED)
    out = tmp_path / "export"
    info = await export_links(
        client, out if split_by else out / f"links.{fmt}", format=fmt, split_by=split_by
    )
    assert info.links == len(SEED)
    assert info.with_password == ("lnk.test/vip",)
    batch = read_sources(info.files)
    errors = [p for p in batch.problems if p.severity.value == "error"]
    assert errors == []
    assert batch.unknown_columns == ()
    _assert_round_trip(batch.specs, remote)


async def test_yaml_keeps_coercible_strings(client: LinkServiceClient, tmp_path: Path) -> None:
    info = await export_links(client, tmp_path / "links.yaml")
    specs = {(s.domain, s.slug): s for s in read_sources(info.files).specs}
    bond = specs[("lnk.test", "007")]
    assert set(bond.tags or ()) == {"no", "0123", "2025-12-31"}
    assert specs[("lnk.test", "true")].description == "yes"
    text = info.files[0].read_text()
    assert "s3cret-pass" not in text
    assert "#   lnk.test/vip" in text


async def test_filtered_export_holds_only_the_filtered_links(
    client: LinkServiceClient, tmp_path: Path
) -> None:
    info = await export_links(client, tmp_path / "sale.yaml", tag="sale")
    specs = read_sources(info.files).specs
    assert sorted((s.domain, s.slug) for s in specs) == [
        (CUSTOM, "promo"),
        ("lnk.test", "spring-sale"),
    ]
    info = await export_links(client, tmp_path / "custom.csv", format="csv", domain=CUSTOM)
    assert sorted(s.slug or "" for s in read_sources(info.files).specs) == ["promo", "spring-sale"]


async def test_hand_edit_shows_as_drift(client: LinkServiceClient, tmp_path: Path) -> None:
    info = await export_links(client, tmp_path / "links.yaml")
    await client.update_link("spring-sale", {"url": "https://example.com/hacked", "tags": []})
    remote = _by_key(await client.list_links())
    spec = next(
        s
        for s in read_sources(info.files).specs
        if s.slug == "spring-sale" and s.domain == "lnk.test"
    )
    drift = compare(spec, remote[("lnk.test", "spring-sale")], SyncOptions())
    assert {f.field for f in drift.fields} == {"url", "tags"}


@pytest.mark.parametrize(("fmt", "split_by"), [("yaml", "domain"), ("csv", None), ("xlsx", "tag")])
def test_plan_of_the_export_is_empty(tmp_path: Path, fmt: Any, split_by: Any) -> None:
    """``linksync.plan`` (the sync engine's Python API) on the exported files: no change."""
    db = tmp_path / "sandbox.db"
    (tmp_path / "linksync.yaml").write_text(
        f"default_profile: local\nprofiles:\n  local:\n    sandbox: true\n    sandbox_db: {db}\n"
    )
    settings = resolve(cwd=tmp_path, env={}, sandbox=True)

    async def seed_and_export() -> ExportInfo:
        async with open_client(sandbox_target(tmp_path, Profile(sandbox_db=str(db)), None)) as c:
            domain = await c.create_domain(CUSTOM)
            await c.verify_domain(domain.id)
            for payload in SEED:
                await c.create_link(payload)
            out = tmp_path / "export"
            return await export_links(
                c, out if split_by else out / f"links.{fmt}", format=fmt, split_by=split_by
            )

    info = asyncio.run(seed_and_export())
    plan = linksync.plan([str(p) for p in info.files], settings=settings)
    assert plan.counts.get("unchanged") == len(SEED), plan.counts
    assert not plan.has_changes, plan.counts
