"""Several workspaces in one run: ``linksync.apply_all`` against one target after the
other (``linksync.apply`` in a loop), at a per-key rate limit.

Each target is a built-in sandbox of its own (in-process, its own state file, a rate
limit of R requests per 1 s window for its key, 20-40 ms of latency per request), with
a CSV of N new links. Both ways make the same requests; one after the other takes about
the sum of the targets' times, ``apply_all`` about the longest one, since each key has
its own limit and its own limiter. The CPU time of the process (client and in-process
sandboxes together) per 1,000 requests says how far one machine is from being the
ceiling.

Usage (from the repository root, in the project's virtualenv)::

    python benchmarks/targets.py                        # 4 targets x 300 links at 100/s
    python benchmarks/targets.py --targets 2 --links 200 --rate 50

Prints one JSON document on stdout.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import linksync


def workspace_files(folder: Path, targets: int, links: int, rate: int) -> Path:
    """A config with ``targets`` sandbox targets, each with its own CSV and limits."""
    (folder / "edge.yaml").write_text(
        f"rate_limit:\n  requests: {rate}\n  window_s: 1\nfaults:\n  latency_ms: 20-40\n",
        encoding="utf-8",
    )
    lines = ["targets:"]
    for t in range(targets):
        name = f"brand-{t}"
        with (folder / f"{name}.csv").open("w", encoding="utf-8", newline="") as fh:
            out = csv.writer(fh)
            out.writerow(["slug", "url"])
            out.writerows([f"{name}-{i}", f"https://example.com/{name}/{i}"] for i in range(links))
        lines += [
            f"  {name}:",
            "    sandbox: true",  # asked for: a script has no terminal
            f"    sandbox_db: {name}.db",
            "    sandbox_config: edge.yaml",
            f"    files: [{name}.csv]",
        ]
    config = folder / "linksync.yaml"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return config


def measure(targets: int, links: int, rate: int) -> dict[str, Any]:
    out: dict[str, Any] = {"targets": targets, "links_per_target": links, "rate_per_key": rate}
    for way in ("one_after_the_other", "apply_all"):
        with tempfile.TemporaryDirectory() as tmp:
            here = Path(tmp)
            os.chdir(here)
            os.environ["LINKSYNC_STATE_DIR"] = str(here / "state")
            config = workspace_files(here, targets, links, rate)
            wall, cpu = time.perf_counter(), time.process_time()
            if way == "apply_all":
                every = linksync.apply_all(config=config)
                requests = sum(t.results.info.requests for t in every if t.results)
                waits = sum(t.results.info.rate_limit_waits for t in every if t.results)
                code = every.exit_code
            else:
                requests = waits = code = 0
                for ws in linksync.load_workspaces(config):
                    one = linksync.apply(list(ws.files), settings=ws.settings())
                    requests += one.info.requests
                    waits += one.info.rate_limit_waits
                    code = max(code, one.exit_code)
            out[way] = {
                "wall_s": round(time.perf_counter() - wall, 2),
                "cpu_s": round(time.process_time() - cpu, 2),
                "requests": requests,
                "responses_429": waits,
                "exit_code": code,
            }
    floor = links / rate  # one target's requests at its key's limit (writes only)
    out["floor_one_target_s"] = round(floor, 2)
    out["speedup"] = round(out["one_after_the_other"]["wall_s"] / out["apply_all"]["wall_s"], 2)
    per_request = out["apply_all"]["cpu_s"] / max(1, out["apply_all"]["requests"])
    out["cpu_ms_per_request_client_and_sandboxes"] = round(1000 * per_request, 2)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--targets", type=int, default=4)
    parser.add_argument("--links", type=int, default=300)
    parser.add_argument("--rate", type=int, default=100)
    args = parser.parse_args()
    print(json.dumps(measure(args.targets, args.links, args.rate), indent=2))


if __name__ == "__main__":
    main()
