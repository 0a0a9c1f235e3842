"""Fetch + diff + execute against the in-process sandbox."""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from sync_helpers import Sandbox, row, rows

from linksync.model import Action, LinkSpec, Status
from linksync.sync import Mode, Plan, SyncOptions, diff
from linksync.sync.execute import Results, Sinks, execute
from linksync.sync.journal import Journal
from linksync.sync.remote import fetch_remote
from support.journals import read_journal

OPTS = SyncOptions()


async def plan_for(sb: Sandbox, desired: list[LinkSpec], opts: SyncOptions = OPTS) -> Plan:
    async with sb.client() as client:
        remote = await fetch_remote(client, desired, replace(opts, system_domain="lnk.test"))
    return diff(desired, remote, opts)


async def run(sb: Sandbox, desired: list[LinkSpec], opts: SyncOptions = OPTS, **kw: Any) -> Results:
    plan = await plan_for(sb, desired, opts)
    async with sb.client() as client:
        return await execute(plan, client, **kw)


async def all_links(sb: Sandbox) -> list[Any]:
    async with sb.client() as client:
        return await client.list_links()


def statuses(results: Results) -> Counter[str]:
    return Counter(f"{r.action.value}:{r.status.value}" for r in results.rows)


async def test_create_then_idempotent(sandbox: Sandbox, tmp_path: Path) -> None:
    desired = rows(12, tags=["spring"], description="Spring")
    with Journal(tmp_path / "run.jsonl", "run-1") as journal:
        first = await run(sandbox, desired, sinks=Sinks(journal=journal))
    assert statuses(first) == {"create:ok": 12}
    assert all(r.short_url == f"https://lnk.test/{r.slug}" for r in first.rows)
    assert all(r.http_status == 201 and r.request_id for r in first.rows)
    events = read_journal(tmp_path / "run.jsonl")
    assert Counter(e["event"] for e in events) == {
        "start": 1,
        "request": 12,
        "result": 12,
        "end": 1,
    }
    second = await plan_for(sandbox, desired)
    assert not second.has_changes and second.counts["unchanged"] == 12


async def test_plan_and_results_repr_is_short(sandbox: Sandbox) -> None:
    """asyncio.run formats the result of its main task when it restores the SIGINT
    handler: a repr that walks every row made a 100,000-row apply end seconds late."""
    desired = rows(40)
    plan = await plan_for(sandbox, desired)
    async with sandbox.client() as client:
        results = await execute(plan, client)
    assert "changes=40" in repr(plan)
    assert "rows=40" in repr(results) and len(repr(results)) < 200 and len(repr(plan)) < 200


async def test_update_and_unchanged_with_changed_fields(sandbox: Sandbox) -> None:
    await run(sandbox, rows(3))
    desired = rows(3)
    desired[1] = row("s1", "https://example.com/new", 3, tags=["x"])
    result = await run(sandbox, desired)
    assert statuses(result) == {"unchanged:ok": 2, "update:ok": 1}
    assert result.rows[1].changed_fields == ("url", "tags")
    links = {link.slug: link for link in await all_links(sandbox)}
    assert links["s1"].url == "https://example.com/new" and links["s1"].tags == ("x",)


async def test_slugless_rows_create_then_match(sandbox: Sandbox) -> None:
    desired = [row(None, "https://example.com/gen", 2)]
    first = await run(sandbox, desired)
    assert first.rows[0].status is Status.OK and first.rows[0].slug
    assert first.rows[0].short_url == f"https://lnk.test/{first.rows[0].slug}"
    again = await plan_for(sandbox, desired)
    assert again.changes[0].action is Action.UNCHANGED
    assert again.changes[0].slug == first.rows[0].slug


async def test_replace_deletes_and_recreates(sandbox: Sandbox) -> None:
    await run(sandbox, [row("e", "https://e.com", 2, expires_at="2030-01-01T00:00:00Z")])
    desired = [row("e", "https://e.com", 2, expires_at="2031-01-01T00:00:00Z")]
    refused = await run(sandbox, desired)
    assert refused.rows[0].status is Status.INVALID
    assert refused.rows[0].error_constant == "REPLACE_REQUIRED"
    done = await run(sandbox, desired, SyncOptions(allow_replace=True))
    assert statuses(done) == {"replace:ok": 1}
    (link,) = await all_links(sandbox)
    assert link.expires_at.startswith("2031-01-01")


async def test_mirror_deletes_in_scope_and_thresholds(sandbox: Sandbox) -> None:
    await run(sandbox, rows(12), SyncOptions(owner_tag="ls"))
    await run(sandbox, [row("other", "https://e.com/o", 2)])  # not owned
    opts = SyncOptions(mode=Mode.MIRROR, scope_domains=("lnk.test",), owner_tag="ls")
    plan = await plan_for(sandbox, rows(8), opts)
    assert plan.counts["delete"] == 4 and plan.refused  # 4/12 > 30%
    keep = rows(10)
    result = await run(sandbox, keep, opts)
    assert statuses(result) == {"unchanged:ok": 10, "delete:ok": 2}
    slugs = sorted(link.slug for link in await all_links(sandbox))
    assert slugs == sorted([*(f"s{i}" for i in range(10)), "other"])


