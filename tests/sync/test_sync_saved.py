"""Saved plans (STALE_PLAN), AI enrichment, progress lines."""

from __future__ import annotations

import io
from collections import Counter

from sync_helpers import Sandbox, row, rows

from linksync.model import Action, RowResult, Status
from linksync.report.progress import PlainProgress
from linksync.sync import Plan, SyncOptions, diff
from linksync.sync.enrich import enrich
from linksync.sync.execute import execute
from linksync.sync.remote import fetch_remote
from linksync.sync.stale import mark_stale, plan_specs

OPTS = SyncOptions(system_domain="lnk.test")


async def test_saved_plan_refuses_stale_rows_only(sandbox: Sandbox) -> None:
    async with sandbox.client() as client:
        for spec in rows(3):
            await client.create_link({"url": spec.url, "slug": spec.slug})
        desired = [
            row("s0", "https://new/0", 2),
            row("s1", "https://new/1", 3),
            row("s2", "https://new/2", 4),
            row("fresh", "https://new/f", 5),
            row("taken", "https://new/t", 6),
        ]
        plan = diff(desired, await fetch_remote(client, desired, OPTS), OPTS)
        saved = Plan.from_json(plan.to_json())
        # Behind the plan's back: one link edited, one deleted, one slug taken.
        await client.update_link("s1", {"description": "edited by hand"})
        await client.delete_link("s2")
        await client.create_link({"url": "https://someone", "slug": "taken"})
        fresh = await fetch_remote(client, plan_specs(saved), saved.options)
        checked = mark_stale(saved, fresh)
        result = await execute(checked, client)
    by_slug = {r.slug: r for r in result.rows}
    assert by_slug["s0"].status is Status.OK and by_slug["fresh"].status is Status.OK
    for slug in ("s1", "s2", "taken"):
        assert by_slug[slug].status is Status.FAILED
        assert by_slug[slug].error_constant == "STALE_PLAN"
    assert "updatedAt" in (by_slug["s1"].message or "")


async def test_ai_slug_and_og_fill_only_what_is_needed(sandbox: Sandbox) -> None:
    async with sandbox.client() as client:
        existing = await client.create_link({"url": "https://example.com/has-one"})
        desired = [
            row(None, "https://example.com/spring-sale", 2),
            row(None, "https://example.com/has-one", 3),
            row("keep", "https://example.com/k", 4, description="mine"),
        ]
        remote = await fetch_remote(client, desired, OPTS)
        before = client.stats.requests
        filled = await enrich(desired, remote, client, OPTS, ai_slug=True, ai_og=True)
        asked = client.stats.requests_by_kind
        assert (
            client.stats.requests - before
            == asked["POST /tools/ai-slug"] + asked["POST /tools/ai-og"]
        )
        assert asked["POST /tools/ai-slug"] == 1
        plan = diff(filled, remote, OPTS)
    assert filled[0].slug and filled[1].slug is None and filled[2].description == "mine"
    assert filled[0].description and "description" in filled[0].managed
    assert [c.action for c in plan.changes][:2] == [Action.CREATE, Action.UPDATE]
    assert plan.changes[1].slug == existing.slug


def test_plain_progress_lines() -> None:
    out = io.StringIO()
    ticks = iter([0.0, 1.0, 6.0, 7.0, 8.0])
    progress = PlainProgress(out, every=5.0, clock=lambda: next(ticks))
    progress.start(4, lambda: 2.0)  # the rate limiter holds requests 2 s more
    ok = RowResult(Action.CREATE, Status.OK)
    bad = RowResult(Action.CREATE, Status.FAILED)
    progress.advance(ok)
    progress.advance(bad)
    progress.advance(ok)
    progress.finish()
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("applied 2/4 (0.3/s, ETA 6s), 1 failed")
    assert lines[0].endswith("waiting 2.0s for the rate limit")
    assert lines[-1].startswith("applied 3/4")
    assert Counter(line.split()[0] for line in lines) == {"applied": 2}
