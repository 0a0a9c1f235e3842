"""Throughput of ``linksync apply`` at the rate limit's ceiling.

Every case starts ``linksync sandbox serve`` on a free 127.0.0.1 port (20-40 ms of
latency per request) on one core, and runs linksync on the other(s), so each side's CPU
time is its own. Cases:

- ``default`` / ``small`` / ``fast``: a workspace of E links, a CSV of N rows (50% new,
  30% changed, 20% unchanged), ``linksync apply --yes`` against R requests per 1 s
  window; then the same workload on a copy of the database with
  ``benchmarks/sequential_peer.py`` (httpx in a loop, the script a user writes by hand).
  ``fast`` also runs a fifth of the rows, for the CPU time per 1,000 requests of the
  client and of the sandbox without start-up (the difference of the two runs), and the
  same workload on another copy with ``benchmarks/aiohttp_apply_peer.py`` (aiohttp +
  orjson, as many in flight as linksync: the fastest script a user writes by hand): its
  efficiency beside linksync's, and linksync's over it (``efficiency_vs_peer``).
- ``pacing``: one client alone on its key, limits from 2 to 1,000 requests per window,
  windows from 1 to 60 s, 1 to 32 requests in flight: how many 429s it received.
- ``scale`` / ``scale-200k``: ``linksync plan`` of 1,000,000 (200,000) unchanged rows
  against as many links, R=1,000, and in the same run against the same sandbox the
  hand-written plan of ``benchmarks/aiohttp_peer.py`` (aiohttp + orjson): wall, CPU and
  peak RSS of each, side by side, and linksync's over the peer's. The workspace is
  written straight into the sandbox's store, and listed once (with the read-only key)
  before either run, so both meet a sandbox that keeps every link encoded.
- ``scale-apply``: ``linksync apply`` of 100,000 creates at R=1,000, against the
  sandbox's measured capacity for creates.

Usage (from the repository root, in the project's virtualenv)::

    python benchmarks/throughput.py                 # the default case
    python benchmarks/throughput.py --case all      # every case (about 25 minutes)
    python benchmarks/throughput.py --case scale    # 1,000,000 links, linksync and the peer
    python benchmarks/throughput.py --case fast --no-peer
    python benchmarks/throughput.py --from-json run.json   # the tables of the docs

Prints one JSON document (a list of case results) on stdout; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
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
    process_cpu,
    run_cli,
    run_process,
    running_sandbox,
    sandbox_capacity,
    split_cores,
)
from _records import read_journal, read_report
from _tables import markdown
from _workload import (
    Workload,
    check_workspace,
    existing_link,
    make_workload,
    seed_store,
    unchanged_rows,
    write_csv,
)

from linksync.api.defaults import DEFAULT_CONCURRENCY

PEER = Path(__file__).resolve().parent / "sequential_peer.py"
AIOHTTP_PEER = Path(__file__).resolve().parent / "aiohttp_peer.py"
APPLY_PEER = Path(__file__).resolve().parent / "aiohttp_apply_peer.py"
PRELOAD_RATE = 100_000
CORES = split_cores()  # (sandbox cores, client cores), or None on one core


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    rate: int
    existing: int
    rows: int
    latency_ms: tuple[int, int] | None = (20, 40)
    concurrency: int | None = None  # --concurrency of apply; None: the tool's default
    peer: bool = True
    kind: str = "apply"  # apply | plan (scale) | creates (scale-apply) | pacing
    marginal: bool = False  # also run a fifth of the rows (CPU per request)
    apply_peer: bool = False  # also run aiohttp_apply_peer.py on a copy (with the peer)


CASES: dict[str, Case] = {
    "default": Case("default", rate=100, existing=5_000, rows=2_000),
    "small": Case("small", rate=20, existing=300, rows=100),
    "fast": Case("fast", rate=1_000, existing=5_000, rows=2_000, marginal=True, apply_peer=True),
    "pacing": Case("pacing", rate=0, existing=0, rows=0, peer=False, kind="pacing"),
    "scale": Case("scale", rate=1_000, existing=1_000_000, rows=1_000_000, kind="plan"),
    "scale-200k": Case("scale-200k", rate=1_000, existing=200_000, rows=200_000, kind="plan"),
    "scale-apply": Case(
        "scale-apply", rate=1_000, existing=0, rows=100_000, peer=False, kind="creates"
    ),
}

#: (requests per window, window s, --concurrency, rows to create) of the pacing case.
PACING_POINTS: tuple[tuple[int, float, int, int], ...] = (
    (2, 1.0, 32, 12),
    (5, 1.0, 1, 16),
    (10, 5.0, 32, 25),
    (50, 2.0, 16, 150),
    (1_000, 1.0, 32, 3_000),
    (30, 60.0, 32, 45),
    (2, 1.0, 64, 12),
    (10, 5.0, 64, 25),
    (1_000, 1.0, 64, 3_000),
)


def log(msg: str) -> None:
    print(f"[throughput] {msg}", file=sys.stderr, flush=True)


def server_cores() -> tuple[int, ...] | None:
    return CORES[0] if CORES else None


def client_cores() -> tuple[int, ...] | None:
    return CORES[1] if CORES else None


def seed_database(db: Path, work: Workload, *, via_api: bool) -> float:
    """Preload the workspace: straight into the sandbox's store (default), or through
    the API of a sandbox with a limit too high to matter. Checks the count either way."""
    seconds = 0.0 if via_api else seed_store(db, work.existing)
    opts = SandboxOptions(rate_limit=PRELOAD_RATE, latency_ms=None, db=db)
    with running_sandbox(opts, timeout=60) as box:
        if via_api:
            seconds = preload(box.base_url, box.key, work.existing, concurrency=16)
        count = link_count(box.base_url, box.read_key)
    if count != len(work.existing):
        raise RuntimeError(f"preload holds {count} links, expected {len(work.existing)}")
    return seconds


def summarise_cli(run: CliRun) -> dict[str, Any]:
    return {
        "exit_code": run.returncode,
        "wall_s": round(run.wall_s, 3),
        "cpu_s": round(run.cpu_s, 3),
        "max_rss_mb": round(run.max_rss_mb, 1),
        "timed_out": run.timed_out,
        "traceback": run.traceback,
        "stderr_tail": run.stderr.strip().splitlines()[-5:],
    }


def sandbox_options(case: Case, db: Path | None, **changes: Any) -> SandboxOptions:
    opts = SandboxOptions(
        rate_limit=case.rate, latency_ms=case.latency_ms, db=db, cpus=server_cores()
    )
    return replace(opts, **changes)


def run_apply(
    case: Case,
    db: Path,
    src: Path,
    tmp: Path,
    timeout: float,
    *,
    sandbox: SandboxOptions | None = None,
    work: Workload | None = None,
) -> dict[str, Any]:
    """``linksync apply SRC`` against a sandbox on ``db``: the CLI's figures, the
    sandbox's CPU time during the run, the report's facts and (with ``work``) the
    workspace checked link by link afterwards."""
    report = tmp / "report.json"
    box = Sandbox(sandbox or sandbox_options(case, db))
    try:
        box.start()
        args = ["apply", str(src), "--yes", "--no-progress", "--report", str(report)]
        if case.concurrency:
            args += ["--concurrency", str(case.concurrency)]
        server_before = process_cpu(box.proc.pid) if box.proc else None
        run = run_cli(args, env=box.env(), cwd=tmp, timeout=timeout, cpus=client_cores())
        server_after = process_cpu(box.proc.pid) if box.proc else None
        check = (
            check_workspace(list_all(box.base_url, box.read_key), work.expected) if work else None
        )
    finally:
        box.stop()
    out = summarise_cli(run)
    if server_before is not None and server_after is not None:
        out["sandbox_cpu_s"] = round(server_after - server_before, 2)
    out["phases_s"] = phases(run, tmp)
    if check is not None:
        out["workspace"] = check.to_dict()
    rows = read_report(report) if report.exists() else None
    out["report_rows"] = len(rows.rows) if rows else 0
    out["rows_failed"] = rows.failed if rows else None
    out["rows_by_status"] = rows.by_status if rows else None
    info = (rows.run_info if rows else None) or {}
    out["requests"] = info.get("requests")
    out["requests_by_kind"] = info.get("requests_by_kind")
    out["rate_limited"] = info.get("rate_limit_waits")
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
    box = Sandbox(sandbox_options(case, db))
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


def run_apply_peer(
    case: Case, base_db: Path, src: Path, work: Workload, tmp: Path, timeout: float
) -> dict[str, Any]:
    """``aiohttp_apply_peer.py SRC`` against a sandbox on its own copy of ``base_db``,
    pinned as linksync's apply is: the process's figures (``wall_s``, ``cpu_s`` as
    ``summarise_cli``), the script's own (``script_wall_s``, ``script_cpu_s``), the
    sandbox's CPU meanwhile, and the workspace checked link by link afterwards. It
    keeps as many requests in flight as linksync's apply does (``--concurrency``, else
    the tool's default): at 20-40 ms a request, 32 in flight can never pass about 1,067
    a second, while linksync's 64 can use a window's budget faster."""
    db = copy_db(base_db, tmp / "apply-peer.db")
    box = Sandbox(sandbox_options(case, db))
    in_flight = case.concurrency or DEFAULT_CONCURRENCY
    try:
        box.start()
        argv = [sys.executable, str(APPLY_PEER), str(src), "--in-flight", str(in_flight)]
        run, cpu = measured(
            box,
            lambda: run_process(argv, env=box.env(), cwd=tmp, timeout=timeout, cpus=client_cores()),
        )
        check = check_workspace(list_all(box.base_url, box.read_key), work.expected)
    finally:
        box.stop()
    out = summarise_cli(run)
    lines = run.stdout.strip().splitlines()
    if lines and lines[-1].startswith("{"):
        said = json.loads(lines[-1])
        said["script_wall_s"] = said.pop("wall_s", None)
        said["script_cpu_s"] = said.pop("cpu_s", None)
        out.update(said)
    out["sandbox_cpu_s"] = cpu
    out["in_flight"] = in_flight
    out["workspace"] = check.to_dict()
    return out


def per_1000(cpu: float | None, requests: int | None) -> float | None:
    return round(cpu / requests * 1000, 3) if cpu is not None and requests else None


def throughput_case(case: Case, *, peer: bool, via_api: bool, timeout: float) -> dict[str, Any]:
    work = make_workload(case.existing, case.rows)
    fifth = make_workload(case.existing, case.rows // 5) if case.marginal else None
    with tempfile.TemporaryDirectory(prefix=f"linksync-bench-{case.name}-") as d:
        tmp = Path(d)
        src = write_csv(work.rows, tmp / "links.csv")
        base_db = tmp / "base.db"
        log(f"{case.name}: preloading {case.existing} links")
        preload_s = seed_database(base_db, work, via_api=via_api)
        log(f"{case.name}: linksync apply ({case.rows} rows, R={case.rate}/s)")
        ours = run_apply(case, copy_db(base_db, tmp / "run.db"), src, tmp, timeout, work=work)
        fastest = None  # right after linksync's run, so both meet the same machine
        if peer and case.apply_peer:
            log(f"{case.name}: aiohttp + orjson apply peer")
            fastest = run_apply_peer(case, base_db, src, work, tmp, timeout)
        small = None
        if fifth is not None:
            log(f"{case.name}: linksync apply of a fifth of the rows (CPU per request)")
            (tmp / "fifth").mkdir()
            small_src = write_csv(fifth.rows, tmp / "fifth" / "links.csv")
            db = copy_db(base_db, tmp / "fifth.db")
            small = run_apply(case, db, small_src, tmp / "fifth", timeout)
        theirs = None
        if peer and case.peer:
            log(f"{case.name}: sequential peer")
            theirs = run_peer(case, base_db, src, work, tmp, timeout)
    log(f"{case.name}: probing the sandbox's own capacity and the CLI's start-up time")
    # Creates with as many in flight as the apply sends: 32 reads at 20-40 ms of latency
    # can never pass 32 / 30 ms = 1,067 a second, whatever the sandbox's CPU.
    probe: dict[str, float] = {}
    capacity = sandbox_capacity(
        case.latency_ms,
        kind="create",
        concurrency=case.concurrency or DEFAULT_CONCURRENCY,
        cores=CORES,
        facts=probe,
    )
    startup = run_cli(["apply", "--help"], timeout=60).wall_s  # the CLI only: --help loads no run
    # The minimum counts the list pages (or one read per row, if fewer) and the
    # writes; the organization and domain reads (2) are left out.
    reads = min(math.ceil(case.existing / PAGE) or 1, case.rows)
    minimum = (reads + work.writes) / case.rate
    ceiling = min(case.rate, capacity)
    total = ours.get("requests")
    limited = ours.get("rate_limited")
    result: dict[str, Any] = {
        "case": case.name,
        "rate_limit_per_s": case.rate,
        "latency_ms": list(case.latency_ms) if case.latency_ms else None,
        "concurrency": case.concurrency,
        "cores": {"sandbox": server_cores(), "client": client_cores()},
        "existing": case.existing,
        "rows": case.rows,
        "workload": {"new": work.new, "changed": work.changed, "unchanged": work.unchanged},
        "preload_s": round(preload_s, 1),
        "ideal_requests": {"reads": reads, "writes": work.writes},
        "minimum_s": round(minimum, 3),
        "linksync": ours,
        "requests": total,
        "rate_limited": limited,
        "rate_limited_share": round(limited / total, 4) if total and limited is not None else None,
        "efficiency": round(minimum / ours["wall_s"], 3) if ours["wall_s"] else None,
        "cli_startup_s": round(startup, 2),
        "sandbox_capacity_per_s": round(capacity, 1),
        # what one core of the sandbox could serve at its measured CPU a create, were
        # it not shared (on a loaded machine the probe's own count falls below it)
        "sandbox_capacity_cpu_per_s": round(1000 / probe["sandbox_cpu_per_1000"], 1)
        if probe.get("sandbox_cpu_per_1000")
        else None,
        "sandbox_probe": probe,
        "efficiency_vs_capacity": round((reads + work.writes) / ceiling / ours["wall_s"], 3)
        if ours["wall_s"]
        else None,
        "cpu": cpu_figures(ours, small),
        "sequential_peer": theirs,
    }
    if fastest is not None:
        wall = fastest["wall_s"] if fastest["exit_code"] == 0 else None
        fastest["efficiency"] = round(minimum / wall, 3) if wall else None
        result["aiohttp_apply_peer"] = fastest
        result["efficiency_vs_peer"] = (
            round(result["efficiency"] / fastest["efficiency"], 3)
            if result["efficiency"] and fastest["efficiency"]
            else None
        )
    if theirs and theirs.get("process_wall_s") and ours["wall_s"]:
        result["speedup_vs_sequential"] = round(theirs["process_wall_s"] / ours["wall_s"], 2)
    result["targets"] = apply_targets(result)
    return result


def cpu_figures(ours: dict[str, Any], small: dict[str, Any] | None) -> dict[str, Any]:
    """CPU seconds per 1,000 requests, client and sandbox: over the whole run, and (with
    the run of a fifth of the rows) without start-up, from the difference of the runs."""
    out: dict[str, Any] = {
        "client_cpu_s": ours.get("cpu_s"),
        "sandbox_cpu_s": ours.get("sandbox_cpu_s"),
        "client_per_1000_requests": per_1000(ours.get("cpu_s"), ours.get("requests")),
        "sandbox_per_1000_requests": per_1000(ours.get("sandbox_cpu_s"), ours.get("requests")),
    }
    if small and small.get("requests") and ours.get("requests"):
        extra = ours["requests"] - small["requests"]
        client = ours["cpu_s"] - small["cpu_s"]
        server = (ours.get("sandbox_cpu_s") or 0.0) - (small.get("sandbox_cpu_s") or 0.0)
        out.update(
            marginal_requests=extra,
            client_marginal_per_1000=per_1000(client, extra),
            sandbox_marginal_per_1000=per_1000(server, extra),
            client_startup_cpu_s=round(small["cpu_s"] - client * small["requests"] / extra, 2),
        )
    return out


def apply_targets(r: dict[str, Any]) -> dict[str, bool | None]:
    ours = r["linksync"]
    share = r.get("rate_limited_share")
    speed = r.get("speedup_vs_sequential")
    cpu = r["cpu"]
    client, server = cpu.get("client_marginal_per_1000"), cpu.get("sandbox_marginal_per_1000")
    return {
        "efficiency>=0.95": r["efficiency"] is not None and r["efficiency"] >= 0.95,
        "zero_failed_rows": ours.get("rows_failed") == 0 and ours["exit_code"] == 0,
        "429s<1%": None if share is None else share < 0.01,
        "3.3x_sequential": None if speed is None else speed >= 3.3,
        "workspace_as_expected": ours["workspace"]["ok"],
        "client_cpu<sandbox_cpu": None if client is None or server is None else client < server,
    }


def pacing_case(case: Case, *, timeout: float) -> dict[str, Any]:
    """One client alone on its key: 429s received at each (limit, window, in flight)."""
    points = []
    for limit, window, conc, rows in PACING_POINTS:
        work = make_workload(0, rows, new_share=1.0, changed_share=0.0)
        log(f"pacing: {limit} per {window:g} s, --concurrency {conc}, {rows} creates")
        with tempfile.TemporaryDirectory(prefix="linksync-bench-pacing-") as d:
            tmp = Path(d)
            src = write_csv(work.rows, tmp / "links.csv")
            opts = sandbox_options(case, None, rate_limit=limit, rate_window=window)
            paced = replace(case, rate=limit, concurrency=conc)
            out = run_apply(paced, tmp / "x.db", src, tmp, timeout, sandbox=opts, work=work)
        points.append(
            {
                "limit": limit,
                "window_s": window,
                "concurrency": conc,
                "rows": rows,
                "wall_s": out["wall_s"],
                "requests": out["requests"],
                "rate_limited": out["rate_limited"],
                "rows_failed": out["rows_failed"],
                "workspace_ok": out["workspace"]["ok"],
                "windows_needed": math.ceil((rows + 3) / limit),
            }
        )
    return {
        "case": case.name,
        "points": points,
        "targets": {"no_429": all(p["rate_limited"] == 0 for p in points)},
    }


REQUESTS_PREFIX = "requests to read the workspace: "


def _plan_requests(run: CliRun) -> int | None:
    for line in (run.stdout + run.stderr).splitlines():
        if REQUESTS_PREFIX in line:
            digits = line.split(REQUESTS_PREFIX, 1)[1].split()[0].rstrip(",.")
            return int(digits) if digits.isdigit() else None
    return None


def run_plan_peer(env: dict[str, str], src: Path, tmp: Path, timeout: float) -> dict[str, Any]:
    """``aiohttp_peer.py SRC`` with ``env``: the process's figures and the script's
    (its own wall time as ``script_wall_s``)."""
    argv = [sys.executable, str(AIOHTTP_PEER), str(src)]
    run = run_process(argv, env=env, cwd=tmp, timeout=timeout, cpus=client_cores())
    out = summarise_cli(run)
    lines = run.stdout.strip().splitlines()
    if run.returncode == 0 and lines:
        said = json.loads(lines[-1])
        said["script_wall_s"] = said.pop("wall_s", None)
        out.update(said)
    return out


def measured(box: Sandbox, run: Any) -> tuple[Any, float | None]:
    """Run ``run()`` and the sandbox's CPU seconds meanwhile."""
    before = process_cpu(box.proc.pid) if box.proc else None
    result = run()
    after = process_cpu(box.proc.pid) if box.proc else None
    return result, round(after - before, 2) if before is not None and after is not None else None


