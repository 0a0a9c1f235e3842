"""The page's plan says how rows without a slug get one, as the command line's does."""

from __future__ import annotations

import httpx


async def test_the_plan_step_says_rows_without_slug_get_a_stable_slug(
    client: httpx.AsyncClient,
) -> None:
    content = b"Landing page,Key\nhttps://example.com/a,\nhttps://example.com/b,named\n"
    answer = await client.post("/api/uploads", params={"name": "s.csv"}, content=content)
    assert answer.status_code == 201, answer.text
    shown = (await client.post("/api/plan", json={})).json()
    data, html = shown["data"], shown["html"]["plan"]
    assert data["counts"]["create"] == 2
    assert data["slugs"].startswith("1 row without a slug: created with a stable slug")
    assert "<li>Slugs: 1 row without a slug: created with a stable slug" in html
