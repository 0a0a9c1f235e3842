"""The plan's core after the listing, in-process: what a plan of N unchanged rows against
N links costs beyond reading the sources and the pages' bytes.

    python benchmarks/plan_core.py                                # 200,000 rows, 3 runs
    python benchmarks/plan_core.py --rows 1000000 --repeat 3
    python benchmarks/plan_core.py --against ../main/src          # beside another checkout
    python benchmarks/plan_core.py --shuffle                      # rows not in listing order
    python benchmarks/plan_core.py --findings 3                   # 3 rows with a warning

The rows are those ``throughput.py --case scale`` writes (``_workload.unchanged_rows``),
read and validated as a run reads them (``read``, once a process); the links are the
sandbox's records of the same links, as list pages of 100, decoded by
``linksync.api.pages`` before each run (not timed). A client that serves those pages
from memory stands in for the service. ``--shuffle``: the file's rows (the header kept
first) in the order ``shuf`` gives them with a fixed random source (the same order
every run): a list sorted by slug or by campaign, where each link the listing brings
has its row at a random place in memory. ``--findings K``: K rows, spread over the
file, each with a warning of its own (as validation gives a row with an invisible
character stripped): still unchanged, but not quiet. Timed with ``time.process_time()``, each
stage on its own:

- ``read``: ``sources.read_sources`` and ``validate.validate`` of the file (once);
- ``fetch``: ``sync.remote.fetch_remote`` (which domains to read, the pool of page
  requests, the links held by their key);
- ``diff``: ``sync.diff.diff``;
- ``report``: what ``linksync plan`` does with the plan after the diff: the counts
  logged, the exit code, the failed rows logged, the alert's counts and writes, the
  text printed (``render_plan_text``).

Each checkout (``--src`` and each ``--against``) runs in its own process, one after
the other, ``--repeat`` times; the medians are printed as JSON, with the ratios to the
first checkout. ``--memory`` runs once more per checkout under ``tracemalloc``: the
memory held once the plan is made (the links and the plan; the rows are read before)
and the peak, from the pages decoded on; and ``rows_mb``, the memory the read rows hold
(measured in a process of its own, under ``tracemalloc``, not timed). ``maxrss_mb`` is
the timing process's peak resident size.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"


def _source(folder: str, rows: int, shuffle: bool) -> Path:
    """A CSV of ``rows`` unchanged rows in ``folder``: in the listing's order, or
    (``shuffle``) in ``shuf``'s."""
    sys.path.insert(0, str(HERE))
    from _workload import unchanged_rows, write_csv

    src = write_csv(unchanged_rows(rows, rows), Path(folder) / "links.csv")
    if shuffle:
        _shuffled(src)
    return src


def _shuffled(path: Path) -> None:
    """``path``'s data lines in ``shuf``'s order (a fixed random source), header first."""
    lines = path.read_bytes().splitlines(keepends=True)
    with tempfile.NamedTemporaryFile() as body, tempfile.NamedTemporaryFile() as seed:
        body.writelines(lines[1:])
        seed.write(hashlib.shake_128(b"plan_core").digest(16 * len(lines) + 4096))
        body.flush(), seed.flush()
        cmd = ["shuf", f"--random-source={seed.name}", body.name]
        out = subprocess.run(cmd, capture_output=True, check=True).stdout
    path.write_bytes(lines[0] + out)


def _rows_mb(rows: int, shuffle: bool) -> float:
    """The memory the read and validated rows hold (``tracemalloc``)."""
    import tracemalloc

    from linksync.pipeline.collector import fewer_collections
    from linksync.sources import read_sources
    from linksync.validate import validate

    with tempfile.TemporaryDirectory() as tmp:
        src = _source(tmp, rows, shuffle)
        tracemalloc.start()
        with fewer_collections():
            validation = validate(read_sources([src]))
        held = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
    assert len(validation.specs) == rows
    return round(held / 2**20, 1)


