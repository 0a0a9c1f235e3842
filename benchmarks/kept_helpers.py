"""What the two hand-made helpers linksync keeps save a user, as wall time of whole runs.

    python benchmarks/kept_helpers.py                    # every case, 3 runs each
    python benchmarks/kept_helpers.py --case validate_yaml_50k --repeat 5

Each case runs the ``linksync`` command in a fresh interpreter, in a temporary folder
whose ``linksync.yaml`` points at the built-in sandbox with the rate limit and the link
quota out of the way, once as shipped and once without the helper, alternating, and
reports the median wall time and CPU time of each. Without
``linksync.pipeline.collector``: ``gc.set_threshold`` does nothing, so Python's default
thresholds stay. Without ``linksync.sync.jsontext``: the plan file is written with
``json.dumps(indent=2, sort_keys=True)``. Prints JSON; progress goes to stderr.

Figures of 2026-11-25 (a shared 2-core machine, medians): ``validate`` of 50,000 YAML
links 4.2 s with the collector's threshold raised, 9.9 s without; ``plan`` of 100,000
new links 2.6 s / 3.5 s; ``validate`` of 100,000 CSV or xlsx rows and ``apply`` of
10,000 creates no difference; ``plan --out`` of 100,000 creates 8.9 s / 15.6 s, of
10,000 creates 2.7 s / 3.2 s.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from read_validate import make_csv, make_xlsx, make_yaml

WITHOUT = {
    "collection": "import gc\ngc.set_threshold = lambda *a: None\n",
    "jsontext": (
        "import json\nimport linksync.sync.plan as p\n"
        "p.readable = lambda v, *, indent=2: json.dumps(\n"
        "    v, indent=indent, sort_keys=True, ensure_ascii=False)\n"
    ),
}
RUN = "import sys\nsys.argv = ['linksync', *sys.argv[1:]]\nfrom linksync.cli import main\nmain()\n"

#: case -> (helper, data file, command)
CASES: dict[str, tuple[str, str, list[str]]] = {
    "validate_yaml_50k": ("collection", "links50k.yaml", ["validate", "links50k.yaml"]),
    "validate_csv_100k": ("collection", "links100k.csv", ["validate", "links100k.csv"]),
    "validate_xlsx_100k": ("collection", "links100k.xlsx", ["validate", "links100k.xlsx"]),
    "plan_100k_creates": ("collection", "creates100000.csv", ["plan", "creates100000.csv"]),
    "apply_10k_creates": ("collection", "creates10000.csv", ["apply", "creates10000.csv", "--yes"]),
    "plan_out_10k_creates": (
        "jsontext",
        "creates10000.csv",
        ["plan", "creates10000.csv", "--out", "plan.json"],
    ),
    "plan_out_100k_creates": (
        "jsontext",
        "creates100000.csv",
        ["plan", "creates100000.csv", "--out", "plan.json"],
    ),
}


def make_creates(path: Path, rows: int) -> None:
    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["url", "slug", "title", "tags"])
        for i in range(rows):
            url = f"https://shop.example.com/p/{i}?ref=c{i % 97}"
            w.writerow([url, f"item-{i}", f"Product {i}", "sale, spring"])


def prepare(folder: Path, name: str) -> None:
    path = folder / name
    if path.exists():
        return
    if name == "links50k.yaml":
        make_yaml(path, 50_000)
    elif name == "links100k.csv":
        make_csv(path, 100_000)
    elif name == "links100k.xlsx":
        make_xlsx(path, 100_000)
    else:
        make_creates(path, int(name.removeprefix("creates").removesuffix(".csv")))


def run_once(folder: Path, preamble: str, args: list[str]) -> dict[str, Any]:
    for leftover in ("plan.json",):
        (folder / leftover).unlink(missing_ok=True)
    subprocess.run(["rm", "-rf", str(folder / ".linksync")], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("LINKSYNC_")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", preamble + RUN, *args],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{args}: exit {proc.returncode}\n{proc.stderr[-2000:]}")
    return {"wall_s": round(wall, 3), "cpu_s": round(cpu, 3), "exit": proc.returncode}


def measure(folder: Path, case: str, repeat: int) -> dict[str, Any]:
    helper, data, args = CASES[case]
    prepare(folder, data)
    runs: dict[str, list[dict[str, Any]]] = {"with": [], "without": []}
    for i in range(repeat):
        order = ("with", "without") if i % 2 == 0 else ("without", "with")
        for mode in order:
            preamble = WITHOUT[helper] if mode == "without" else ""
            runs[mode].append(run_once(folder, preamble, args))
            print(case, mode, runs[mode][-1], file=sys.stderr, flush=True)
    return {
        "case": case,
        "helper": helper,
        "command": ["linksync", *args],
        **{
            f"{mode}_{key}_median": statistics.median(r[f"{key}_s"] for r in rs)
            for mode, rs in runs.items()
            for key in ("wall", "cpu")
        },
        "runs": runs,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", action="append", choices=sorted(CASES))
    parser.add_argument("--repeat", type=int, default=3)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="linksync-kept-") as tmp:
        folder = Path(tmp)
        (folder / "box.yaml").write_text(
            "rate_limit:\n  requests: 1000000\n  window_s: 1\n"
            "organization:\n  link_quota: 1000000\n",
            encoding="utf-8",
        )
        (folder / "linksync.yaml").write_text(
            "sandbox: true\nsandbox_config: box.yaml\n", encoding="utf-8"
        )
        results = [measure(folder, case, opts.repeat) for case in opts.case or list(CASES)]
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
