"""Reading the sources beside the listing: which arrangement has the lower wall time.

``linksync sandbox serve`` on 127.0.0.1 (20-40 ms of latency, R requests per 1 s
window, E links written into its store) and a CSV of the E links as they are. Each
arrangement runs in a fresh process (so the readers' imports are paid as a run pays
them), from the process's start to the end of both steps:

- ``sequential``: read and validate (``read_declared``), then open the client and
  read the workspace (``fetch_remote`` of those rows: the organization, the domains,
  every page);
- ``thread-read``: the reading in a worker thread (``asyncio.to_thread``) while the
  event loop reads the workspace (what ``linksync.pipeline.overlap`` does);
- ``thread-list``: the workspace read by an event loop and client of their own in a
  worker thread, while the main thread reads.

The two overlapped arrangements read the workspace for rows of the same count on the
same domain (the reading has not said which yet), which lists it as the plan would.
Runs are interleaved, ``--repeat`` times. Prints one JSON document.

Usage::

    python benchmarks/overlap.py                      # E = 5,000, R = 1,000
    python benchmarks/overlap.py --existing 20000 --rate 100 --repeat 5
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from _harness import Sandbox, SandboxOptions, run_process, split_cores
from _workload import existing_link, seed_store, unchanged_rows, write_csv

ARRANGEMENTS = ("sequential", "thread-read", "thread-list")
CORES = split_cores()


def log(msg: str) -> None:
    print(f"[overlap] {msg}", file=sys.stderr, flush=True)


def child(arrangement: str, src: str, rows: int) -> None:
    """One arrangement, in this (fresh) process; prints its JSON line."""
    from linksync.config import resolve
    from linksync.model import LinkSpec
    from linksync.pipeline.changed import read_declared
    from linksync.pipeline.inputs import SourceReading, sync_options
    from linksync.pipeline.request import SyncPolicy
    from linksync.sync.remote import fetch_remote

    settings = resolve()
    options = sync_options(SyncPolicy(), settings)
    setup = SourceReading.for_target(None, settings)
    stub = [LinkSpec(url=None, slug=f"bench-{i:06d}") for i in range(rows)]

    def read() -> Any:
        return read_declared([src], setup, default_domain=None, config=None, note=print)

    async def fetch() -> int:
        async with settings.open_client() as client:
            remote = await fetch_remote(client, stub, options)
            return len(remote.links)

    times: dict[str, float] = {}

    def timed(name: str, fn: Any) -> Any:
        got = fn()
        times[name] = time.perf_counter()
        return got

    if arrangement == "sequential":
        validation, _ = timed("read", read)
        links = timed("list", lambda: asyncio.run(fetch()))
    elif arrangement == "thread-read":

        async def both() -> tuple[Any, int]:
            reading = asyncio.ensure_future(asyncio.to_thread(timed, "read", read))
            links = await fetch()
            times["list"] = time.perf_counter()
            return await reading, links

        (validation, _), links = asyncio.run(both())
    else:
        got: dict[str, int] = {}
        lister = threading.Thread(
            target=lambda: got.setdefault("n", timed("list", lambda: asyncio.run(fetch())))
        )
        lister.start()
        validation, _ = timed("read", read)
        lister.join()
        links = got["n"]
    assert len(validation.specs) == rows and links == rows, (len(validation.specs), links)
    print(json.dumps({k: round(v - START, 3) for k, v in times.items()}))


START = time.perf_counter()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--existing", type=int, default=5_000)
    ap.add_argument("--rate", type=int, default=1_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--child", choices=ARRANGEMENTS, help=argparse.SUPPRESS)
    ap.add_argument("--src", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.child, args.src, args.existing)
        return 0
    runs: dict[str, list[dict[str, Any]]] = {a: [] for a in ARRANGEMENTS}
    with tempfile.TemporaryDirectory(prefix="linksync-bench-overlap-") as d:
        tmp = Path(d)
        src = write_csv(unchanged_rows(args.existing, args.existing), tmp / "links.csv")
        db = tmp / "base.db"
        seed_store(db, (existing_link(i) for i in range(args.existing)))
        cores = CORES[0] if CORES else None
        box = Sandbox(SandboxOptions(rate_limit=args.rate, db=db, cpus=cores))
        try:
            box.start(timeout=60)
            for n in range(args.repeat):
                for arrangement in ARRANGEMENTS:
                    time.sleep(1.1)  # each run alone in its rate window
                    argv = [sys.executable, __file__, "--child", arrangement, "--src", str(src)]
                    argv += ["--existing", str(args.existing)]
                    run = run_process(
                        argv, env=box.env(), cwd=tmp, timeout=300,
                        cpus=CORES[1] if CORES else None,
                    )  # fmt: skip
                    said = (
                        json.loads(run.stdout.strip().splitlines()[-1])
                        if run.returncode == 0
                        else {}
                    )
                    runs[arrangement].append(
                        {"wall_s": round(run.wall_s, 3), "cpu_s": round(run.cpu_s, 3), **said}
                    )
                    log(
                        f"run {n + 1} {arrangement}: {run.wall_s:.2f} s {said or run.stderr[-300:]}"
                    )
        finally:
            box.stop()
    out = {
        "existing": args.existing,
        "rate_limit_per_s": args.rate,
        "runs": runs,
        "median_wall_s": {a: statistics.median(r["wall_s"] for r in v) for a, v in runs.items()},
    }
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
