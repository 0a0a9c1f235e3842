"""A modest server: plan and apply against a small listen backlog.

``linksync sandbox serve --backlog N`` on a free 127.0.0.1 port, 20-40 ms of latency per
request, R requests per 1 s window, a workspace of 5,000 links (written straight into
the sandbox's store). Against it, for each backlog (5 as Python's ``http.server`` and
many small deployments, 511 for contrast):

- ``plan``: ``linksync plan`` of a CSV of the 5,000 links as they are (the plan lists
  every page: 52 requests), ``--runs`` times, a window apart (each run alone in its
  rate window); target <= 1.5 s each;
- ``apply``: ``linksync apply --yes`` of 2,000 rows (50% new, 30% changed, 20%
  unchanged: the ``default`` case of ``throughput.py``) on a fresh copy of the
  workspace; efficiency as ``throughput.py`` counts it (the minimum time at R, list
  pages and writes, over the wall time); target >= 0.95 and 0 x 429.

While each command runs, a thread reads the server process's open sockets
(``/proc/PID/fd``) every 2 ms and counts its connections: how many were opened in all,
the most open at once, and the most that appeared between two readings (a burst). The
kernel's ``ListenOverflows`` and ``ListenDrops`` counters (``/proc/net/netstat``, for
the whole machine) tell whether SYNs were dropped meanwhile. Linux only for those
figures; elsewhere they are empty or null.

Usage (from the repository root, in the project's virtualenv)::

    python benchmarks/network.py                    # backlogs 5 and 511, plan and apply
    python benchmarks/network.py --backlog 5 --only plan --runs 5
    python benchmarks/network.py --backlog 5 --client-src /tmp/old/src   # another client

Prints one JSON document on stdout; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _harness import PAGE, Sandbox, SandboxOptions, copy_db, list_all, run_cli
from _records import read_report
from _workload import Workload, check_workspace, make_workload, write_csv
from throughput import client_cores, seed_database, server_cores, summarise_cli

EXISTING = 5_000
ROWS = 2_000
LATENCY = (20, 40)
PLAN_TARGET_S = 1.5
EFFICIENCY_TARGET = 0.95


def log(msg: str) -> None:
    print(f"[network] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- sockets


def socket_inodes(pid: int) -> set[str]:
    """The sockets process ``pid`` holds open (Linux: its /proc fd links), by inode."""
    out: set[str] = set()
    try:
        names = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return out
    for name in names:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{name}")
        except OSError:
            continue  # closed meanwhile
        if target.startswith("socket:"):
            out.add(target)
    return out


def listen_counters() -> dict[str, int] | None:
    """The kernel's ListenOverflows and ListenDrops (whole machine), or None."""
    try:
        lines = Path("/proc/net/netstat").read_text().splitlines()
    except OSError:
        return None
    ext = [line.split() for line in lines if line.startswith("TcpExt:")]
    if len(ext) < 2:
        return None
    values = dict(zip(ext[0][1:], ext[1][1:], strict=False))
    return {k: int(values.get(k, 0)) for k in ("ListenOverflows", "ListenDrops")}


@dataclass
class ConnectionWatch:
    """Samples the sockets the server process ``pid`` holds (every ``every`` seconds,
    in a thread): the ones there before the run are its listening socket and the like;
    every other one is a connection it accepted. (Reading ``/proc/net/tcp`` instead
    costs milliseconds a read on a machine with many sockets.)"""

    pid: int
    every: float = 0.002
    opened: set[str] = field(default_factory=set)
    max_open: int = 0
    max_new_at_once: int = 0
    samples: int = 0
    max_gap: float = 0.0  # the longest time between two readings (a busy machine)
    listen: dict[str, int] | None = None
    _before: set[str] = field(default_factory=set)
    _last: float | None = None
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _counters: dict[str, int] | None = None

    def __enter__(self) -> ConnectionWatch:
        self._before = socket_inodes(self.pid)
        self._counters = listen_counters()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        after, before = listen_counters(), self._counters
        self.listen = {k: after[k] - before[k] for k in after} if after and before else None

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            time.sleep(self.every)

    def sample(self) -> None:
        open_now = socket_inodes(self.pid) - self._before
        new = open_now - self.opened
        self.opened |= new
        self.samples += 1
        self.max_open = max(self.max_open, len(open_now))
        self.max_new_at_once = max(self.max_new_at_once, len(new))
        now = time.perf_counter()
        if self._last is not None:
            self.max_gap = max(self.max_gap, now - self._last)
        self._last = now

    def to_dict(self) -> dict[str, Any]:
        return {
            "connections_opened": len(self.opened),
            "max_open_at_once": self.max_open,
            "max_new_between_samples": self.max_new_at_once,
            "sample_every_ms": round(self.every * 1000, 1),
            "max_ms_between_samples": round(self.max_gap * 1000, 1),
            "samples": self.samples,
            "kernel_listen_drops_machine_wide": self.listen,
        }


#: ``--client-src DIR``: the linksync of another checkout's ``src`` runs the commands
#: (the sandbox stays this one's): before and after a change, under the same load.
CLIENT_SRC: list[str] = []


def client_env(box: Sandbox) -> dict[str, str]:
    return box.env({"PYTHONPATH": CLIENT_SRC[0]} if CLIENT_SRC else None)


def server_pid(box: Sandbox) -> int:
    if box.proc is None:
        raise RuntimeError("the sandbox is not running")
    return box.proc.pid


# --------------------------------------------------------------------------- cases


def sandbox_options(rate: int, backlog: int, db: Path) -> SandboxOptions:
    return SandboxOptions(
        rate_limit=rate,
        latency_ms=LATENCY,
        db=db,
        cpus=server_cores(),
        extra=("--backlog", str(backlog)),
    )


