"""Reliability harness: nothing lost or duplicated whatever the network does.

Scenarios (each starts its own ``linksync sandbox serve`` on 127.0.0.1):

- ``faults``: 10% HTTP 500, 5% 503, 2% dropped connections, 20-40 ms latency; every row
  must end ok, no duplicate link (count per slug, and per URL for rows without slug),
  and the report must list every row.
- ``burst``: a tiny rate limit and another client hammering the same key while linksync
  runs (a burst of 429s); same checks.
- ``kill``: SIGKILL ``linksync apply`` at about 50% of the writes; the journal must hold
  every write that got a response; a rerun converges; a third run plans nothing.
- ``concurrency``: 50 parallel clients create overlapping slugs; one link per slug,
  every loser gets 409 SLUG_EXISTS.
- ``bad-input``: malformed files through ``linksync validate`` and ``linksync plan``;
  no traceback, no hang, good rows still reported (see ``_badinput.py``).

Usage::

    python benchmarks/faults.py                      # every scenario, JSON on stdout
    python benchmarks/faults.py --only kill,burst
    python benchmarks/faults.py --markdown           # the tables of docs/reliability.md
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from _badinput import bad_input_markdown, bad_input_scenario
from _harness import (
    LINKS,
    Sandbox,
    SandboxOptions,
    linksync_argv,
    list_all,
    run_cli,
    running_sandbox,
)
from _records import Journal, read_journal, read_report
from _workload import check_workspace, make_workload, seed_store, write_csv

#: --concurrency of the killed apply: at most this many writes can be done by the
#: server without their answer reaching the journal.
KILL_CONCURRENCY = 8


def log(msg: str) -> None:
    print(f"[faults] {msg}", file=sys.stderr, flush=True)


def _apply_and_check(
    box: Sandbox,
    tmp: Path,
    src: Path,
    expected: dict[str, str],
    slugless: tuple[str, ...],
    rows: int,
    timeout: float,
) -> dict[str, Any]:
    report = tmp / "report.json"
    run = run_cli(
        ["apply", str(src), "--yes", "--no-progress", "--report", str(report)],
        env=box.env(),
        cwd=tmp,
        timeout=timeout,
    )
    rep = read_report(report) if report.exists() else None
    info = (rep.run_info if rep else None) or {}
    check = check_workspace(list_all(box.base_url, box.read_key), expected, slugless)
    return {
        "exit_code": run.returncode,
        "wall_s": round(run.wall_s, 2),
        "timed_out": run.timed_out,
        "traceback": run.traceback,
        "stderr_tail": run.stderr.strip().splitlines()[-3:],
        "report_rows": len(rep.rows) if rep else 0,
        "rows_expected": rows,
        "rows_by_status": rep.by_status if rep else {},
        "rows_failed": rep.failed if rep else None,
        "requests": info.get("requests"),
        "requests_by_kind": info.get("requests_by_kind"),
        "rate_limited": info.get("rate_limit_waits"),
        "workspace": check.to_dict(),
        "ok": bool(
            run.returncode == 0
            and rep is not None
            and len(rep.rows) == rows
            and rep.failed == 0
            and check.ok
        ),
    }


def _prepared(tmp: Path, existing: int, rows: int, slugless: int) -> tuple[Path, Any, Path]:
    work = make_workload(existing, rows, slugless=slugless, seed=3)
    src = write_csv(work.rows, tmp / "links.csv")
    db = tmp / "base.db"
    seed_store(db, work.existing)
    return db, work, src


# --------------------------------------------------------------------------- faults


def faults_scenario(timeout: float) -> dict[str, Any]:
    """Injected 500/503/drops on every request of an apply."""
    with tempfile.TemporaryDirectory(prefix="linksync-faults-") as d:
        tmp = Path(d)
        db, work, src = _prepared(tmp, existing=400, rows=300, slugless=20)
        opts = SandboxOptions(
            rate_limit=200,
            latency_ms=(20, 40),
            fail_500=0.10,
            fail_503=0.05,
            drop=0.02,
            fail_500_after_write=0.02,
            seed=11,
            db=db,
        )
        box = Sandbox(opts)
        try:
            box.start()
            out = _apply_and_check(
                box, tmp, src, dict(work.expected), work.slugless, len(work.rows), timeout
            )
        finally:
            box.stop()
        out["injected"] = {
            "fail_500": 0.10,
            "fail_503": 0.05,
            "drop": 0.02,
            "fail_500_after_write": 0.02,
            "latency_ms": [20, 40],
            "latency_spikes": "not supported by the sandbox (uniform range only)",
        }
        return out


# --------------------------------------------------------------------------- 429 burst


@dataclass
class Hog:
    """Another client on the same key that fires bursts: once linksync has started
    writing (its journal exists), ``on_s`` seconds of requests as fast as it can, then
    ``off_s`` seconds of quiet, until stopped (bounded in time and count)."""

    base_url: str
    key: str
    cwd: Path
    on_s: float = 1.5
    off_s: float = 3.0
    limit_s: float = 120.0
    sent: int = 0
    answered_429: int = 0
    bursts: int = 0

    def run(self, stop: threading.Event) -> None:
        deadline = time.monotonic() + self.limit_s
        while not _journal_files(self.cwd):
            if stop.wait(0.05) or time.monotonic() > deadline:
                return
        headers = {"Authorization": f"Bearer {self.key}"}
        with httpx.Client(base_url=self.base_url, headers=headers, timeout=10) as c:
            while not stop.is_set() and time.monotonic() < deadline and self.sent < 50_000:
                self.bursts += 1
                until = time.monotonic() + self.on_s
                while time.monotonic() < until and not stop.is_set():
                    try:
                        r = c.get(LINKS, params={"limit": 1})
                    except httpx.HTTPError:
                        continue
                    finally:
                        self.sent += 1
                    self.answered_429 += r.status_code == 429
                stop.wait(self.off_s)


def burst_scenario(timeout: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="linksync-burst-") as d:
        tmp = Path(d)
        db, work, src = _prepared(tmp, existing=100, rows=80, slugless=0)
        opts = SandboxOptions(rate_limit=10, latency_ms=(5, 10), seed=5, db=db)
        box = Sandbox(opts)
        stop = threading.Event()
        hog: Hog | None = None
        thread: threading.Thread | None = None
        try:
            box.start()
            hog = Hog(box.base_url, box.key, tmp)
            thread = threading.Thread(target=hog.run, args=(stop,), daemon=True)
            thread.start()
            out = _apply_and_check(
                box, tmp, src, dict(work.expected), work.slugless, len(work.rows), timeout
            )
        finally:
            stop.set()
            if thread is not None:
                thread.join(timeout=15)
            box.stop()
        if hog is not None:
            out["hog"] = {
                "requests": hog.sent,
                "answered_429": hog.answered_429,
                "bursts": hog.bursts,
            }
        return out


# --------------------------------------------------------------------------- kill


def _journal_files(cwd: Path) -> list[Path]:
    return sorted((cwd / ".linksync" / "runs").glob("*.jsonl"))


def _wait_for_writes(proc: subprocess.Popen[bytes], cwd: Path, target: int, timeout: float) -> int:
    """Poll the journal until ``target`` writes are recorded; returns how many were."""
    deadline = time.monotonic() + timeout
    seen = 0
    while time.monotonic() < deadline and proc.poll() is None:
        seen = sum(len(read_journal(p).answered_writes) for p in _journal_files(cwd))
        if seen >= target:
            return seen
        time.sleep(0.05)
    return seen


def kill_scenario(timeout: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="linksync-kill-") as d:
        tmp = Path(d)
        db, work, src = _prepared(tmp, existing=500, rows=500, slugless=10)
        before = {str(x["slug"]): str(x["url"]) for x in work.existing}
        opts = SandboxOptions(rate_limit=50, latency_ms=(20, 40), seed=3, db=db)
        box = Sandbox(opts)
        out: dict[str, Any] = {"writes_planned": work.writes}
        try:
            box.start()
            proc = subprocess.Popen(
                [
                    *linksync_argv(),
                    "apply",
                    str(src),
                    "--yes",
                    "--no-progress",
                    "--concurrency",
                    str(KILL_CONCURRENCY),
                    "--report",
                    "first.json",
                ],
                cwd=tmp,
                env=box.env(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            try:
                seen = _wait_for_writes(proc, tmp, work.writes // 2, timeout)
                killed = proc.poll() is None
                if killed:
                    os.killpg(proc.pid, signal.SIGKILL)
            finally:
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=30)
            out.update(killed=killed, journal_writes_at_kill=seen, exit_signal=-proc.returncode)
            time.sleep(0.3)  # let in-flight requests land on the server
            after_kill = list_all(box.base_url, box.read_key)
            journal = [read_journal(p) for p in _journal_files(tmp)]
            out.update(_journal_vs_workspace(journal, after_kill, before))
            second = _apply_and_check(
                box, tmp, src, dict(work.expected), work.slugless, len(work.rows), timeout
            )
            out["rerun"] = second
            third = run_cli(
                ["plan", str(src), "--detailed-exitcode"], env=box.env(), cwd=tmp, timeout=timeout
            )
            out["third_run_plan_exit_code"] = third.returncode
            out["third_run_plans_nothing"] = third.returncode == 0
        finally:
            box.stop()
        out["ok"] = bool(
            out.get("killed")
            and out.get("writes_done_not_in_journal", 99) <= KILL_CONCURRENCY
            and out.get("journal_writes_not_in_workspace", 1) == 0
            and second["ok"]
            and out["third_run_plans_nothing"]
        )
        return out


def _journal_vs_workspace(
    journals: list[Journal], links: list[dict[str, Any]], before: dict[str, str]
) -> dict[str, Any]:
    """Writes visible in the workspace versus writes the journal recorded as answered.

    A write the server applied but whose answer the killed process never read cannot be
    in the journal; there can be at most as many of those as requests in flight."""
    done = {
        str(x.get("slug", "")).lower()
        for x in links
        if before.get(str(x.get("slug", ""))) != str(x.get("url", ""))
    }
    answered: set[str] = set()
    for j in journals:
        answered |= j.answered_ok_slugs()
    return {
        "workspace_writes_after_kill": len(done),
        "journal_answered_writes": len(answered),
        "writes_done_not_in_journal": len(done - answered),
        "journal_writes_not_in_workspace": len(answered - done),
        "in_flight_bound": KILL_CONCURRENCY,
    }


# --------------------------------------------------------------------------- concurrency


Answer = tuple[str, int, str]  # slug, HTTP status, error constant


async def _racer(base_url: str, key: str, slugs: list[str], seed: int) -> list[Answer]:
    order = slugs[:]
    random.Random(seed).shuffle(order)
    out: list[Answer] = []
    async with httpx.AsyncClient(
        base_url=base_url, headers={"Authorization": f"Bearer {key}"}, timeout=30
    ) as c:
        for slug in order:
            r = await c.post(LINKS, json={"slug": slug, "url": f"https://example.com/{seed}"})
            constant = ""
            if r.status_code >= 400:
                constant = str(r.json().get("error", {}).get("constant", ""))
            out.append((slug, r.status_code, constant))
    return out


def concurrency_scenario(timeout: float, clients: int = 50, slugs: int = 20) -> dict[str, Any]:
    names = [f"race-{i:03d}" for i in range(slugs)]
    opts = SandboxOptions(rate_limit=1_000_000, latency_ms=(0, 5), seed=9)
    with running_sandbox(opts) as box:

        async def race() -> list[list[Answer]]:
            return await asyncio.wait_for(
                asyncio.gather(*(_racer(box.base_url, box.key, names, i) for i in range(clients))),
                timeout,
            )

        results = asyncio.run(race())
        links = list_all(box.base_url, box.read_key)
    created: Counter[str] = Counter()
    losers: Counter[str] = Counter()
    other: Counter[str] = Counter()
    for per_client in results:
        for slug, status, constant in per_client:
            if status == 201:
                created[slug] += 1
            elif status == 409 and constant == "SLUG_EXISTS":
                losers[slug] += 1
            else:
                other[f"{status} {constant}"] += 1
    per_slug = Counter(str(x["slug"]) for x in links)
    return {
        "clients": clients,
        "slugs": slugs,
        "attempts": clients * slugs,
        "created": sum(created.values()),
        "slug_exists": sum(losers.values()),
        "other_answers": dict(other),
        "links_after": len(links),
        "slugs_with_one_link": sum(1 for s in names if per_slug[s] == 1),
        "ok": (
            all(created[s] == 1 and losers[s] == clients - 1 for s in names)
            and not other
            and len(links) == slugs
            and all(per_slug[s] == 1 for s in names)
        ),
    }


# --------------------------------------------------------------------------- main

SCENARIOS: dict[str, Callable[[float], dict[str, Any]]] = {
    "faults": faults_scenario,
    "burst": burst_scenario,
    "kill": kill_scenario,
    "concurrency": concurrency_scenario,
    "bad-input": bad_input_scenario,
}


def summary_markdown(results: dict[str, Any]) -> str:
    lines = [
        "| scenario | result | rows / attempts | failed | duplicates | notes |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name, r in results.items():
        if name == "bad-input":
            continue
        ws = r.get("workspace") or (r.get("rerun") or {}).get("workspace") or {}
        rows = r.get(
            "report_rows", r.get("attempts", (r.get("rerun") or {}).get("report_rows", ""))
        )
        dup = ws.get("duplicates", 0) + ws.get("slugless_duplicates", 0) if ws else 0
        if name == "concurrency":
            dup = r["links_after"] - r["slugs_with_one_link"]
        notes = f"{r.get('requests')} requests, {r.get('rate_limited')} answered 429"
        if name == "kill":
            notes = (
                f"killed at {r.get('journal_writes_at_kill')} of {r.get('writes_planned')} "
                f"writes; rerun exit {(r.get('rerun') or {}).get('exit_code')}; "
                f"third run plan exit {r.get('third_run_plan_exit_code')}"
            )
        if name == "concurrency":
            notes = f"{r['created']} created, {r['slug_exists']} SLUG_EXISTS"
        failed = r.get("rows_failed", (r.get("rerun") or {}).get("rows_failed", 0))
        lines.append(
            f"| {name} | {'pass' if r.get('ok') else 'FAIL'} | {rows} | {failed} | {dup} "
            f"| {notes} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help="comma-separated scenarios: " + ", ".join(SCENARIOS))
    ap.add_argument("--markdown", action="store_true", help="print markdown tables, not JSON")
    ap.add_argument("--from-json", type=Path, help="render --markdown from a saved JSON run")
    ap.add_argument("--timeout", type=float, default=300, help="per-process limit, seconds")
    args = ap.parse_args(argv)
    if args.from_json:
        results = json.loads(args.from_json.read_text(encoding="utf-8"))
    else:
        names = args.only.split(",") if args.only else list(SCENARIOS)
        unknown = [n for n in names if n not in SCENARIOS]
        if unknown:
            ap.error(f"unknown scenario(s): {', '.join(unknown)}")
        results = {}
        for name in names:
            log(f"{name} ...")
            t0 = time.perf_counter()
            try:
                results[name] = SCENARIOS[name](args.timeout)
            except Exception as exc:  # a harness failure is a result, not a crash
                results[name] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
            results[name]["scenario_s"] = round(time.perf_counter() - t0, 1)
            log(f"{name}: {'pass' if results[name].get('ok') else 'FAIL'}")
    if args.markdown:
        print(summary_markdown(results))
        if "bad-input" in results:
            print()
            print(bad_input_markdown(results["bad-input"]))
    else:
        print(json.dumps(results, indent=2, sort_keys=True))
    return 0 if all(r.get("ok") for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
