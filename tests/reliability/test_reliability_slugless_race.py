"""Twenty ``linksync apply`` processes at once, each with its own lock (twenty CI runners,
twenty machines), on one file of rows without a slug, against one workspace (the sandbox
served on 127.0.0.1): exactly one link per row, every run exits 0 or 1, and what each
run reports of each row is true, checked against its own journal of requests.

Before stable slugs, this race created 330-473 extra links for such rows."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from types import ModuleType

import pytest

from linksync.api import LinkServiceClient
from linksync.sandbox import DEFAULT_FULL_KEY, SandboxSettings
from support.journals import read_journal

RUNS = 20
ROWS = 25
URLS = [f"https://example.com/campaign/{i}?utm_source=race" for i in range(ROWS)]
CSV = "url,description\n" + "".join(f"{u},row {i}\n" for i, u in enumerate(URLS))


def _parallel() -> ModuleType:
    """``tests/reliability/parallel_support.py``: one zygote process forking one real
    ``linksync`` process per run."""
    name = "parallel_support"
    if name not in sys.modules:
        path = Path(__file__).parent / "parallel_support.py"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture
def sandbox_settings() -> SandboxSettings:
    # Latency as over a network, and few requests in flight per run: each run's writes
    # last long enough for the twenty to overlap (without it, the first run to start
    # often finishes before the others have read the workspace, and there is no race).
    return SandboxSettings(rate_limit=1_000_000, latency_ms=(20, 40))


async def _links(base_url: str) -> list[tuple[str, str]]:
    async with LinkServiceClient(base_url, DEFAULT_FULL_KEY) as client:
        return [(link.slug, link.url) for link in await client.list_links()]


def _created_by(journal: Path) -> set[str]:
    """The slugs this run's own POSTs created (201), from its journal."""
    return {
        str(r["slug"])
        for r in read_journal(journal)
        if r.get("event") == "request" and r.get("op") == "POST /links" and r.get("status") == 201
    }


def test_twenty_runs_with_distinct_locks_make_one_link_per_row(
    live_sandbox: str, tmp_path: Path
) -> None:
    runs = []
    for n in range(RUNS):
        cwd = tmp_path / f"machine-{n}"
        cwd.mkdir()
        (cwd / "links.csv").write_text(CSV, encoding="utf-8")
        args = [
            "apply", "links.csv", "--yes", "--no-progress",
            "--lock", str(cwd / "own.lock"),  # no run waits for another
            "--journal", "journal.jsonl", "--report", "report.json", "--concurrency", "2",
        ]  # fmt: skip
        runs.append((cwd, args))
    env = {
        "LINKSYNC_BASE_URL": live_sandbox,
        "LINKSYNC_API_KEY": DEFAULT_FULL_KEY,
        "LINKSYNC_STATE_DIR": str(tmp_path / "state"),
    }
    finished = _parallel().run_parallel(runs, env)

    links = asyncio.run(_links(live_sandbox))
    per_url = Counter(url for _, url in links)
    assert per_url == dict.fromkeys(URLS, 1), [f.stderr for f in finished if f.exit_code]
    slug_of = {url: slug for slug, url in links}
    codes = [f.exit_code for f in finished]
    assert set(codes) <= {0, 1}, [f.stderr for f in finished]

    claimed: dict[str, list[int]] = defaultdict(list)
    for n, f in enumerate(finished):
        report = json.loads((f.cwd / "report.json").read_text(encoding="utf-8"))
        rows = report["results"]
        assert [r["url"] for r in rows] == URLS
        created = _created_by(f.cwd / "journal.jsonl")
        for r in rows:
            url, slug = r["url"], r["slug"]
            if r["status"] != "ok":  # a failed row claims nothing was done
                assert r["action"] != "create" or slug not in created, r
                continue
            assert slug == slug_of[url], r  # the one link of this row
            if r["action"] == "create":
                assert slug in created, r  # this run's own POST made it
                claimed[url].append(n)
            else:  # adopted or found: this run made no link for the row
                assert r["action"] in ("unchanged", "update"), r
                assert slug not in created, r
        # The journal's creates are exactly the rows the report says were created.
        assert created == {r["slug"] for r in rows if r["action"] == "create"}
    # Every row was created by exactly one of the twenty runs.
    assert {url: len(who) for url, who in claimed.items()} == dict.fromkeys(URLS, 1)
    assert all(code == 0 for code in codes), [f.stderr for f in finished if f.exit_code]
    for f in finished:
        assert (f.cwd / "links.csv").read_text(encoding="utf-8") == CSV
