"""When each request of the R = 1,000 apply leaves, against the sandbox's fixed windows.

The ``fast`` case of ``throughput.py`` (5,000 links, 2,000 rows: 1,000 creates, 600
PATCHes, 50 list pages; R = 1,000 requests a 1 s window; 20-40 ms of latency):
``linksync apply`` and the hand-written ``aiohttp_apply_peer.py`` alternated, each on a
fresh copy of one workspace in a freshly started sandbox, pinned to cores as
``throughput.py`` pins them, each process told (through a small import hook, ``-c``) to
write the Unix time at which it hands each request to its HTTP library.

The sandbox counts requests in fixed windows aligned to Unix seconds, so a client that
bursts through a window's 1,000 waits for the next, and a run ends at the start of the
last window it needs plus the time to send what is left. The efficiency of one run
(``throughput.py``'s minimum over the wall time) therefore depends on where its first
request falls in its window, for the hand-written script as for linksync; what the
client's CPU decides is how many windows it needs. Per run: the wall time, efficiency,
the first request's place in its window (0-1), the requests sent in each window, the
time from the first request to the first write, the client's CPU; per pair, linksync's
efficiency over the script's; and the medians.

Usage (from the repository root, in the project's virtualenv)::

    python benchmarks/apply_windows.py             # 4 pairs
    python benchmarks/apply_windows.py --runs 8

Prints one JSON document; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from _harness import Sandbox, copy_db, run_process
from _workload import make_workload, write_csv
from throughput import (
    APPLY_PEER,
    CASES,
    client_cores,
    log,
    sandbox_options,
    seed_database,
)

from linksync.api.defaults import DEFAULT_CONCURRENCY

#: Run ``linksync`` with each request's send time written to the file in SENDS_TO.
_LINKSYNC = """
import importlib.util, os, sys, time
out = open(os.environ["SENDS_TO"], "a", buffering=1)
class Hook:
    def find_spec(self, name, path, target=None):
        if name != "linksync.api.aio":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        run = spec.loader.exec_module
        def exec_module(module):
            run(module)
            send = module.NetworkTransport._request
            def logged(self, method, *args, **kw):
                out.write(f"{time.time():.4f} {method}\\n")
                return send(self, method, *args, **kw)
            module.NetworkTransport._request = logged
        spec.loader.exec_module = exec_module
        return spec
sys.meta_path.insert(0, Hook())
sys.argv = ["linksync", *sys.argv[1:]]
from linksync.cli import main
main()
"""

#: Run the hand-written apply with each request's send time written likewise.
_PEER = """
import os, runpy, sys, time
import aiohttp
out = open(os.environ["SENDS_TO"], "a", buffering=1)
send = aiohttp.ClientSession._request
def logged(self, method, *args, **kw):
    out.write(f"{time.time():.4f} {method}\\n")
    return send(self, method, *args, **kw)
aiohttp.ClientSession._request = logged
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def one_run(kind: str, base_db: Path, src: Path, tmp: Path, minimum: float) -> dict[str, Any]:
    case = CASES["fast"]
    folder = tmp / f"{kind}-{len(list(tmp.glob(kind + '-*')))}"
    folder.mkdir()
    sends = folder / "sends.txt"
    box = Sandbox(sandbox_options(case, copy_db(base_db, folder / "run.db")))
    try:
        box.start()
        env = {**box.env(), "SENDS_TO": str(sends), "LINKSYNC_STATE_DIR": str(folder / "state")}
        if kind == "linksync":
            args = ["apply", str(src), "--yes", "--no-progress", "--report", "r.json"]
            argv = [sys.executable, "-c", _LINKSYNC, *args]
        else:
            in_flight = str(case.concurrency or DEFAULT_CONCURRENCY)
            argv = [
                sys.executable,
                "-c",
                _PEER,
                str(APPLY_PEER),
                str(src),
                "--in-flight",
                in_flight,
            ]
        run = run_process(argv, env=env, cwd=folder, timeout=300, cpus=client_cores())
    finally:
        box.stop()
    if run.returncode != 0:
        raise RuntimeError(f"{kind} exited {run.returncode}: {run.stderr[-800:]}")
    sent = [(float(t), method) for t, method in (line.split() for line in sends.open())]
    first = sent[0][0]
    first_write = next(t for t, method in sent if method != "GET")
    windows: dict[int, int] = {}
    for t, _ in sent:
        windows[math.floor(t)] = windows.get(math.floor(t), 0) + 1
    return {
        "wall_s": round(run.wall_s, 3),
        "efficiency": round(minimum / run.wall_s, 3),
        "cpu_s": round(run.cpu_s, 3),
        "requests": len(sent),
        "first_request_s": round(first - run.started_at, 3),
        "first_request_in_window": round(first % 1, 3),
        "first_write_after_first_request_s": round(first_write - first, 3),
        "per_window": [windows[w] for w in sorted(windows)],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=4, help="pairs of runs (default 4)")
    args = ap.parse_args(argv)
    case = CASES["fast"]
    work = make_workload(case.existing, case.rows)
    reads = min(math.ceil(case.existing / 100) or 1, case.rows)
    minimum = (reads + work.writes) / case.rate
    runs: dict[str, list[dict[str, Any]]] = {"linksync": [], "peer": []}
    with tempfile.TemporaryDirectory(prefix="linksync-bench-windows-") as d:
        tmp = Path(d)
        src = write_csv(work.rows, tmp / "links.csv")
        base_db = tmp / "base.db"
        seed_database(base_db, work, via_api=False)
        for i in range(args.runs):
            for kind in ("linksync", "peer") if i % 2 == 0 else ("peer", "linksync"):
                log(f"windows: pair {i + 1} of {args.runs}, {kind}")
                runs[kind].append(one_run(kind, base_db, src, tmp, minimum))
    pairs = [
        round(ours["efficiency"] / theirs["efficiency"], 3)
        for ours, theirs in zip(runs["linksync"], runs["peer"], strict=True)
    ]
    keys = ("wall_s", "efficiency", "cpu_s", "first_write_after_first_request_s")
    result = {
        "case": "fast",
        "rate_limit_per_s": case.rate,
        "minimum_s": round(minimum, 3),
        "runs": runs,
        "efficiency_vs_peer": pairs,
        "medians": {
            kind: {k: statistics.median(r[k] for r in rows) for k in keys}
            for kind, rows in runs.items()
        },
        "median_efficiency_vs_peer": statistics.median(pairs),
    }
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