def scale_case(case: Case, *, peer: bool, timeout: float) -> dict[str, Any]:
    """``linksync plan`` of N unchanged rows against E links (the table a pull request
    shows), and the hand-written aiohttp + orjson plan of the same file against the
    same sandbox: seconds, CPU, peak memory, requests against the minimum."""
    with tempfile.TemporaryDirectory(prefix="linksync-bench-scale-") as d:
        tmp = Path(d)
        src = write_csv(unchanged_rows(case.existing, case.rows), tmp / "links.csv")
        empty = write_csv((), tmp / "empty.csv")
        db = tmp / "base.db"
        log(f"{case.name}: writing {case.existing} links into the sandbox's store")
        preload_s = seed_store(db, (existing_link(i) for i in range(case.existing)))
        box = Sandbox(sandbox_options(case, db))
        try:
            box.start(timeout=120)
            log(f"{case.name}: listing every page once (read-only key), the sandbox warms")
            warm, warm_cpu = measured(
                box,
                lambda: run_plan_peer(
                    box.env({"LINKSYNC_API_KEY": box.read_key}), empty, tmp, timeout
                ),
            )
            theirs = None
            if peer:
                log(f"{case.name}: aiohttp + orjson peer of {case.rows} unchanged rows")
                theirs, cpu = measured(box, lambda: run_plan_peer(box.env(), src, tmp, timeout))
                theirs["sandbox_cpu_s"] = cpu
            log(f"{case.name}: linksync plan of {case.rows} unchanged rows")
            args = ["plan", str(src), "--detailed-exitcode"]
            run, cpu = measured(
                box,
                lambda: run_cli(args, env=box.env(), cwd=tmp, timeout=timeout, cpus=client_cores()),
            )
        finally:
            box.stop()
    pages = math.ceil(case.existing / PAGE)
    minimum = pages + 2
    requests = _plan_requests(run)
    ours = summarise_cli(run)
    ours.update(requests=requests, sandbox_cpu_s=cpu)
    for side in (ours, theirs):
        if side and side.get("sandbox_cpu_s") is not None and side.get("requests"):
            side["sandbox_ms_per_request"] = round(
                side["sandbox_cpu_s"] / side["requests"] * 1e3, 3
            )
    ratios = _ratios(ours, theirs)
    return {
        "case": case.name,
        "rate_limit_per_s": case.rate,
        "latency_ms": list(case.latency_ms) if case.latency_ms else None,
        "cores": {"sandbox": server_cores(), "client": client_cores()},
        "existing": case.existing,
        "rows": case.rows,
        "preload_s": round(preload_s, 1),
        "warm_up": {
            "wall_s": warm.get("wall_s"),
            "requests": warm.get("requests"),
            "sandbox_cpu_s": warm_cpu,
        },
        "floor_s": round(pages / case.rate, 2),
        "linksync": ours,
        "aiohttp_peer": theirs,
        "ratios": ratios,
        "plan_s": round(run.wall_s, 2),
        "max_rss_mb": round(run.max_rss_mb, 1),
        "requests": requests,
        "minimum_requests": minimum,
        "plans_nothing": run.returncode == 0,
        "targets": {
            "wall<=1.15x_peer": None if not ratios else ratios["wall"] <= 1.15,
            "cpu<=1.5x_peer": None if not ratios else ratios["cpu"] <= 1.5,
            "peak_rss<=1GB": run.max_rss_mb <= 1024 and run.returncode == 0,
            "minimum_requests": requests == minimum,
            "peer_counts_all_unchanged": None
            if theirs is None
            else theirs.get("unchanged") == case.rows and theirs.get("rate_limited") == 0,
        },
    }


