"""``linksync plan`` / ``apply`` with the profile's UTM rules against
the built-in sandbox: the rows they refuse are invalid in the report, and
--fix-utm-case creates the link with the fixed URL, each fix listed on its row."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from click.testing import CliRunner, Result

import linksync
from linksync.cli import cli
from linksync.config import resolve

PROFILE = """utm_rules:
  required: [utm_source, utm_campaign]
  allowed: {utm_source: [facebook, newsletter]}
  lowercase: true
  no_spaces: "-"
"""
CSV = """slug,url,utm_source,utm_campaign
ok,https://example.com/a,facebook,spring
typo,https://example.com/b,newsleter,spring
case,https://example.com/c,Facebook,Spring Sale
"""


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def remote_urls(workdir: Path) -> dict[str, str]:
    settings = resolve(cwd=workdir, env={}, sandbox=True)

    async def go() -> dict[str, str]:
        async with settings.open_client() as client:
            return {link.slug: link.url for link in await client.list_links()}

    return asyncio.run(go())


def setup(workdir: Path) -> None:
    (workdir / "linksync.yaml").write_text(PROFILE, encoding="utf-8")
    (workdir / "links.csv").write_text(CSV, encoding="utf-8")


def test_apply_refuses_the_rows_the_rules_refuse(workdir: Path) -> None:
    setup(workdir)
    result = run("apply", "links.csv", "--yes", "--report", "out/r.json")
    assert result.exit_code == 1, result.output
    rows = {r["slug"]: r for r in json.loads((workdir / "out/r.json").read_text())["results"]}
    assert rows["ok"]["status"] == "ok"
    assert (rows["typo"]["status"], rows["typo"]["error_constant"]) == (
        "invalid",
        "UTM_NOT_ALLOWED",
    )
    assert "use `newsletter`" in rows["typo"]["message"]
    assert rows["case"]["status"] == "invalid"
    assert rows["case"]["error_constant"] in {"UTM_CASE", "UTM_SPACES"}
    assert remote_urls(workdir) == {
        "ok": "https://example.com/a?utm_source=facebook&utm_campaign=spring"
    }


def test_fix_utm_case_creates_the_fixed_url_and_lists_each_fix(workdir: Path) -> None:
    setup(workdir)
    plan = run("plan", "links.csv", "--fix-utm-case")
    assert plan.exit_code == 1  # the typo is no case: still refused
    assert "'Facebook' changed to 'facebook'" in plan.output
    assert "'Spring Sale' changed to 'spring-sale'" in plan.output
    result = run("apply", "links.csv", "--yes", "--fix-utm-case", "--report", "out/r.json")
    assert result.exit_code == 1, result.output
    assert remote_urls(workdir)["case"] == (
        "https://example.com/c?utm_source=facebook&utm_campaign=spring-sale"
    )
    assert "typo" not in remote_urls(workdir)
    rows = {r["slug"]: r for r in json.loads((workdir / "out/r.json").read_text())["results"]}
    case = rows["case"]
    assert (case["status"], case["error_constant"]) == ("ok", None)
    assert "'Facebook' changed to 'facebook'" in case["message"], "each fix on its row"
    assert "'Spring Sale' changed to 'spring-sale'" in case["message"]


def test_the_library_takes_the_same_keyword(workdir: Path) -> None:
    setup(workdir)
    planned = linksync.plan(["links.csv"], reading=linksync.Reading(fix_utm_case=True))
    assert planned.exit_code == 1
    by_slug = {c.spec.slug: c for c in planned.changes if c.spec is not None}
    assert [p.constant for p in by_slug["typo"].problems] == ["UTM_NOT_ALLOWED"]
    assert [(p.constant, p.severity.value) for p in by_slug["case"].problems] == [
        ("UTM_CASE", "warning"),
        ("UTM_CASE", "warning"),
    ]
    assert by_slug["case"].spec.url.endswith("utm_source=facebook&utm_campaign=spring-sale")
