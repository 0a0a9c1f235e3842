"""The page's Check step with the profile's UTM rules: the rules in
force are shown, and their problems are rows of the table like the others."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from linksync.config import Settings, resolve


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    (tmp_path / "linksync.yaml").write_text(
        "utm_rules:\n  allowed: {utm_source: [facebook, newsletter]}\n  lowercase: true\n",
        encoding="utf-8",
    )
    return resolve(cwd=tmp_path, env={}, sandbox=True)


async def test_check_shows_the_rules_in_force_and_their_problems(
    client: httpx.AsyncClient,
) -> None:
    csv = b"url,slug,utm_source\nhttps://example.com/a,a,newsleter\nhttps://example.com/b,b,facebook\n"
    answer = await client.post("/api/uploads", params={"name": "c.csv"}, content=csv)
    assert answer.status_code == 201, answer.text
    checked = (await client.post("/api/check", json={})).json()
    view = checked["data"]
    assert view["utm_rules"] == ["utm_source one of: facebook, newsletter", "lowercase"]
    assert [(p["row"], p["constant"]) for p in view["problems"]] == [(2, "UTM_NOT_ALLOWED")]
    assert "use `newsletter`" in view["problems"][0]["message"]
    html = checked["html"]["check"]
    assert 'id="utm-rules"' in html and "utm_source one of: facebook, newsletter; lowercase" in html
