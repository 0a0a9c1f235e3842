"""What a reviewer reads: ``plan --format markdown`` (old -> new, a cap with a count,
"No changes", the unmanaged count), and ownership through the CLI and the Python API
(``--allow-takeover``), against the built-in sandbox in a temporary directory."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

import linksync
from linksync.cli import cli
from linksync.config import resolve


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def sandbox_call(workdir: Path, method: str, *args: Any, **kw: Any) -> Any:
    settings = resolve(cwd=workdir, env={}, sandbox=True)

    async def go() -> Any:
        async with settings.open_client() as client:
            return await getattr(client, method)(*args, **kw)

    return asyncio.run(go())


def write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return path.name


def table_rows(markdown: str) -> list[str]:
    after = markdown.split("### Changes", 1)[1]
    return [ln for ln in after.splitlines() if ln.startswith("| ") and "---" not in ln][1:]


def test_markdown_plan_shows_old_and_new_values(workdir: Path) -> None:
    links = write(
        workdir / "links.yaml",
        "links:\n  spring: {url: https://example.com/spring, tags: [sale]}\n"
        "  summer: https://example.com/summer\n",
    )
    assert run("apply", links, "--yes").exit_code == 0
    sandbox_call(workdir, "update_link", "spring", {"url": "https://example.com/by-hand"})
    sandbox_call(workdir, "update_link", "summer", {"description": "typed in the dashboard"})
    write(
        workdir / "links.yaml",
        "links:\n  spring: {url: https://example.com/spring, tags: [sale, spring]}\n"
        "  summer: {url: https://example.com/summer, description: null}\n",
    )
    result = run("plan", links, "--format", "markdown", "--detailed-exitcode")
    assert result.exit_code == 3
    text = result.stdout
    assert text.endswith("\n")
    rows = table_rows(text)
    assert len(rows) == 2
    spring, summer = rows
    assert "url: https://example.com/by-hand -&gt; https://example.com/spring" in spring
    assert "<br>tags: added spring" in spring
    assert "description: typed in the dashboard -&gt; -" in summer
    assert "> Unmanaged: 0 links in no file and outside the scope (counted on lnk.test)." in text


def test_markdown_plan_without_changes_and_with_unmanaged_links(workdir: Path) -> None:
    links = write(workdir / "links.yaml", "links:\n  a: https://example.com/a\n")
    assert run("apply", links, "--yes").exit_code == 0
    for slug in ("by-hand-1", "by-hand-2"):
        sandbox_call(workdir, "create_link", {"url": "https://example.com/x", "slug": slug})
    result = run("plan", links, "--format", "markdown", "--detailed-exitcode")
    assert result.exit_code == 0
    text = result.stdout
    assert "**No changes:** all 1 links match the workspace." in text
    assert "| action |" not in text and "### Changes" not in text
    assert "> Unmanaged: 2 links in no file and outside the scope (counted on lnk.test)." in text
    assert text.endswith(".\n")
    as_json = json.loads(run("plan", links, "--format", "json").stdout)
    assert as_json["unmanaged"]["count"] == 2
    assert [x["slug"] for x in as_json["unmanaged"]["links"]] == ["by-hand-1", "by-hand-2"]
    text_plan = run("plan", links).stdout
    assert "unmanaged: 2 links in no file and outside the scope (counted on lnk.test)" in text_plan


def test_markdown_plan_caps_a_long_table_with_a_count(workdir: Path) -> None:
    body = "".join(f"  s{i}: https://example.com/{i}\n" for i in range(57))
    links = write(workdir / "links.yaml", "links:\n" + body)
    text = run("plan", links, "--format", "markdown").stdout
    assert "**57 create** (57 rows planned)." in text
    assert len(table_rows(text)) == 50
    assert text.endswith("\n_... and 7 more._\n")


def test_markdown_plan_names_the_sources_it_could_not_read(workdir: Path) -> None:
    """The pull-request comment is all a reviewer reads: a folder that yields nothing
    (here it holds only a CSV) and a sheet without a URL column are said there, before
    "No rows" / the changes, as the exit code 1 says something went wrong."""
    folder = workdir / "links"
    folder.mkdir()
    write(folder / "campaign.csv", "url,slug\nhttps://example.com/a,a\n")
    result = run("plan", "links", "--format", "markdown")
    assert result.exit_code == 1
    text = result.stdout
    assert "> Error in links: EMPTY_SOURCE: nothing to read:" in text
    assert "> Error in links/campaign.csv: EMPTY_SOURCE: a spreadsheet, which a folder" in text
    assert text.index("EMPTY_SOURCE") < text.index("No rows.")
    good = write(workdir / "good.yaml", "links:\n  a: https://example.com/a\n")
    bad = write(workdir / "bad|name.csv", "name,notes\nx,y\n")
    result = run("plan", good, bad, "--format", "markdown")
    assert result.exit_code == 1
    notes = [ln for ln in result.stdout.splitlines() if ln.startswith("> Error in")]
    assert notes == [
        "> Error in bad\\|name.csv: MISSING_URL_COLUMN: no column of destination URLs found"
        " among the headers ('name', 'notes'); name it e.g. \"Destination URL\" or map it"
        " with --map HEADER=url"
    ]
    assert "**1 create** (1 rows planned)." in result.stdout


def sales_link_and_our_file(workdir: Path) -> str:
    """A link the sales team's tag marks, and our file declaring the same slug."""
    theirs = {"url": "https://example.com/theirs", "slug": "promo", "tags": ["owner:sales"]}
    sandbox_call(workdir, "create_link", theirs)
    return write(workdir / "links.yaml", "links:\n  promo: https://example.com/ours\n")


def test_takeover_refused_then_allowed(workdir: Path) -> None:
    links = sales_link_and_our_file(workdir)
    refused = run("apply", links, "--yes", "--owner-tag", "owner:marketing")
    assert refused.exit_code == 1
    assert "OWNED_BY_OTHER" in refused.output and "--allow-takeover" in refused.output
    link = sandbox_call(workdir, "get_link", "promo")
    assert link.url == "https://example.com/theirs"
    plan = run("plan", links, "--owner-tag", "owner:marketing", "--allow-takeover")
    assert plan.exit_code == 0
    assert "tags: added owner:marketing; removed owner:sales" in plan.stdout
    md = run(
        "plan", links, "--owner-tag", "owner:marketing", "--allow-takeover", "--format=markdown"
    )
    (row,) = table_rows(md.stdout)
    assert "tags: added owner:marketing; removed owner:sales" in row
    assert 'warning OWNED_BY_OTHER: key "tags": takes lnk.test/promo over from owner:sales' in row
    done = run("apply", links, "--yes", "--owner-tag", "owner:marketing", "--allow-takeover")
    assert done.exit_code == 0, done.output
    link = sandbox_call(workdir, "get_link", "promo")
    assert link.url == "https://example.com/ours" and link.tags == ("owner:marketing",)


def test_python_api_takes_allow_takeover(workdir: Path) -> None:
    links = sales_link_and_our_file(workdir)
    plan = linksync.plan([links], sync=linksync.SyncPolicy(owner_tag="owner:marketing"))
    assert plan.counts["invalid"] == 1 and plan.changes[0].error is not None
    assert plan.changes[0].error.constant == "OWNED_BY_OTHER"
    results = linksync.apply(
        [links], sync=linksync.SyncPolicy(owner_tag="owner:marketing", allow_takeover=True)
    )
    assert results.counts["ok"] == 1 and not results.failed
    assert sandbox_call(workdir, "get_link", "promo").tags == ("owner:marketing",)
