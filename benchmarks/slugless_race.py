"""Runs racing on rows without a slug, each with its own lock (as on separate machines):
how many links each row ends with, with stable slugs (the default) and with the
service's random slugs (``--slugless random``).

One sandbox is served on 127.0.0.1 (rate limit out of reach, 20-40 ms of latency per
request as over a network; ``--latency-ms``). For each mode and round,
P ``linksync apply`` processes start at once (one helper process imports linksync, then
forks one real process per run: each has its own folder, lock and journal) on one CSV of
N rows without a slug. Afterwards: the links per row (extra = links beyond one per row),
the exit codes, and what the runs reported per row (created; adopted after a 409 on the
stable slug; adopted by the URL re-check before the create; found unchanged in the plan;
failed, by constant). Unix only (fork).

It also times the diff alone (no I/O) of ``--plan-rows`` new rows without a slug against
an empty workspace in both modes (median of 5): what deriving stable slugs costs a plan.

Usage (from the repository root, in the project's virtualenv)::

    python benchmarks/slugless_race.py                    # 20 runs x 25 rows, 3 rounds
    python benchmarks/slugless_race.py --runs 10 --rows 50 --rounds 1

Prints one JSON document on stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from pathlib import Path
from typing import Any

from _harness import SandboxOptions, running_sandbox

from linksync.api import LinkServiceClient
from linksync.model import LinkSpec, Provenance
from linksync.pipeline.collector import fewer_collections
from linksync.sandbox import DEFAULT_FULL_KEY
from linksync.sync import RemoteState, SyncOptions, diff

ZYGOTE = textwrap.dedent(
    """
    import json, os, sys
    import linksync.cli.apply, linksync.api, linksync.report  # imported once, then forked
    from linksync.cli import cli

    runs = json.loads(sys.stdin.read())
    children = {}
    for i, run in enumerate(runs):
        pid = os.fork()
        if pid == 0:
            code = 99
            try:
                os.chdir(run["cwd"])
                for fd, name in ((1, "out"), (2, "err")):
                    os.dup2(os.open(run[name], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), fd)
                os.environ.update(run["env"])
                try:
                    cli.main(run["args"], prog_name="linksync")
                    code = 0
                except SystemExit as exc:
                    code = exc.code if isinstance(exc.code, int) else 1
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
        children[pid] = i
    codes = [None] * len(runs)
    for _ in runs:
        pid, status = os.wait()
        codes[children[pid]] = os.waitstatus_to_exitcode(status)
    print(json.dumps(codes))
    """
)


def _outcome(row: dict[str, Any]) -> str:
    message = row.get("message") or ""
    if row["status"] != "ok":
        return f"failed {row.get('error_constant')}"
    if row["action"] == "create":
        return "created"
    if "created by another run meanwhile" in message:
        return "adopted after 409"
    if "created by another writer meanwhile" in message:
        return "adopted by URL re-check"
    return f"{row['action']} in plan"


async def _links(base_url: str) -> list[tuple[str, str]]:
    async with LinkServiceClient(base_url, DEFAULT_FULL_KEY) as client:
        return [(link.slug, link.url) for link in await client.list_links()]


def one_round(
    mode: str, runs: int, rows: int, folder: Path, latency: tuple[int, int]
) -> dict[str, Any]:
    urls = [f"https://example.com/{mode}/{i}?utm_source=race" for i in range(rows)]
    csv = "url,description\n" + "".join(f"{u},row {i}\n" for i, u in enumerate(urls))
    options = SandboxOptions(rate_limit=1_000_000, latency_ms=latency, link_quota=10_000)
    with running_sandbox(options) as handle:
        env = {"LINKSYNC_BASE_URL": handle.base_url, "LINKSYNC_API_KEY": DEFAULT_FULL_KEY}
        spec = []
        for n in range(runs):
            cwd = folder / f"{mode}-{n}"
            cwd.mkdir()
            (cwd / "links.csv").write_text(csv, encoding="utf-8")
            args = ["apply", "links.csv", "--yes", "--no-progress", "--lock", "own.lock"]
            args += ["--report", "report.json", "--slugless", mode]
            env_n = {**env, "LINKSYNC_STATE_DIR": str(cwd / "state")}
            spec.append({"cwd": str(cwd), "args": args, "env": env_n,
                         "out": str(cwd / "out.txt"), "err": str(cwd / "err.txt")})  # fmt: skip
        t0 = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-c", ZYGOTE], input=json.dumps(spec), capture_output=True,
            text=True, check=True, env={**os.environ, **env},
        )  # fmt: skip
        wall = time.monotonic() - t0
        codes = json.loads(done.stdout)
        links = asyncio.run(_links(handle.base_url))
    per_url = Counter(url for _, url in links)
    outcomes: Counter[str] = Counter()
    for s in spec:
        report = Path(s["cwd"]) / "report.json"
        if report.is_file():
            for row in json.loads(report.read_text(encoding="utf-8"))["results"]:
                outcomes[_outcome(row)] += 1
    return {
        "links": len(links),
        "extra_links": len(links) - len(urls),
        "max_links_per_row": max(per_url.values(), default=0),
        "rows_without_link": sum(1 for u in urls if not per_url[u]),
        "exit_codes": dict(sorted(Counter(codes).items())),
        "row_outcomes": dict(sorted(outcomes.items())),
        "wall_s": round(wall, 2),
    }


def plan_cost(rows: int, repeats: int = 5) -> dict[str, float]:
    """Median seconds of ``diff`` for ``rows`` new rows without a slug, per mode (the
    garbage collector set as a run sets it: ``fewer_collections``)."""
    specs = [
        LinkSpec(
            url=f"https://example.com/p/{i}?utm_source=mail",
            managed=frozenset({"url"}),
            provenance=Provenance("links.csv", None, i + 2),
        )
        for i in range(rows)
    ]
    remote = RemoteState("lnk.test", listed_domains=frozenset({"lnk.test"}))
    out: dict[str, float] = {}
    for mode in ("random", "stable"):
        times = []
        for _ in range(repeats):
            with fewer_collections():  # as a run plans
                t0 = time.perf_counter()
                diff(specs, remote, SyncOptions(slugless=mode))
                times.append(time.perf_counter() - t0)
        out[f"{mode}_s"] = round(statistics.median(times), 3)
    out["stable_extra_us_per_row"] = round((out["stable_s"] - out["random_s"]) / rows * 1e6, 2)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--rows", type=int, default=25)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--latency-ms", default="20-40", help="per request, as A-B")
    parser.add_argument("--plan-rows", type=int, default=100_000)
    opts = parser.parse_args()
    lo, hi = (int(x) for x in opts.latency_ms.split("-"))
    out: dict[str, Any] = {
        "runs": opts.runs, "rows": opts.rows, "latency_ms": [lo, hi], "modes": {},
    }  # fmt: skip
    for mode in ("stable", "random"):
        rounds = []
        for _ in range(opts.rounds):
            with tempfile.TemporaryDirectory(prefix="slugless-race-") as tmp:
                rounds.append(one_round(mode, opts.runs, opts.rows, Path(tmp), (lo, hi)))
        out["modes"][mode] = rounds
    out["plan"] = {"rows": opts.plan_rows, **plan_cost(opts.plan_rows)}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
