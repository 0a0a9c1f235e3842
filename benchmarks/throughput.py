"""Throughput of ``linksync apply`` against the rate limit, and against a sequential script.

Each case starts ``linksync sandbox serve`` on a free 127.0.0.1 port with a rate limit of
R requests per 1-second window and 20-40 ms latency, preloads a workspace with E links,
generates a CSV of N rows (50% new, 30% changed, 20% unchanged) and runs
``linksync apply --yes``; then the same workload, on a copy of the same preloaded
database, with ``benchmarks/sequential_peer.py``. The scale case instead plans
N unchanged rows against E links and reports plan time, peak memory and requests.

Usage (from the repository root, in the project's virtualenv)::

    python benchmarks/throughput.py                 # the default case (R=100, E=5000, N=2000)
    python benchmarks/throughput.py --case all      # default, small (R=20), fast (R=1000), scale
    python benchmarks/throughput.py --rate 50 --existing 1000 --rows 400 --no-peer

Prints one JSON document (a list of case results) on stdout; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from _harness import (
    PAGE,
    CliRun,
    Sandbox,
    SandboxOptions,
    copy_db,
    link_count,
    list_all,
    preload,
    run_cli,
    running_sandbox,
    sandbox_capacity,
)
from _records import read_journal, read_report
from _workload import Workload, check_workspace, make_workload, seed_store, write_csv

PEER = Path(__file__).resolve().parent / "sequential_peer.py"
PRELOAD_RATE = 100_000


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    rate: int
    existing: int
    rows: int
    latency_ms: tuple[int, int] | None = (20, 40)
    concurrency: int | None = None  # --concurrency of apply; None: the tool's default
    peer: bool = True
    scale: bool = False  # plan only, every row unchanged


CASES: dict[str, Case] = {
    "default": Case("default", rate=100, existing=5_000, rows=2_000),
    "small": Case("small", rate=20, existing=300, rows=100),
    # The tool's default concurrency (8): on 2 cores more connections cost more CPU in
    # httpx and the sandbox than they win (measured: 8 -> 133 writes/s, 16 -> 105, 48 -> 78).
    "fast": Case("fast", rate=1_000, existing=5_000, rows=2_000),
    "scale": Case("scale", rate=1_000, existing=100_000, rows=100_000, peer=False, scale=True),
}


def log(msg: str) -> None:
    print(f"[throughput] {msg}", file=sys.stderr, flush=True)


def seed_database(db: Path, work: Workload, *, via_api: bool) -> float:
    """Preload the workspace: straight into the sandbox's store (default), or through
    the API of a sandbox with a limit too high to matter. Checks the count either way."""
    if not via_api:
        seconds = seed_store(db, work.existing)
    opts = SandboxOptions(rate_limit=PRELOAD_RATE, latency_ms=None, db=db)
    with running_sandbox(opts, timeout=60) as box:
        if via_api:
            seconds = preload(box.base_url, box.key, work.existing, concurrency=16)
        count = link_count(box.base_url, box.read_key)
    if count != len(work.existing):
        raise RuntimeError(f"preload holds {count} links, expected {len(work.existing)}")
    return seconds


def ideal_reads(case: Case) -> int:
    """The fewest reads that learn the remote state: every list page, or one GET per row."""
    return min(math.ceil(case.existing / PAGE) or 1, case.rows)


def summarise_cli(run: CliRun) -> dict[str, Any]:
    return {
        "exit_code": run.returncode,
        "wall_s": round(run.wall_s, 3),
        "max_rss_mb": round(run.max_rss_mb, 1),
        "timed_out": run.timed_out,
        "traceback": run.traceback,
        "stderr_tail": run.stderr.strip().splitlines()[-5:],
    }


def run_linksync(
    case: Case, base_db: Path, src: Path, work: Workload, tmp: Path, timeout: float
) -> dict[str, Any]:
    db = copy_db(base_db, tmp / "linksync.db")
    report = tmp / "report.json"
    opts = SandboxOptions(rate_limit=case.rate, latency_ms=case.latency_ms, db=db)
    box = Sandbox(opts)
    try:
        box.start()
        args = ["apply", str(src), "--yes", "--no-progress", "--report", str(report)]
        if case.concurrency:
            args += ["--concurrency", str(case.concurrency)]
        run = run_cli(args, env=box.env(), cwd=tmp, timeout=timeout)
        check = check_workspace(list_all(box.base_url, box.read_key), work.expected)
    finally:
        box.stop()
    rows = read_report(report) if report.exists() else None
    out = summarise_cli(run)
    out["phases_s"] = phases(run, tmp)
    out["workspace"] = check.to_dict()
    if rows is not None:
        out["report_rows"] = len(rows.rows)
        out["rows_failed"] = rows.failed
        out["rows_by_status"] = rows.by_status
        out["client_requests"] = rows.run_info
    else:
        out["report_rows"] = 0
        out["rows_failed"] = None
    return out


def phases(run: CliRun, cwd: Path) -> dict[str, float] | None:
    """Where the wall time of an apply went, from its journal's start and end events:
    before the first write (start-up, read, validate, fetch, diff), writing, after
    (report, exit)."""
    journals = [read_journal(p) for p in sorted((cwd / ".linksync" / "runs").glob("*.jsonl"))]
    j = journals[-1] if journals else None
    if j is None or j.started is None or j.ended is None:
        return None
    end = run.started_at + run.wall_s
    return {
        "before_writes": round(j.started - run.started_at, 2),
        "writes": round(j.ended - j.started, 2),
        "after_writes": round(end - j.ended, 2),
    }


def run_peer(
    case: Case, base_db: Path, src: Path, work: Workload, tmp: Path, timeout: float
) -> dict[str, Any]:
    db = copy_db(base_db, tmp / "peer.db")
    opts = SandboxOptions(rate_limit=case.rate, latency_ms=case.latency_ms, db=db)
    box = Sandbox(opts)
    try:
        box.start()
        t0 = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, str(PEER), str(src)],
            env=box.env(),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        wall = time.perf_counter() - t0
        check = check_workspace(list_all(box.base_url, box.read_key), work.expected)
    finally:
        box.stop()
    try:
        result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        result = {"stderr_tail": proc.stderr.strip().splitlines()[-5:]}
    result.update(exit_code=proc.returncode, process_wall_s=round(wall, 3))
    result["workspace"] = check.to_dict()
    return result


def throughput_case(case: Case, *, peer: bool, via_api: bool, timeout: float) -> dict[str, Any]:
    work = make_workload(case.existing, case.rows)
    with tempfile.TemporaryDirectory(prefix=f"linksync-bench-{case.name}-") as d:
        tmp = Path(d)
        src = write_csv(work.rows, tmp / "links.csv")
        base_db = tmp / "base.db"
        log(f"{case.name}: preloading {case.existing} links")
        preload_s = seed_database(base_db, work, via_api=via_api)
        log(f"{case.name}: linksync apply ({case.rows} rows, R={case.rate}/s)")
        ours = run_linksync(case, base_db, src, work, tmp, timeout)
        theirs = None
        if peer and case.peer:
            log(f"{case.name}: sequential peer")
            theirs = run_peer(case, base_db, src, work, tmp, timeout)
    log(f"{case.name}: probing the sandbox's own capacity and the CLI's start-up time")
    capacity = sandbox_capacity(case.latency_ms)
    startup = run_cli(["apply", "--help"], timeout=60).wall_s  # imports the sync stack
    reads = ideal_reads(case)
    minimum = (reads + work.writes) / case.rate
    ceiling = min(case.rate, capacity)
    info = ours.get("client_requests") or {}
    total = info.get("requests")
    limited = info.get("rate_limit_waits")
    in_run = info.get("duration_s")
    result: dict[str, Any] = {
        "case": case.name,
        "rate_limit_per_s": case.rate,
        "latency_ms": list(case.latency_ms) if case.latency_ms else None,
        "concurrency": case.concurrency,
        "existing": case.existing,
        "rows": case.rows,
        "workload": {"new": work.new, "changed": work.changed, "unchanged": work.unchanged},
        "preload_s": round(preload_s, 1),
        "ideal_requests": {"reads": reads, "writes": work.writes},
        "minimum_s": round(minimum, 3),
        "linksync": ours,
        "requests": total,
        "requests_by_kind": info.get("requests_by_kind"),
        "rate_limited": limited,
        "rate_limited_share": round(limited / total, 4) if total else None,
        "efficiency": round(minimum / ours["wall_s"], 3) if ours["wall_s"] else None,
        "execute_s": in_run,
        "cli_startup_s": round(startup, 2),
        "sandbox_capacity_per_s": round(capacity, 1),
        "minimum_at_capacity_s": round((reads + work.writes) / ceiling, 3),
        "efficiency_vs_capacity": round((reads + work.writes) / ceiling / ours["wall_s"], 3)
        if ours["wall_s"]
        else None,
        "sequential_peer": theirs,
    }
    if theirs and theirs.get("process_wall_s") and ours["wall_s"]:
        result["speedup_vs_sequential"] = round(theirs["process_wall_s"] / ours["wall_s"], 2)
    result["targets"] = targets(result)
    return result


def targets(r: Mapping[str, Any]) -> dict[str, bool | None]:
    ours = r["linksync"]
    share = r.get("rate_limited_share")
    speed = r.get("speedup_vs_sequential")
    return {
        "efficiency>=0.90": r["efficiency"] is not None and r["efficiency"] >= 0.90,
        "zero_failed_rows": ours.get("rows_failed") == 0 and ours["exit_code"] == 0,
        "429s<1%": None if share is None else share < 0.01,
        "3x_sequential": None if speed is None else speed >= 3.0,
        "workspace_as_expected": ours["workspace"]["ok"],
    }


REQUESTS_RE = re.compile(r"requests to read the workspace: (\d+)")
FETCH_RE = re.compile(r"fetched (\S+): (\w+), (\d+) requests")


def _plan_facts(run: CliRun) -> dict[str, Any]:
    """Requests and fetch strategy, from the plan's own summary lines."""
    text = run.stdout + run.stderr
    m = REQUESTS_RE.search(text)
    return {
        "requests": int(m.group(1)) if m else None,
        "fetches": [
            {"domain": d, "strategy": st, "requests": int(n)} for d, st, n in FETCH_RE.findall(text)
        ],
    }