def _child(rows: int, repeat: int, memory: bool, shuffle: bool, findings: int) -> dict[str, Any]:
    import asyncio
    import gc
    import resource

    import orjson

    sys.path.insert(0, str(HERE))
    from _workload import SYSTEM_DOMAIN

    from linksync.api.pages import fast_link_page
    from linksync.api.types import Organization
    from linksync.model import Problem, Severity
    from linksync.pipeline.collector import fewer_collections
    from linksync.pipeline.planning import plan_exit_code
    from linksync.report.plans import failed_rows, plan_counts, render_plan_text
    from linksync.sources import read_sources
    from linksync.sync.diff import diff
    from linksync.sync.options import SyncOptions
    from linksync.sync.remote import fetch_remote
    from linksync.validate import validate

    per_page = 100
    total_pages = max(1, -(-rows // per_page))
    stamp = "2026-11-27T00:00:00.000Z"

    def record(i: int) -> bytes:
        n = f"{i:06d}"
        return orjson.dumps(
            {
                "id": f"lnk_{n}",
                "domain": SYSTEM_DOMAIN,
                "slug": f"bench-{n}",
                "shortUrl": f"https://{SYSTEM_DOMAIN}/bench-{n}",
                "url": f"https://example.com/landing/{i}",
                "description": f"Preloaded link {i}",
                "tags": [],
                "apple": None,
                "google": None,
                "hasPassword": False,
                "expiresAt": None,
                "createdAt": stamp,
                "updatedAt": stamp,
            }
        )

    bodies: list[bytes] = []
    for p in range(1, total_pages + 1):
        recs = [record(i) for i in range((p - 1) * per_page, min(rows, p * per_page))]
        pagination = {"page": p, "limit": per_page, "total": rows, "totalPages": total_pages}
        bodies.append(
            b'{"code":0,"data":['
            + b",".join(recs)
            + b'],"pagination":'
            + orjson.dumps({**pagination, "hasMore": p < total_pages})
            + b"}"
        )

    class Client:
        """Serves the decoded pages (the listing's own cost is not this stage's)."""

        concurrency = 32

        def __init__(self, pages: list[Any]) -> None:
            self.pages = pages

        def set_queued(self, n: int) -> None:
            pass

        async def get_organization(self) -> Organization:
            return Organization("org", "bench", "free", link_count=rows, link_quota=10 * rows)

        async def list_domains(self) -> tuple[()]:
            return ()

        async def list_links_page(self, page: int = 1, limit: int = 20, **_: Any) -> Any:
            return self.pages[page - 1]

    with tempfile.TemporaryDirectory() as tmp:
        src = _source(tmp, rows, shuffle)
        gc.collect()
        with fewer_collections():
            t0 = time.process_time()
            validation = validate(read_sources([src]))
            read_s = time.process_time() - t0
    specs = validation.specs
    options = SyncOptions()
    warned = tuple(
        Problem("BENCH_WARNING", "a warning", specs[i].provenance, "url", Severity.WARNING)
        for i in range(0, rows, max(1, rows // findings) if findings else rows + 1)
    )[:findings]
    problems = (*validation.problems, *warned)
    runs: list[dict[str, float]] = []
    held = peak = 0
    for n in range(repeat + (1 if memory else 0)):
        traced = memory and n == repeat
        gc.collect()
        if traced:  # from the pages decoded: the links, then what the plan adds
            import tracemalloc

            tracemalloc.start()
        pages = [fast_link_page(b, page=i + 1, limit=per_page) for i, b in enumerate(bodies)]
        client = Client(pages)
        with fewer_collections():
            t0 = time.process_time()
            remote = asyncio.run(fetch_remote(client, specs, options))  # type: ignore[arg-type]
            t1 = time.process_time()
            made = diff(specs, remote, options, problems=problems, invalid=validation.invalid)
            t2 = time.process_time()
            counts = dict(made.counts)
            code = plan_exit_code(made, validation.file_problems, detailed=False)
            failed = sum(1 for _ in failed_rows(made))
            alert = plan_counts(made)
            writes = len(made.writes)
            text = render_plan_text(made)
            t3 = time.process_time()
        if traced:
            held, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
        else:
            runs.append({"fetch_s": t1 - t0, "diff_s": t2 - t1, "report_s": t3 - t2})
        assert counts["unchanged"] == rows and code == 0 and not failed and not writes, counts
        assert alert is not None and text.startswith(f"Plan: {rows} unchanged"), text[:80]
        del remote, made, pages, client, text
    out: dict[str, Any] = (
        {key: round(statistics.median(r[key] for r in runs), 3) for key in runs[0]} if runs else {}
    )
    if out:
        out["total_s"] = round(out["fetch_s"] + out["diff_s"] + out["report_s"], 3)
        out["read_s"] = round(read_s, 3)
    out["maxrss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    if memory:
        out["held_mb"] = round(held / 2**20, 1)
        out["peak_mb"] = round(peak / 2**20, 1)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3, help="runs per process")
    ap.add_argument("--rounds", type=int, default=1, help="processes per checkout")
    ap.add_argument("--src", default=str(SRC), help="the checkout's src measured first")
    ap.add_argument("--against", action="append", default=[], help="another checkout's src")
    ap.add_argument("--memory", action="store_true", help="also held and peak (tracemalloc)")
    ap.add_argument("--shuffle", action="store_true", help="rows not in listing order (shuf)")
    ap.add_argument("--findings", type=int, default=0, help="rows with a warning of their own")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--rows-memory", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        got = _child(args.rows, args.repeat, args.memory, args.shuffle, args.findings)
        print(json.dumps(got))
        return 0
    if args.rows_memory:
        print(json.dumps({"rows_mb": _rows_mb(args.rows, args.shuffle)}))
        return 0
    srcs = [args.src, *args.against]
    found: dict[str, list[dict[str, Any]]] = {s: [] for s in srcs}
    for r in range(args.rounds):
        for s in srcs:
            print(f"plan_core: {s} round {r + 1}", file=sys.stderr)
            env = {**os.environ, "PYTHONPATH": s}
            cmd = [sys.executable, __file__, "--child", "--rows", str(args.rows)]
            cmd += ["--repeat", str(args.repeat)] + (["--memory"] if args.memory else [])
            cmd += ["--shuffle"] if args.shuffle else []
            cmd += ["--findings", str(args.findings)]
            got: dict[str, Any] = {}
            for extra in [[]] + ([["--rows-memory"]] if args.memory else []):
                run = cmd if not extra else [*cmd[:2], *extra, *cmd[3:]]
                done = subprocess.run(run, env=env, capture_output=True, text=True, check=False)
                if done.returncode != 0:
                    print(done.stderr, file=sys.stderr)
                    return 1
                got.update(json.loads(done.stdout))
            found[s].append(got)
    result: dict[str, Any] = {
        "rows": args.rows,
        "shuffled": args.shuffle,
        "findings": args.findings,
        "load": os.getloadavg()[0],
        "checkouts": {},
    }
    for s, got in found.items():
        merged = {k: round(statistics.median(g[k] for g in got), 3) for k in got[0]}
        result["checkouts"][s] = merged
    first = result["checkouts"][srcs[0]]
    for s in srcs[1:]:
        other = result["checkouts"][s]
        result["checkouts"][s]["ratio_to_first"] = {
            k: round(other[k] / first[k], 2) for k in first if first.get(k) and k in other
        }
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
