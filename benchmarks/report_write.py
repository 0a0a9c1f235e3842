"""Benchmark of the report writers: time and peak memory to write N rows per format.

    python benchmarks/report_write.py                # 100,000 rows in every format,
                                                     # 1,000,000 rows csv and jsonl
    python benchmarks/report_write.py --rows 20000 --big-rows 0

Each measurement runs in its own process so peak memory (ru_maxrss) belongs to it
alone. ``peak_rss_mb`` is the process high-water mark; ``writer_rss_mb`` is how much it
rose while writing (rows are generated on the fly, so this is the writer's own memory).
``generate_s`` is the time to build the rows without writing them, included in
``seconds``. Prints one JSON document.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

FORMATS = ("csv", "xlsx", "json", "jsonl", "md", "xml")
TARGET_S = 10.0


def rows(n: int) -> Iterator[object]:
    """n deterministic results: mostly created, some updated, failed, invalid, unchanged."""
    from linksync.model import Action, RowResult, Status

    for i in range(n):
        slug = f"spring-{i:07d}"
        kind = i % 100
        if kind < 80:
            yield RowResult(
                Action.CREATE,
                Status.OK,
                source="campaign.xlsx",
                sheet="Spring",
                row=i + 2,
                domain="go.example.com",
                slug=slug,
                short_url=f"https://go.example.com/{slug}",
                url=f"https://example.com/landing/{i}?utm_source=newsletter&utm_medium=email",
                http_status=201,
                request_id=f"req_{i:08x}",
                attempts=1,
            )
        elif kind < 90:
            yield RowResult(
                Action.UPDATE,
                Status.OK,
                source="campaign.xlsx",
                sheet="Spring",
                row=i + 2,
                domain="go.example.com",
                slug=slug,
                short_url=f"https://go.example.com/{slug}",
                url=f"https://example.com/landing/{i}",
                changed_fields=("description", "tags"),
                http_status=200,
                request_id=f"req_{i:08x}",
                attempts=1,
            )
        elif kind < 95:
            yield RowResult(
                Action.UNCHANGED,
                Status.OK,
                source="campaign.xlsx",
                sheet="Spring",
                row=i + 2,
                domain="go.example.com",
                slug=slug,
                short_url=f"https://go.example.com/{slug}",
                url=f"https://example.com/landing/{i}",
            )
        elif kind < 98:
            yield RowResult(
                Action.CREATE,
                Status.FAILED,
                source="campaign.xlsx",
                sheet="Spring",
                row=i + 2,
                domain="go.example.com",
                slug=slug,
                url=f"=example.com/{i}",
                http_status=400,
                error_constant="INVALID_URL",
                error_code=40001,
                message="Destination URL malformed or without http:// or https://",
                request_id=f"req_{i:08x}",
                attempts=1,
            )
        else:
            yield RowResult(
                Action.INVALID,
                Status.INVALID,
                source="campaign.xlsx",
                sheet="Spring",
                row=i + 2,
                slug=slug,
                error_constant="MISSING_URL",
                message="Row has no destination URL",
            )


def _rss_mb() -> float:
    # ru_maxrss is in KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure_one(fmt: str, n: int) -> dict[str, object]:
    """Write n rows to a temporary .fmt report in this process."""
    from linksync.model import RunInfo
    from linksync.report import open_writer

    t0 = time.perf_counter()
    for _ in rows(n):
        pass
    generate_s = time.perf_counter() - t0
    info = RunInfo(target="https://api.example.com/v1", duration_s=1.0, requests=n)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"report.{fmt}"
        base = _rss_mb()
        t0 = time.perf_counter()
        writer = open_writer(path)
        for result in rows(n):
            writer.write(result)  # type: ignore[arg-type]
        writer.close(info)
        seconds = time.perf_counter() - t0
        size = path.stat().st_size
    peak = _rss_mb()
    return {
        "format": fmt,
        "rows": n,
        "seconds": round(seconds, 2),
        "generate_s": round(generate_s, 2),
        "rows_per_s": round(n / seconds),
        "file_mb": round(size / 1e6, 1),
        "peak_rss_mb": round(peak, 1),
        "writer_rss_mb": round(peak - base, 1),
    }


def run_child(fmt: str, n: int) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, __file__, "--one", fmt, str(n)],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    result: dict[str, object] = json.loads(out.stdout)
    return result


def calibration_s() -> float:
    """Seconds for a plain Python loop of 10 million additions: how fast this machine is
    right now (about 0.5 s on an unloaded modern core)."""
    t0 = time.perf_counter()
    total = 0
    for i in range(10_000_000):
        total += i
    return round(time.perf_counter() - t0, 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--big-rows", type=int, default=1_000_000)
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--one", nargs=2, metavar=("FORMAT", "ROWS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure_one(args.one[0], int(args.one[1]))))
        return
    formats = [f for f in args.formats.split(",") if f]
    load_before = os.getloadavg()[0]
    calibration = calibration_s()
    runs = [run_child(fmt, args.rows) for fmt in formats]
    if args.big_rows:
        runs += [run_child(fmt, args.big_rows) for fmt in ("csv", "jsonl") if fmt in formats]
    report = {
        "benchmark": "report_write",
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "calibration_loop_10M_s": calibration,
        "load_avg_1min_before_after": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "target_s_per_100k": TARGET_S,
        "runs": runs,
        "all_100k_under_target": all(
            float(str(r["seconds"])) < TARGET_S for r in runs if r["rows"] == args.rows
        ),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
