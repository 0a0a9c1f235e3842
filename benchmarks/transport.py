"""Client CPU per request and wall time of the network transport.

Two workloads, each against ``linksync sandbox serve`` on a free 127.0.0.1 port with a
rate limit of R requests per 1 s window and 20-40 ms of latency, at R = 10, 100 and
1,000, with ``--concurrency`` workers (the default 64):

- ``creates``: N creates through ``LinkServiceClient.create_link``;
- ``pages``: P list pages of 100 links through ``LinkServiceClient.list_links_page``
  (what a plan reads), from a workspace of P x 100 links written into the sandbox's
  database before it starts.

The client runs in a child process of its own (pinned to other cores than the sandbox
where the machine has two), which measures ``time.process_time`` (its CPU, user +
system) and wall time around the requests only (no start-up, no imports).

Variants of the client's transport:

- ``default``: what ``LinkServiceClient`` uses for the network when given no transport.
  Up to commit ``bench: lean transport measured`` (the commit that added this script)
  that was the hand-written lean transport (``api/transport.py``, httptools); then
  httpx's own ``AsyncHTTPTransport`` through ``httpx.AsyncClient``, requests entering
  its pool one at a time (a pool-entry gate, gone since); since the transport was chosen by
  this script's figures again, aiohttp's pool (``api/aio.py``: the ``httpx-aiohttp``
  transport made for the client), requests handed to it as plain values
  (``api/wire.py``), no ``httpx.AsyncClient`` in between.
- ``httpx``: httpx's own ``AsyncHTTPTransport`` given explicitly, its pool sized
  ``max_connections = max_keepalive_connections = concurrency``. A given transport
  gets an ``httpx.Request``; before the switch it went through ``httpx.AsyncClient``
  without the pool entry (the network path as it was before that entry).
- ``httpx-pool-8`` / ``httpx-pool-32``: the same with a pool of 8 or 32 connections
  (about rate x latency with headroom at R = 100 and R = 1,000; the client's limiter
  still lets ``concurrency`` requests wait for a connection).
- ``httpx-aiohttp``: the ``httpx-aiohttp`` package's ``AiohttpTransport`` as it ships,
  given explicitly, its pool sized to the concurrency (before the switch: through
  ``httpx.AsyncClient``, as its ``HttpxAiohttpClient`` runs it).

Usage (from the repository root, in the project's virtualenv)::

    python benchmarks/transport.py                       # every rate; default, httpx, pool 8
    python benchmarks/transport.py --rates 100 --repeat 1
    python benchmarks/transport.py --variants default,httpx
    python benchmarks/transport.py --workloads pages --rates 1000

Prints one JSON document on stdout; progress goes to stderr. The figures are in
``docs/network.md``.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _harness import SandboxOptions, copy_db, pin, running_sandbox, split_cores
from _workload import make_workload, seed_store

CORES = split_cores()  # (sandbox cores, client cores), or None on one core
#: Rate (requests per 1 s window) -> creates of one run, and list pages of one run.
SIZES: dict[int, int] = {10: 100, 100: 1_000, 1_000: 5_000}
PAGES: dict[int, int] = {10: 50, 100: 500, 1_000: 2_000}
PAGE = 100
VARIANTS = ("default", "httpx", "httpx-pool-8", "httpx-pool-32", "httpx-aiohttp")
WORKLOADS = ("creates", "pages")


def log(msg: str) -> None:
    print(f"[transport] {msg}", file=sys.stderr, flush=True)


def default_transport_name() -> str:
    """Which transport ``LinkServiceClient`` uses for the network in this checkout."""
    import importlib.util

    if importlib.util.find_spec("linksync.api.aio") is not None:
        return "aiohttp (linksync.api.aio, httpx-aiohttp)"
    if importlib.util.find_spec("linksync.api.transport") is not None:
        return "lean (httptools)"
    return "httpx AsyncHTTPTransport"


# --------------------------------------------------------------------------- child


def _transport(variant: str, concurrency: int) -> Any:
    import httpx

    if variant == "default":
        return None
    pool = int(variant.rsplit("-", 1)[1]) if "-pool-" in variant else concurrency
    limits = httpx.Limits(max_connections=pool, max_keepalive_connections=pool)
    if variant == "httpx-aiohttp":
        from httpx_aiohttp import AiohttpTransport

        return AiohttpTransport(limits=limits)
    return httpx.AsyncHTTPTransport(limits=limits)


async def _requests(
    base_url: str, key: str, variant: str, workload: str, n: int, concurrency: int
) -> dict:
    from linksync.api import LinkServiceClient

    client = LinkServiceClient(
        base_url,
        key,
        transport=_transport(variant, concurrency),
        concurrency=concurrency,
        allow_insecure=True,
    )
    todo = iter(range(n))
    failed = 0
    links = 0

    async def one(i: int) -> None:
        nonlocal links
        if workload == "pages":
            page = await client.list_links_page(i + 1, PAGE)
            links += len(page.links)
        else:
            await client.create_link({"url": f"https://example.com/t/{i}", "slug": f"t-{i}"})

    async def worker() -> None:
        nonlocal failed
        for i in todo:
            client.set_queued(n - i)
            try:
                await one(i)
            except Exception:  # counted: the figures say how many failed
                failed += 1

    async with client:
        cpu0, wall0 = time.process_time(), time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        stats = client.stats
        state = client.limiter.state()
    return {
        "max_in_flight": state.max_in_flight,
        "cap": state.cap,
        "latency_ms": round(1000 * (state.latency_s or 0.0), 1),
        "cpu_s": cpu,
        "wall_s": wall,
        "failed": failed,
        "links_read": links,
        "requests": sum(stats.requests_by_kind.values()),
        "rate_limited": stats.rate_limited,
    }


def child(argv: list[str]) -> None:
    base_url, key, variant, workload, n, concurrency = argv
    result = asyncio.run(_requests(base_url, key, variant, workload, int(n), int(concurrency)))
    print(json.dumps(result))


# --------------------------------------------------------------------------- parent


def seeded_db(folder: Path, pages: int) -> Path:
    """A sandbox database holding ``pages`` x 100 links (written once per size)."""
    db = folder / f"pages-{pages}.db"
    if not db.exists():
        log(f"writing {pages * PAGE} links into the sandbox's database")
        seed_store(db, make_workload(pages * PAGE, 0).existing)
    return db


def one_run(
    rate: int, workload: str, n: int, variant: str, concurrency: int, folder: Path
) -> dict[str, Any]:
    db = copy_db(seeded_db(folder, n), folder / "run.db") if workload == "pages" else None
    opts = SandboxOptions(
        rate_limit=rate, latency_ms=(20, 40), cpus=CORES[0] if CORES else None, db=db
    )
    with running_sandbox(opts, timeout=60) as box:
        env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
        proc = subprocess.Popen(
            [sys.executable, __file__, "--child", box.base_url, box.key, variant, workload,
             str(n), str(concurrency)],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )  # fmt: skip
        pin(proc.pid, CORES[1] if CORES else None)
        out, _ = proc.communicate(timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"{variant} ({workload}) at R={rate} exited {proc.returncode}")
    got: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    got["cpu_ms_per_request"] = 1000 * got["cpu_s"] / max(1, got["requests"])
    return got


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    def med(key: str) -> float:
        return round(statistics.median(r[key] for r in runs), 4)

    return {
        "runs": len(runs),
        "cpu_ms_per_request_median": med("cpu_ms_per_request"),
        "cpu_ms_per_request_all": [round(r["cpu_ms_per_request"], 4) for r in runs],
        "wall_s_median": med("wall_s"),
        "wall_s_all": [round(r["wall_s"], 3) for r in runs],
        "requests": runs[0]["requests"],
        "links_read": runs[0]["links_read"],
        "max_in_flight_all": [r["max_in_flight"] for r in runs],
        "latency_ms_all": [r["latency_ms"] for r in runs],
        "failed": sum(r["failed"] for r in runs),
        "rate_limited": sum(r["rate_limited"] for r in runs),
    }


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2:])
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rates", default="10,100,1000", help="comma-separated R values")
    default_variants = ",".join(("default", "httpx", "httpx-aiohttp"))
    ap.add_argument("--variants", default=default_variants, help=", ".join(VARIANTS))
    ap.add_argument("--workloads", default=",".join(WORKLOADS), help=", ".join(WORKLOADS))
    ap.add_argument("--repeat", type=int, default=2, help="runs of each (rate, variant)")
    ap.add_argument("--concurrency", type=int, default=64)
    args = ap.parse_args()
    rates = [int(r) for r in args.rates.split(",")]
    variants = [v for v in args.variants.split(",") if v]
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        ap.error(f"unknown variant(s) {', '.join(unknown)}; known: {', '.join(VARIANTS)}")
    workloads = [w for w in args.workloads.split(",") if w]
    if any(w not in WORKLOADS for w in workloads):
        ap.error(f"workloads are {', '.join(WORKLOADS)}")
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="linksync-bench-transport-") as d:
        for rate, workload in itertools.product(rates, workloads):
            n = (PAGES if workload == "pages" else SIZES).get(rate, rate * 5)
            runs: dict[str, list[dict[str, Any]]] = {v: [] for v in variants}
            for rep in range(args.repeat):
                order = variants if rep % 2 == 0 else list(reversed(variants))
                for variant in order:
                    log(f"R={rate} {workload} n={n} {variant} run {rep + 1}/{args.repeat}")
                    got = one_run(rate, workload, n, variant, args.concurrency, Path(d))
                    runs[variant].append(got)
            for variant in variants:
                results.append({"rate": rate, "workload": workload, "requests_asked": n,
                                "variant": variant, **summarise(runs[variant])})  # fmt: skip
    doc = {
        "default_transport": default_transport_name(),
        "concurrency": args.concurrency,
        "latency_ms": [20, 40],
        "cores": {"sandbox": CORES[0], "client": CORES[1]} if CORES else None,
        "results": results,
    }
    print(json.dumps(doc, indent=2))


if __name__ == "__main__":
    main()
