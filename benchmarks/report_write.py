"""Benchmark of the report writers: time and peak memory to write N rows per format.

    python benchmarks/report_write.py                # 100,000 rows in every format,
                                                     # 1,000,000 rows csv and jsonl
    python benchmarks/report_write.py --rows 20000 --big-rows 0
    python benchmarks/report_write.py --big-rows 0 --formats xlsx,xlsxwriter --repeat 3

``xlsxwriter`` is not a report format: it writes the same Results sheet as the xlsx
report (header style, status fills, short URLs as links, frozen header, autofilter,
column widths) with xlsxwriter in its constant-memory mode, the library linksync would
use instead of its own streaming writer (``report/xlsx_stream.py``): the figure that
decides whether the own writer is worth its lines (``docs/performance.md``,
"Workbooks"). It needs the dev dependencies (``make lint`` installs them).

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
        t0, c0 = time.perf_counter(), time.process_time()
        writer = open_writer(path)
        for result in rows(n):
            writer.write(result)  # type: ignore[arg-type]
        writer.close(info)
        seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
        size = path.stat().st_size
    peak = _rss_mb()
    return {
        "format": fmt,
        "rows": n,
        "seconds": round(seconds, 2),
        "cpu_s": round(cpu, 2),
        "generate_s": round(generate_s, 2),
        "rows_per_s": round(n / seconds),
        "file_mb": round(size / 1e6, 1),
        "peak_rss_mb": round(peak, 1),
        "writer_rss_mb": round(peak - base, 1),
    }


def _write_with_xlsxwriter(path: Path, n: int) -> None:
    """The Results sheet of the xlsx report, written by xlsxwriter (constant memory)."""
    import xlsxwriter  # type: ignore[import-untyped]

    from linksync.model import RESULT_COLUMNS, Status
    from linksync.report.cells import report_row
    from linksync.report.xlsx import (
        FAILED_FILL,
        FAILED_FONT,
        HEADER_FILL,
        LINK_FONT,
        MAX_LINKS_PER_SHEET,
    )

    wb = xlsxwriter.Workbook(str(path), {"constant_memory": True, "strings_to_urls": False})
    head = wb.add_format(
        {"bold": True, "font_color": "#FFFFFF", "bg_color": HEADER_FILL, "bottom": 1}
    )
    failed = wb.add_format({"bg_color": FAILED_FILL, "font_color": FAILED_FONT})
    link = wb.add_format({"font_color": LINK_FONT, "underline": 1})
    ws = wb.add_worksheet("Results")
    ws.set_column(0, len(RESULT_COLUMNS) - 1, 18)
    ws.freeze_panes(1, 0)
    ws.write_row(0, 0, RESULT_COLUMNS, head)
    short = RESULT_COLUMNS.index("short_url")
    r = links = 0
    for r, result in enumerate(rows(n), start=1):
        bad = result.status in (Status.FAILED, Status.INVALID)  # type: ignore[attr-defined]
        for c, value in enumerate(report_row(result).values()):  # type: ignore[arg-type]
            if value is None or value == "":
                continue
            if c == short and links < MAX_LINKS_PER_SHEET:  # Excel's limit, as the report
                links += 1
                ws.write_url(r, c, value, link, string=value)
            elif isinstance(value, str):
                ws.write_string(r, c, value, failed if bad else None)
            else:
                ws.write_number(r, c, value, failed if bad else None)
    ws.autofilter(0, 0, r, len(RESULT_COLUMNS) - 1)
    wb.close()


def measure_xlsxwriter(n: int) -> dict[str, object]:
    """Write n rows of the Results sheet with xlsxwriter, in this process."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "report.xlsx"
        base = _rss_mb()
        t0, c0 = time.perf_counter(), time.process_time()
        _write_with_xlsxwriter(path, n)
        seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
        size = path.stat().st_size
    peak = _rss_mb()
    return {
        "format": "xlsxwriter",
        "rows": n,
        "seconds": round(seconds, 2),
        "cpu_s": round(cpu, 2),
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
    parser.add_argument("--repeat", type=int, default=1, help="runs of each format")
    parser.add_argument("--one", nargs=2, metavar=("FORMAT", "ROWS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        fmt, n = args.one[0], int(args.one[1])
        print(json.dumps(measure_xlsxwriter(n) if fmt == "xlsxwriter" else measure_one(fmt, n)))
        return
    formats = [f for f in args.formats.split(",") if f]
    load_before = os.getloadavg()[0]
    calibration = calibration_s()
    runs = [run_child(fmt, args.rows) for _ in range(args.repeat) for fmt in formats]
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
