"""The sync engine (plan + apply) against the in-process sandbox:

- under injected faults every row ends ok, the results list every row, no link exists
  twice (per slug, and per URL for rows without slug);
- an apply interrupted at about half of its writes has journaled every write the
  server answered; a rerun converges and a third plan has nothing to do.

Two sandbox apps share one SQLite file: a faulty one for the run, a clean one to seed
and to check the workspace. One fake clock drives both apps and the retry waits.
"""

from __future__ import annotations

import asyncio
import csv
from collections import Counter
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.types import Message, Receive, Scope, Send

from linksync.pipeline.inputs import load_specs
from linksync.pipeline.planning import make_plan
from linksync.sandbox import SandboxSettings, create_app
from linksync.sync.execute import Sinks, execute
from linksync.sync.journal import Journal
from linksync.sync.options import SyncOptions
from linksync.sync.plan import Plan
from linksync.sync.results import Results
from support.journals import read_journal
from support.reliability import FakeTime, open_client

FAULTS = {"fail_500": 0.10, "fail_503": 0.05, "drop": 0.02, "fail_500_after_write": 0.03}
OPTIONS = SyncOptions(system_domain="lnk.test")


def _app(fake: FakeTime, db: Path, **settings: Any) -> Starlette:
    base = {"rate_limit": 1_000_000, **settings}
    return create_app(SandboxSettings(**base), str(db), clock=fake.clock)


async def _seed(app: Starlette, fake: FakeTime, n: int) -> None:
    async with open_client(app, fake) as client:
        await asyncio.gather(
            *(
                client.create_link({"slug": f"old-{i:03d}", "url": f"https://example.com/o/{i}"})
                for i in range(n)
            )
        )


def _source(path: Path, existing: int) -> tuple[Path, dict[str, str], list[str]]:
    """Rows: every 4th existing link changed (under the 30% safety limit), 40 new with
    slug, 10 new without."""
    expected: dict[str, str] = {}
    rows: list[tuple[str, str]] = []
    for i in range(existing):
        url = f"https://example.com/o/{i}" + ("?v=2" if i % 4 == 0 else "")
        rows.append((f"old-{i:03d}", url))
        expected[f"old-{i:03d}"] = url
    for i in range(40):
        rows.append((f"new-{i:03d}", f"https://example.com/n/{i}"))
        expected[f"new-{i:03d}"] = f"https://example.com/n/{i}"
    slugless = [f"https://example.com/free/{i}" for i in range(10)]
    rows.extend(("", u) for u in slugless)
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["slug", "url"])
        w.writerows(rows)
    return path, expected, slugless


async def _check_workspace(
    app: Starlette, fake: FakeTime, expected: dict[str, str], slugless: list[str]
) -> None:
    async with open_client(app, fake) as client:
        links = await client.list_links()
    assert Counter(link.slug for link in links).most_common(1)[0][1] == 1
    by_url = Counter(link.url for link in links)
    assert all(by_url[u] == 1 for u in slugless), "a create without slug was duplicated"
    urls = {link.slug: link.url for link in links if link.url not in slugless}
    assert urls == expected
    assert len(links) == len(expected) + len(slugless)


async def apply_plan(client: Any, plan: Plan, *, journal: Path) -> Results:
    with Journal(journal, "run") as jr:
        return await execute(plan, client, sinks=Sinks(journal=jr))


async def _plan_and_apply(app: Starlette, fake: FakeTime, src: Path, journal: Path) -> Any:
    async with open_client(app, fake) as client:
        planned = await make_plan(client, load_specs([src]), OPTIONS)
        return await apply_plan(client, planned, journal=journal)


async def _pending(app: Starlette, fake: FakeTime, src: Path) -> dict[str, int]:
    async with open_client(app, fake) as client:
        planned = await make_plan(client, load_specs([src]), OPTIONS)
    counts = planned.counts
    return {k: counts.get(k, 0) for k in ("create", "update", "replace", "delete")}


async def test_apply_under_faults_every_row_ok(fake_time: FakeTime, tmp_path: Path) -> None:
    db = tmp_path / "sandbox.db"
    clean = _app(fake_time, db)
    await _seed(clean, fake_time, 30)
    src, expected, slugless = _source(tmp_path / "links.csv", 30)

    faulty = _app(fake_time, db, seed=5, **FAULTS)
    results = await _plan_and_apply(faulty, fake_time, src, tmp_path / "run.jsonl")

    assert len(results.rows) == 30 + 40 + 10  # one result per source row
    assert [r.status.value for r in results.rows] == ["ok"] * 80
    assert any(r.attempts > 1 for r in results.rows)  # the faults happened (retries)
    await _check_workspace(clean, fake_time, expected, slugless)
    assert await _pending(clean, fake_time, src) == dict.fromkeys(
        ("create", "update", "replace", "delete"), 0
    )


class WriteCounter:
    """ASGI wrapper: counts answered writes and cancels the apply task at a threshold."""

    def __init__(self, app: Starlette, stop_after: int) -> None:
        self.app = app
        self.stop_after = stop_after
        self.answered: list[tuple[str, str, int]] = []
        self.task: asyncio.Task[Any] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("POST", "PATCH"):
            await self.app(scope, receive, send)
            return

        async def counting(message: Message) -> None:
            await send(message)
            if message["type"] == "http.response.start":
                self.answered.append((scope["method"], scope["path"], message["status"]))
                if len(self.answered) == self.stop_after and self.task is not None:
                    self.task.cancel()

        await self.app(scope, receive, counting)


async def test_interrupted_apply_journals_answers_and_converges(
    fake_time: FakeTime, tmp_path: Path
) -> None:
    db = tmp_path / "sandbox.db"
    clean = _app(fake_time, db)
    await _seed(clean, fake_time, 30)
    src, expected, slugless = _source(tmp_path / "links.csv", 30)
    writes = 8 + 40 + 10
    # 1 ms of real latency per request: without any real wait an in-process request
    # never yields to the event loop, and the interruption could not land mid-run.
    counter = WriteCounter(_app(fake_time, db, latency_ms=(1, 1)), stop_after=writes // 2)
    journal = tmp_path / "first.jsonl"

    async with open_client(counter, fake_time) as client:
        planned = await make_plan(client, load_specs([src]), OPTIONS)
        task = asyncio.ensure_future(apply_plan(client, planned, journal=journal))
        counter.task = task
        first = await task

    assert first.interrupted
    answered_ok = sum(1 for _, _, status in counter.answered if 200 <= status < 300)
    assert writes // 2 <= answered_ok < writes
    journaled = [
        e
        for e in read_journal(journal)
        if e["event"] == "request" and e["op"].split()[0] in ("POST", "PATCH")
    ]
    assert sum(1 for e in journaled if 200 <= (e["status"] or 0) < 300) == answered_ok

    second = await _plan_and_apply(clean, fake_time, src, tmp_path / "second.jsonl")
    assert not second.interrupted and not second.failed
    await _check_workspace(clean, fake_time, expected, slugless)
    assert await _pending(clean, fake_time, src) == dict.fromkeys(
        ("create", "update", "replace", "delete"), 0
    )