def plan_runs(
    base_db: Path, src: Path, tmp: Path, *, rate: int, backlog: int, runs: int, timeout: float
) -> dict[str, Any]:
    """``linksync plan`` of the unchanged workspace, ``runs`` times, a window apart."""
    box = Sandbox(sandbox_options(rate, backlog, copy_db(base_db, tmp / f"plan-{backlog}.db")))
    out: list[dict[str, Any]] = []
    try:
        box.start()
        pid = server_pid(box)
        for n in range(runs):
            time.sleep(1.1)  # a fresh rate window: each run is alone on its key
            load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
            with ConnectionWatch(pid) as watch:
                run = run_cli(
                    ["plan", str(src), "--detailed-exitcode"],
                    env=client_env(box),
                    cwd=tmp,
                    timeout=timeout,
                    cpus=client_cores(),
                )
            log(f"plan backlog {backlog} run {n + 1}: {run.wall_s:.2f} s, exit {run.returncode}")
            out.append({**summarise_cli(run), **watch.to_dict(), "load_1m_before": load})
    finally:
        box.stop()
    walls = [r["wall_s"] for r in out]
    return {
        "runs": out,
        "wall_s": walls,
        "max_wall_s": max(walls),
        "requests_needed": math.ceil(EXISTING / PAGE) + 2,
        "targets": {
            f"each<={PLAN_TARGET_S}s": all(w <= PLAN_TARGET_S for w in walls),
            "plans_nothing": all(r["exit_code"] == 0 for r in out),
        },
    }


def apply_run(
    base_db: Path, src: Path, tmp: Path, *, rate: int, backlog: int, work: Workload, timeout: float
) -> dict[str, Any]:
    """``linksync apply`` of the rows on a fresh copy of the workspace."""
    work_dir = tmp / f"apply-{backlog}"
    work_dir.mkdir()
    report = work_dir / "report.json"
    box = Sandbox(sandbox_options(rate, backlog, copy_db(base_db, tmp / f"apply-{backlog}.db")))
    try:
        box.start()
        args = ["apply", str(src), "--yes", "--no-progress", "--report", str(report)]
        with ConnectionWatch(server_pid(box)) as watch:
            env = client_env(box)
            run = run_cli(args, env=env, cwd=work_dir, timeout=timeout, cpus=client_cores())
        check = check_workspace(list_all(box.base_url, box.read_key), work.expected)
    finally:
        box.stop()
    rows = read_report(report) if report.exists() else None
    info = (rows.run_info if rows else None) or {}
    reads = min(math.ceil(EXISTING / PAGE), ROWS)
    minimum = (reads + work.writes) / rate
    efficiency = round(minimum / run.wall_s, 3) if run.wall_s else None
    limited = info.get("rate_limit_waits")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    log(f"apply backlog {backlog}: {run.wall_s:.2f} s, efficiency {efficiency}, 429s {limited}")
    return {
        "linksync": summarise_cli(run),
        "requests": info.get("requests"),
        "rows_by_status": rows.by_status if rows else None,
        "workspace": check.to_dict(),
        "minimum_s": round(minimum, 3),
        "efficiency": efficiency,
        "rate_limited": limited,
        "connections": watch.to_dict(),
        "load_1m_after": load,
        "targets": {
            f"efficiency>={EFFICIENCY_TARGET}": efficiency is not None
            and efficiency >= EFFICIENCY_TARGET,
            "no_429": limited == 0,
            "zero_failed_rows": bool(rows) and rows.failed == 0 and run.returncode == 0,
            "workspace_as_expected": check.ok,
        },
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backlog", type=int, action="append", help="listen backlog(s); 5 and 511")
    ap.add_argument("--rate", type=int, default=100, help="R, requests per 1 s window")
    ap.add_argument("--runs", type=int, default=5, help="plan runs per backlog")
    ap.add_argument("--only", choices=["plan", "apply"], help="one of the two measurements")
    ap.add_argument("--timeout", type=float, default=300, help="per-process limit, seconds")
    ap.add_argument("--client-src", type=Path, help="run the linksync of another checkout's src")
    args = ap.parse_args(argv)
    if args.client_src:
        CLIENT_SRC[:] = [str(args.client_src.resolve())]
    backlogs = args.backlog or [5, 511]
    plan_work = make_workload(EXISTING, EXISTING, new_share=0.0, changed_share=0.0)
    work = make_workload(EXISTING, ROWS)
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="linksync-bench-network-") as d:
        tmp = Path(d)
        plan_src = write_csv(plan_work.rows, tmp / "unchanged.csv")
        src = write_csv(work.rows, tmp / "links.csv")
        base_db = tmp / "base.db"
        log(f"preloading {EXISTING} links")
        seed_database(base_db, work, via_api=False)
        for backlog in backlogs:
            result: dict[str, Any] = {
                "backlog": backlog,
                "rate_limit_per_s": args.rate,
                "latency_ms": list(LATENCY),
                "existing": EXISTING,
                "cores": {"sandbox": server_cores(), "client": client_cores()},
                "client_src": CLIENT_SRC[0] if CLIENT_SRC else None,
            }
            if args.only in (None, "plan"):
                result["plan"] = plan_runs(
                    base_db, plan_src, tmp, rate=args.rate, backlog=backlog,
                    runs=args.runs, timeout=args.timeout,
                )  # fmt: skip
            if args.only in (None, "apply"):
                result["apply"] = apply_run(
                    base_db, src, tmp, rate=args.rate, backlog=backlog, work=work,
                    timeout=args.timeout,
                )  # fmt: skip
            results.append(result)
    print(json.dumps(results, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