def scale_case(case: Case, *, via_api: bool, saved: bool, timeout: float) -> dict[str, Any]:
    """``linksync plan`` of N unchanged rows against E links (the table a pull request
    shows); with ``saved``, once more with ``--out plan.json``."""
    work = make_workload(case.existing, case.rows, new_share=0.0, changed_share=0.0)
    runs: dict[str, CliRun] = {}
    with tempfile.TemporaryDirectory(prefix="linksync-bench-scale-") as d:
        tmp = Path(d)
        src = write_csv(work.rows, tmp / "links.csv")
        base_db = tmp / "base.db"
        log(f"scale: preloading {case.existing} links")
        preload_s = seed_database(base_db, work, via_api=via_api)
        opts = SandboxOptions(rate_limit=case.rate, latency_ms=case.latency_ms, db=base_db)
        variants = {"table": ["plan", str(src), "--detailed-exitcode"]}
        if saved:
            variants["saved"] = [*variants["table"], "--out", str(tmp / "plan.json")]
        box = Sandbox(opts)
        try:
            box.start()
            for name, args in variants.items():
                log(f"scale: linksync plan of {case.rows} unchanged rows ({name})")
                runs[name] = run_cli(args, env=box.env(), cwd=tmp, timeout=timeout)
        finally:
            box.stop()
    table = runs["table"]
    out: dict[str, Any] = {
        "case": case.name,
        "rate_limit_per_s": case.rate,
        "latency_ms": list(case.latency_ms) if case.latency_ms else None,
        "existing": case.existing,
        "rows": case.rows,
        "preload_s": round(preload_s, 1),
        "plan": summarise_cli(table),
        "plan_s": round(table.wall_s, 2),
        "max_rss_mb": round(table.max_rss_mb, 1),
        **_plan_facts(table),
        "expected_list_pages": math.ceil(case.existing / PAGE),
        "plans_nothing": table.returncode == 0,
    }
    if "saved" in runs:
        out["saved_plan"] = summarise_cli(runs["saved"])
    return out