def _ratios(ours: dict[str, Any], theirs: dict[str, Any] | None) -> dict[str, float] | None:
    """linksync's wall, CPU and peak RSS over the peer's."""
    if not theirs or not theirs.get("wall_s") or not theirs.get("cpu_s"):
        return None
    return {
        "wall": round(ours["wall_s"] / theirs["wall_s"], 2),
        "cpu": round(ours["cpu_s"] / theirs["cpu_s"], 2),
        "max_rss": round(ours["max_rss_mb"] / theirs["max_rss_mb"], 2),
    }


def creates_case(case: Case, *, timeout: float) -> dict[str, Any]:
    """``linksync apply`` of N new links at R, against min(R, the sandbox's capacity for
    creates measured in the same run)."""
    work = make_workload(0, case.rows, new_share=1.0, changed_share=0.0)
    in_flight = case.concurrency or DEFAULT_CONCURRENCY

    def probe_capacity(when: str, facts: dict[str, float]) -> float:
        log(f"scale-apply: probing the sandbox's capacity for creates ({when})")
        return sandbox_capacity(
            case.latency_ms,
            kind="create",
            seconds=5.0,
            concurrency=in_flight,
            cores=CORES,
            facts=facts,
        )

    # The capacity is probed before and after the run, with as many requests in flight
    # as linksync sends; the higher of the two is the ceiling (the stricter ratio).
    probe: dict[str, float] = {}
    before = probe_capacity("before", {})
    with tempfile.TemporaryDirectory(prefix="linksync-bench-creates-") as d:
        tmp = Path(d)
        src = write_csv(work.rows, tmp / "links.csv")
        log(f"scale-apply: linksync apply of {case.rows} creates (R={case.rate}/s)")
        ours = run_apply(case, tmp / "x.db", src, tmp, timeout, work=work)
    after = probe_capacity("after", probe)
    capacity = max(before, after)
    ceiling = min(case.rate, capacity)
    requests = work.writes + 2
    ratio = requests / ceiling / ours["wall_s"] if ours["wall_s"] else None
    return {
        "case": case.name,
        "rate_limit_per_s": case.rate,
        "rows": case.rows,
        "linksync": ours,
        "requests": ours.get("requests"),
        "rate_limited": ours.get("rate_limited"),
        "sandbox_create_capacity_per_s": round(capacity, 1),
        "sandbox_create_capacity_before_after_per_s": [round(before, 1), round(after, 1)],
        "capacity_probe_in_flight": in_flight,
        "capacity_probe_cpu": probe,
        "achieved_per_s": round(requests / ours["wall_s"], 1) if ours["wall_s"] else None,
        "efficiency_vs_capacity": round(ratio, 3) if ratio is not None else None,
        "cpu": cpu_figures(ours, None),
        "targets": {
            ">=0.9_of_min(R,capacity)": ratio is not None and ratio >= 0.9,
            "zero_failed_rows": ours.get("rows_failed") == 0,
            "workspace_as_expected": ours["workspace"]["ok"],
        },
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--case", choices=[*CASES, "all"], default="default")
    ap.add_argument("--rate", type=int, help="override R (requests per 1 s window)")
    ap.add_argument("--existing", type=int, help="override E (preloaded links)")
    ap.add_argument("--rows", type=int, help="override N (source rows)")
    ap.add_argument("--concurrency", type=int, help="override apply's --concurrency")
    ap.add_argument(
        "--no-peer",
        action="store_true",
        help="skip the peers: the sequential script and fast's aiohttp + orjson apply "
        "(scale cases: the aiohttp + orjson plan)",
    )
    ap.add_argument(
        "--preload-api",
        action="store_true",
        help="preload through the API instead of writing the sandbox store directly",
    )
    ap.add_argument("--timeout", type=float, default=900, help="per-process limit, seconds")
    ap.add_argument("--markdown", action="store_true", help="print markdown tables, not JSON")
    ap.add_argument("--from-json", type=Path, help="render --markdown from a saved JSON run")
    args = ap.parse_args(argv)
    if args.from_json:
        print(markdown(json.loads(args.from_json.read_text(encoding="utf-8"))))
        return 0
    names = list(CASES) if args.case == "all" else [args.case]
    results = []
    for name in names:
        case = replace(
            CASES[name],
            rate=args.rate or CASES[name].rate,
            existing=args.existing if args.existing is not None else CASES[name].existing,
            rows=args.rows or CASES[name].rows,
            concurrency=args.concurrency or CASES[name].concurrency,
        )
        if case.kind == "pacing":
            results.append(pacing_case(case, timeout=args.timeout))
        elif case.kind == "plan":
            results.append(scale_case(case, peer=not args.no_peer, timeout=args.timeout))
        elif case.kind == "creates":
            results.append(creates_case(case, timeout=args.timeout))
        else:
            peer = not args.no_peer
            results.append(
                throughput_case(case, peer=peer, via_api=args.preload_api, timeout=args.timeout)
            )
        log(f"{name}: done")
    print(markdown(results) if args.markdown else json.dumps(results, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
