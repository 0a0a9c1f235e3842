"""Concurrent writers: one slug is created once; quotas hold under a burst; a file
shared by two apps (two processes' view) keeps one link per slug."""

from __future__ import annotations

import asyncio
from pathlib import Path

from linksync.sandbox import SandboxSettings, create_app

from .conftest import AppFactory, client_for


async def test_parallel_creates_of_one_slug(make_app: AppFactory) -> None:
    async with client_for(make_app()) as http:
        results = await asyncio.gather(
            *(
                http.post("/api/v1/links", json={"url": f"https://e.com/{i}", "slug": "race"})
                for i in range(50)
            )
        )
        codes = sorted(r.status_code for r in results)
        assert codes == [201] + [409] * 49
        listed = (await http.get("/api/v1/links")).json()
        assert listed["pagination"]["total"] == 1


async def test_quota_holds_under_a_burst(make_app: AppFactory) -> None:
    async with client_for(make_app(link_quota=10)) as http:
        results = await asyncio.gather(
            *(http.post("/api/v1/links", json={"url": "https://e.com"}) for _ in range(40))
        )
        codes = [r.status_code for r in results]
        assert codes.count(201) == 10 and codes.count(403) == 30
        org = (await http.get("/api/v1/organizations/current")).json()["data"]
        assert org["linkCount"] == 10


async def test_two_apps_on_one_file(tmp_path: Path) -> None:
    db = str(tmp_path / "state" / "sandbox.db")
    settings = SandboxSettings(rate_limit=1_000_000)
    first, second = create_app(settings, db), create_app(settings, db)
    async with client_for(first) as a, client_for(second) as b:
        results = await asyncio.gather(
            *(
                c.post("/api/v1/links", json={"url": "https://e.com", "slug": "shared"})
                for c in [a, b] * 10
            )
        )
        assert sorted(r.status_code for r in results) == [201] + [409] * 19
        assert (await b.get("/api/v1/links/shared")).status_code == 200
        members = (await b.get("/api/v1/organizations/members")).json()["data"]
        assert len(members) == 1  # the owner is seeded once
    # state persists in the file
    async with client_for(create_app(settings, db)) as c:
        assert (await c.get("/api/v1/links/shared")).status_code == 200