def _fmt(value: Any, digits: int = 2) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def markdown(results: list[dict[str, Any]]) -> str:
    """The tables of docs/performance.md, from this script's JSON."""
    rows = [r for r in results if "linksync" in r]
    out: list[str] = []
    if rows:
        out += [
            "| case | R/s | E | N | requests (429s) | minimum s | linksync s "
            "| before / writing / after s | efficiency "
            "| sandbox capacity/s | efficiency vs min(R, capacity) | sequential s | speedup "
            "| failed rows | links after/expected | CLI start-up s |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- "
            "| --- | --- |",
        ]
    for r in rows:
        ours = r["linksync"]
        peer = r.get("sequential_peer") or {}
        ws = ours["workspace"]
        ph = ours.get("phases_s") or {}
        split = " / ".join(_fmt(ph.get(k), 1) for k in ("before_writes", "writes", "after_writes"))
        out.append(
            f"| {r['case']} | {r['rate_limit_per_s']} | {r['existing']} | {r['rows']} "
            f"| {_fmt(r.get('requests'))} ({_fmt(r.get('rate_limited'))}) "
            f"| {_fmt(r['minimum_s'])} | {_fmt(ours['wall_s'])} | {split} "
            f"| {_fmt(r.get('efficiency'))} "
            f"| {_fmt(r.get('sandbox_capacity_per_s'), 0)} "
            f"| {_fmt(r.get('efficiency_vs_capacity'))} "
            f"| {_fmt(peer.get('process_wall_s'))} | {_fmt(r.get('speedup_vs_sequential'))}x "
            f"| {_fmt(ours.get('rows_failed'))} | {ws['links_after']}/{ws['links_expected']} "
            f"| {_fmt(r.get('cli_startup_s'))} |"
        )
    scale = [r for r in results if "plan" in r]
    if scale:
        out += [
            *([""] if out else []),
            "| case | E | N (unchanged) | plan s | peak RSS MB | requests | fetch "
            "| plan exit (0 = nothing to do) | plan --out: s / MB |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        for r in scale:
            saved = r.get("saved_plan") or {}
            fetches = ", ".join(
                f"{f.get('strategy')} {f.get('requests')} req" for f in r.get("fetches") or []
            )
            out.append(
                f"| {r['case']} | {r['existing']} | {r['rows']} | {_fmt(r['plan_s'])} "
                f"| {_fmt(r['max_rss_mb'], 0)} | {_fmt(r.get('requests'))} | {fetches or '-'} "
                f"| {r['plan']['exit_code']} "
                f"| {_fmt(saved.get('wall_s'))} / {_fmt(saved.get('max_rss_mb'), 0)} |"
            )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--case", choices=[*CASES, "all"], default="default")
    ap.add_argument("--rate", type=int, help="override R (requests per 1 s window)")
    ap.add_argument("--existing", type=int, help="override E (preloaded links)")
    ap.add_argument("--rows", type=int, help="override N (source rows)")
    ap.add_argument("--concurrency", type=int, help="override apply's --concurrency")
    ap.add_argument("--no-peer", action="store_true", help="skip the sequential script")
    ap.add_argument(
        "--preload-api",
        action="store_true",
        help="preload through the API instead of writing the sandbox store directly",
    )
    ap.add_argument(
        "--saved-plan", action="store_true", help="scale case: also time 'plan --out FILE'"
    )
    ap.add_argument("--timeout", type=float, default=600, help="per-process limit, seconds")
    ap.add_argument("--markdown", action="store_true", help="print markdown tables, not JSON")
    ap.add_argument("--from-json", type=Path, help="render --markdown from a saved JSON run")
    args = ap.parse_args(argv)
    if args.from_json:
        print(markdown(json.loads(args.from_json.read_text(encoding="utf-8"))))
        return 0
    names = list(CASES) if args.case == "all" else [args.case]
    results = []
    for name in names:
        case = CASES[name]
        case = replace(
            case,
            rate=args.rate or case.rate,
            existing=args.existing or case.existing,
            rows=args.rows or case.rows,
            concurrency=args.concurrency or case.concurrency,
        )
        if case.scale:
            results.append(
                scale_case(
                    case, via_api=args.preload_api, saved=args.saved_plan, timeout=args.timeout
                )
            )
        else:
            results.append(
                throughput_case(
                    case, peer=not args.no_peer, via_api=args.preload_api, timeout=args.timeout
                )
            )
        log(f"{name}: done")
    print(markdown(results) if args.markdown else json.dumps(results, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
