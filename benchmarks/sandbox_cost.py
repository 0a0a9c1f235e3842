"""The sandbox's own CPU per request: a list page of 100 links, a create, a PATCH.

``linksync sandbox serve`` runs on a free 127.0.0.1 port on one core (no rate limit that
matters, no latency unless ``--latency-ms``), over a database file seeded with E links
straight through the sandbox's store; a load of aiohttp requests (``--in-flight`` at
once, on the other core) lists every page once (``list_first``: the sandbox reads each
link from SQLite and encodes it), then ``--rounds`` times more (``list``: the records
it keeps encoded), then creates ``--writes`` links, then PATCHes the URL of
``--writes`` existing ones. The sandbox's
CPU time (user + system, from ``/proc``) is read around each phase: its CPU per request
is the figure, the requests a second it served the second one.

Usage (from the repository root, in the project's virtualenv)::

    python benchmarks/sandbox_cost.py                        # 20,000 links
    python benchmarks/sandbox_cost.py --links 1000000 --rounds 1
    python benchmarks/sandbox_cost.py --only list --profile list.prof   # cProfile

With ``--profile FILE`` the server runs under cProfile and writes its statistics to FILE
when it stops (read them with ``python -m pstats FILE``); CPU figures then include the
profiler's own cost. Prints one JSON document on stdout; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import aiohttp
from _harness import (
    LINKS,
    PAGE,
    Sandbox,
    SandboxOptions,
    pin,
    process_cpu,
    split_cores,
)
from _workload import existing_link, seed_store

CORES = split_cores()
PHASES = ("list_first", "list", "create", "patch")

Request = tuple[str, str, dict[str, Any] | None]  # method, path (with query), JSON body


def log(msg: str) -> None:
    print(f"[sandbox_cost] {msg}", file=sys.stderr, flush=True)


async def _load(
    base_url: str, key: str, requests: Sequence[Request], in_flight: int
) -> Counter[int]:
    """Send ``requests`` with ``in_flight`` at a time; the statuses received."""
    statuses: Counter[int] = Counter()
    it = iter(requests)
    headers = {"Authorization": f"Bearer {key}"}
    connector = aiohttp.TCPConnector(limit=in_flight)
    async with aiohttp.ClientSession(base_url, headers=headers, connector=connector) as http:

        async def worker() -> None:
            for method, path, body in it:
                async with http.request(method, path, json=body) as resp:
                    await resp.read()
                    statuses[resp.status] += 1

        await asyncio.gather(*(worker() for _ in range(in_flight)))
    return statuses


def measure(box: Sandbox, name: str, requests: Sequence[Request], in_flight: int) -> dict[str, Any]:
    """One phase: the sandbox's CPU per request and the requests a second it served."""
    assert box.proc is not None
    log(f"{name}: {len(requests)} requests, {in_flight} in flight")
    cpu0, t0 = process_cpu(box.proc.pid), time.perf_counter()
    statuses = asyncio.run(_load(box.base_url, box.key, requests, in_flight))
    wall = time.perf_counter() - t0
    cpu1 = process_cpu(box.proc.pid)
    cpu = (cpu1 or 0.0) - (cpu0 or 0.0)
    return {
        "requests": len(requests),
        "statuses": {str(k): v for k, v in sorted(statuses.items())},
        "wall_s": round(wall, 3),
        "per_s": round(len(requests) / wall, 1) if wall else None,
        "sandbox_cpu_s": round(cpu, 3),
        "sandbox_cpu_ms_per_request": round(cpu / len(requests) * 1000, 4) if requests else None,
    }


def list_requests(links: int, rounds: int) -> list[Request]:
    pages = max(1, math.ceil(links / PAGE))
    return [
        ("GET", f"{LINKS}?page={p}&limit={PAGE}", None)
        for _ in range(rounds)
        for p in range(1, pages + 1)
    ]


def create_requests(n: int) -> list[Request]:
    return [
        ("POST", LINKS, {"slug": f"cost-{i:07d}", "url": f"https://example.com/cost/{i}"})
        for i in range(n)
    ]


def patch_requests(links: int, n: int) -> list[Request]:
    step = max(1, links // max(n, 1))
    return [
        ("PATCH", f"{LINKS}/{existing_link(i)['slug']}", {"url": f"https://example.com/p/{i}"})
        for i in range(0, min(links, n * step), step)
    ][:n]


def run(args: argparse.Namespace) -> dict[str, Any]:
    phases: dict[str, Callable[[], list[Request]]] = {
        "list_first": lambda: list_requests(args.links, 1),
        "list": lambda: list_requests(args.links, args.rounds),
        "create": lambda: create_requests(args.writes),
        "patch": lambda: patch_requests(args.links, args.writes),
    }
    only = args.only.split(",") if args.only else list(PHASES)
    result: dict[str, Any] = {
        "links": args.links,
        "in_flight": args.in_flight,
        "latency_ms": args.latency_ms,
        "cores": {"sandbox": CORES[0] if CORES else None, "load": CORES[1] if CORES else None},
        "profiled": args.profile is not None,
    }
    with tempfile.TemporaryDirectory(prefix="linksync-sandbox-cost-") as d:
        db = Path(d) / "sandbox.db"
        log(f"seeding {args.links} links")
        result["seed_s"] = round(seed_store(db, (existing_link(i) for i in range(args.links))), 2)
        latency = tuple(int(x) for x in args.latency_ms.split("-")) if args.latency_ms else None
        opts = SandboxOptions(
            rate_limit=10_000_000,
            latency_ms=(latency[0], latency[-1]) if latency else None,
            link_quota=args.links + args.writes + 10,
            db=db,
            cpus=CORES[0] if CORES else None,
            profile=args.profile,
        )
        if CORES:
            pin(0, CORES[1])
        box = Sandbox(opts)
        try:
            box.start(timeout=120)
            measure(box, "warm-up", list_requests(PAGE, 1), 1)  # the list order is built
            for name in only:
                result[name] = measure(box, name, phases[name](), args.in_flight)
        finally:
            box.stop()
        result["sandbox_cpu_s_total"] = box.cpu_s
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--links", type=int, default=20_000, help="links in the workspace")
    ap.add_argument("--rounds", type=int, default=3, help="times every page is listed")
    ap.add_argument("--writes", type=int, default=3_000, help="creates, then PATCHes")
    ap.add_argument("--in-flight", type=int, default=32)
    ap.add_argument("--latency-ms", help="the sandbox's latency, e.g. 20-40 (default none)")
    ap.add_argument("--only", help=f"phases, comma-separated: {','.join(PHASES)}")
    ap.add_argument("--profile", type=Path, help="run the server under cProfile, stats here")
    args = ap.parse_args(argv)
    print(json.dumps(run(args), indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