async def test_modes_skip(sandbox: Sandbox) -> None:
    await run(sandbox, rows(2))
    desired = [row("s0", "https://changed", 2), row("new", "https://new", 3)]
    created = await run(sandbox, desired, SyncOptions(mode=Mode.CREATE_ONLY))
    assert statuses(created) == {"skip:skipped": 1, "create:ok": 1}
    updated = await run(
        sandbox, [*desired, row("nope", "https://n", 4)], SyncOptions(mode=Mode.UPDATE_ONLY)
    )
    assert statuses(updated) == {"update:ok": 1, "unchanged:ok": 1, "skip:skipped": 1}


async def test_quota_hit_midway_stops_creates_not_updates(make_sandbox: Any) -> None:
    sb: Sandbox = make_sandbox(link_quota=5)
    await run(sb, rows(3))
    desired = [*rows(3, description="new"), *rows(4, prefix="n")]
    plan = await plan_for(sb, desired)
    assert plan.quota is not None and plan.quota.excess == 2
    async with sb.client(concurrency=1) as client:
        result = await execute(plan, client)
    assert statuses(result) == {
        "update:ok": 3,
        "create:ok": 2,
        "create:failed": 1,
        "create:skipped": 1,
    }
    failed = next(r for r in result.rows if r.status is Status.FAILED)
    assert failed.error_constant == "QUOTA_EXCEEDED" and failed.http_status == 403
    skipped = next(r for r in result.rows if r.status is Status.SKIPPED)
    assert skipped.error_constant == "NOT_ATTEMPTED"


async def test_read_only_key_stops_all_writes(sandbox: Sandbox) -> None:
    plan = await plan_for(sandbox, rows(6))
    async with sandbox.read_only() as client:
        result = await execute(plan, client)
    assert result.stopped_by == "FORBIDDEN"
    constants = Counter(r.error_constant for r in result.rows)
    assert constants["FORBIDDEN"] >= 1
    assert constants["FORBIDDEN"] + constants["NOT_ATTEMPTED"] == 6
    assert await all_links(sandbox) == []


async def test_409_race_rereads_and_updates(sandbox: Sandbox) -> None:
    desired = [row("race", "https://mine", 2, description="mine")]
    plan = await plan_for(sandbox, desired)
    async with sandbox.client() as client:  # another writer
        await client.create_link({"url": "https://theirs", "slug": "race"})
        result = await execute(plan, client)
    (r,) = result.rows
    assert (r.action, r.status) == (Action.UPDATE, Status.OK)
    assert set(r.changed_fields) == {"url", "description"}
    (link,) = await all_links(sandbox)
    assert link.url == "https://mine"


async def test_cancelled_run_then_rerun_converges(make_sandbox: Any) -> None:
    sb: Sandbox = make_sandbox(latency_ms=(2, 2))
    desired = rows(40)
    plan = await plan_for(sb, desired)
    async with sb.client(concurrency=2) as client:
        task = asyncio.create_task(execute(plan, client))
        while client.stats.requests < 6:
            await asyncio.sleep(0.001)
        task.cancel()
        result = await task
    assert result.interrupted
    done = Counter(r.status for r in result.rows)
    assert done[Status.OK] >= 6 and done[Status.SKIPPED] >= 1
    assert done[Status.OK] + done[Status.SKIPPED] == 40
    assert len(await all_links(sb)) == done[Status.OK]
    rerun = await run(sb, desired)
    assert statuses(rerun)["create:ok"] == done[Status.SKIPPED]
    slugs = [link.slug for link in await all_links(sb)]
    assert len(slugs) == len(set(slugs)) == 40
    assert not (await plan_for(sb, desired)).has_changes


async def test_faults_every_row_ends_ok(make_sandbox: Any) -> None:
    sb: Sandbox = make_sandbox(fail_500=0.10, fail_503=0.05, seed=7)
    desired = rows(60)
    result = await run(sb, desired)
    assert statuses(result) == {"create:ok": 60}
    assert sum(r.attempts for r in result.rows) > 60  # retries happened
    slugs = [link.slug for link in await all_links(sb)]
    assert sorted(slugs) == sorted(f"s{i}" for i in range(60))


async def test_unknown_system_domain_on_an_empty_workspace(sandbox: Sandbox) -> None:
    desired = rows(2)
    opts = SyncOptions()  # a real target does not say its system domain
    async with sandbox.client() as client:
        remote = await fetch_remote(client, desired, opts)
        plan = diff(desired, remote, opts)
        assert "domain" not in plan.changes[0].payload
        result = await execute(plan, client)
        assert [r.domain for r in result.rows] == ["lnk.test", "lnk.test"]
        again = diff(desired, await fetch_remote(client, desired, opts), opts)
    assert not again.has_changes


async def test_rows_that_failed_last_run_are_sent_first(sandbox: Sandbox, tmp_path: Path) -> None:
    from linksync.model import LinkKey
    from linksync.sync.history import LastRun

    desired = rows(6)
    last = LastRun("previous", frozenset({LinkKey.of("lnk.test", "s4")}))
    with Journal(tmp_path / "run.jsonl", "run-2") as journal:
        result = await run(sandbox, desired, sinks=Sinks(journal=journal), last=last)
    assert statuses(result) == {"create:ok": 6}
    requests = [e for e in read_journal(tmp_path / "run.jsonl") if e["event"] == "request"]
    # Sent first: among the first answers of the 4 workers (plain order would send it 5th).
    assert "s4" in [e["slug"] for e in requests[:4]]
    assert [r.slug for r in result.rows] == [f"s{i}" for i in range(6)]  # plan order kept
