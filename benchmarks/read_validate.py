"""Read + validate at scale, next to the bare read of the same file, in one run.

    python benchmarks/read_validate.py                      # the defaults (1M/100k/50k)
    python benchmarks/read_validate.py --csv-rows 100000 --xlsx-rows 10000 --yaml-entries 5000
    python benchmarks/read_validate.py --csv-rows 0 --yaml-entries 0 --repeat 5   # xlsx only

Generates a CSV, an xlsx and a YAML file in a temporary directory, then measures each
case in its own subprocess (wall time of the operation, and the process's peak RSS
from ``resource.getrusage``), so the cases do not share memory. Each bare read and
linksync's read of the same file run as a pair, one after the other, ``--repeat``
times: the ratios (wall and CPU) are taken within each pair, so they hold on a noisy
machine, and their median is set against the targets (``TARGETS``). Prints JSON.

``--against DIR`` (another checkout, e.g. main's) measures a run's reading instead, this
tree's code and DIR's side by side, alternated ``--repeat`` times: ``plan_read``
(``linksync.pipeline.inputs.read_and_validate`` as a plan calls it, then every
``LinkSpec`` built and held, as a plan holds them) on CSV files of ``--sizes`` unchanged
rows (``_workload``'s ``unchanged_rows``: slug, url, description) and of
``--messy-sizes`` rows of ``make_csv`` (quoted tags, invisible characters, reserved and
repeated slugs), CPU and peak RSS, medians, and whether both trees read the same specs
and findings (``digest``, taken after the clock); and the CPU of ``linksync plan`` of a
50-row CSV on the built-in sandbox, start-up included, and what it imports (pandas,
numpy).

Cases: ``csv_bare`` (``pandas.read_csv(dtype=str, keep_default_na=False)``),
``csv_linksync`` (``read_sources`` + ``validate``), ``csv_specs`` (the same plus
building every ``LinkSpec``); ``xlsx_bare`` (python-calamine ``to_python``),
``xlsx_pandas_calamine``, ``xlsx_pandas_openpyxl`` (``--no-openpyxl`` skips it),
``xlsx_linksync``; ``yaml_bare`` (``yaml.load`` with ``CSafeLoader``),
``yaml_linksync``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

HEADERS = (
    "Destination URL",
    "Slug",
    "Title",
    "Tags",
    "Expires",
    "iOS URL",
    "Android URL",
    "Domain",
    "Created at",
    "Clicks",
)
TAGS = ("sale", "spring", "summer", "email", "social", "app", "docs", "events", "kids", "shoes")
DOMAINS = ("", "go.example.com", "links.example.org")


def _row(i: int, rng: random.Random) -> list[Any]:
    url = f"https://shop.example.com/products/item-{i}?ref=cmp{i % 97}"
    slug = f"item-{i}"
    if i % 1000 == 7:
        url = url.replace("item", "item\u200b")  # a pasted zero-width space
    if i % 1000 == 13:
        slug = "admin"  # reserved
    if i % 1000 == 17:
        slug = f"item-{i - 1}"  # duplicate of the previous row
    tags = ", ".join(rng.sample(TAGS, rng.randint(0, 3)))
    exp = datetime(2030, 1, 1) + timedelta(days=i % 1000, hours=i % 24)
    ios = f"https://apps.apple.com/app/id{100000 + i % 500}" if i % 3 == 0 else ""
    android = (
        f"https://play.google.com/store/apps/details?id=com.example.a{i % 500}"
        if i % 3 == 0
        else ""
    )
    domain = DOMAINS[i % 3]
    return [url, slug, f"Product {i}", tags, exp, ios, android, domain, "2026-01-01", str(i % 5000)]


def make_csv(path: Path, rows: int) -> None:
    rng = random.Random(1)
    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(HEADERS)
        for i in range(rows):
            r = _row(i, rng)
            r[4] = r[4].strftime("%Y-%m-%d %H:%M")
            w.writerow(r)


def make_xlsx(path: Path, rows: int) -> None:
    import xlsxwriter  # type: ignore[import-untyped]

    rng = random.Random(2)
    wb = xlsxwriter.Workbook(str(path), {"constant_memory": True, "strings_to_urls": False})
    ws = wb.add_worksheet("Links")
    when = wb.add_format({"num_format": "yyyy-mm-dd hh:mm"})
    ws.write_row(0, 0, HEADERS)
    for i in range(rows):
        r = _row(i, rng)
        for c, v in enumerate(r):
            if isinstance(v, datetime):
                ws.write_datetime(i + 1, c, v, when)
            elif v:
                ws.write_string(i + 1, c, v)
    wb.close()


def make_yaml(path: Path, entries: int) -> None:
    rng = random.Random(3)
    lines = ["defaults:", "  tags: [bench]", "links:"]
    for i in range(entries):
        url, slug, title, tags, exp, ios, _a, domain, *_ = _row(i, rng)
        lines.append(f"  - slug: {slug}")
        lines.append(f"    url: {url}")
        lines.append(f"    description: {title}")
        lines.append(f"    tags: [{tags}]")
        lines.append(f'    expiresAt: "{exp.strftime("%Y-%m-%dT%H:%M:%SZ")}"')
        if ios:
            lines.append(f"    apple: {ios}")
        if domain:
            lines.append(f"    domain: {domain}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def run_case(case: str, path: str) -> dict[str, Any]:
    """Run one case in this process; returns seconds, rows and peak RSS.

    Every module is imported before the clock starts: on a loaded machine importing
    pandas alone takes seconds, which is not the cost of reading a file."""
    if case == "plan_read":  # what the reader loads itself (pandas, or not), no more
        import linksync.pipeline.inputs
        import linksync.sources.csv_reader
        import linksync.validate
    else:
        import pandas as pd
        import yaml
        from python_calamine import CalamineWorkbook

    if case.endswith(("_linksync", "_specs")):
        import linksync.pipeline.collector
        import linksync.sources
        import linksync.validate  # noqa: F401

    cpu0 = time.process_time()
    t0 = time.perf_counter()
    rows: int
    extra: dict[str, Any] = {}
    if case == "csv_bare":
        rows = len(pd.read_csv(path, dtype=str, keep_default_na=False))
    elif case == "xlsx_bare":
        rows = len(CalamineWorkbook.from_path(path).get_sheet_by_index(0).to_python()) - 1
    elif case in ("xlsx_pandas_calamine", "xlsx_pandas_openpyxl"):
        engine = case.rsplit("_", 1)[1]
        rows = len(pd.read_excel(path, engine=engine, dtype=str))
    elif case == "yaml_bare":
        with open(path, encoding="utf-8") as fh:
            doc = yaml.load(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        rows = len(doc["links"])
    elif case in ("csv_linksync", "xlsx_linksync", "yaml_linksync", "csv_specs"):
        from linksync.pipeline.collector import fewer_collections
        from linksync.sources import read_sources
        from linksync.validate import validate

        with fewer_collections():  # as a run reads (pipeline.inputs.read_and_validate)
            batch = read_sources([path])
            t_read = time.perf_counter() - t0
            result = validate(batch)
        rows = result.total
        extra = {
            "read_s": round(t_read, 3),
            "validate_s": round(time.perf_counter() - t0 - t_read, 3),
            "errors": len(result.errors),
            "invalid_rows": len(result.invalid),
        }
        if case == "csv_specs":
            t1 = time.perf_counter()
            built = sum(1 for _ in result.iter_specs())
            extra["specs_s"] = round(time.perf_counter() - t1, 3)
            assert built == rows
    elif case == "plan_read":
        from linksync.pipeline.inputs import read_and_validate

        c0 = time.process_time()
        _batch, result = read_and_validate([path])
        c1 = time.process_time()
        specs = result.specs  # held, as a plan holds them
        rows = len(specs)
        extra = {
            "read_validate_cpu_s": round(c1 - c0, 3),
            "specs_cpu_s": round(time.process_time() - c1, 3),
            "problems": len(result.problems),
        }
    else:
        raise SystemExit(f"unknown case {case}")
    seconds = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if case == "plan_read":  # after the clock: what was read, to set beside another tree's
        extra["digest"] = digest(result)
    return {
        "case": case,
        "rows": rows,
        "seconds": round(seconds, 3),
        "cpu_s": round(cpu, 3),
        "peak_rss_mb": round(peak_kb / 1024, 1),
        **extra,
    }


def digest(result: Any) -> str:
    """A hash of a validation's specs (``to_dict``, the fields, ``managed`` sorted, the
    provenance), findings (problems and file problems, each ``to_dict`` and message),
    invalid rows and notes: equal for two trees that read a file the same way."""
    import hashlib

    h = hashlib.sha256()
    for spec in result.iter_specs():
        h.update(json.dumps(spec.to_dict(), sort_keys=True, default=str).encode())
    for problem in (*result.problems, *result.file_problems):
        h.update(json.dumps(problem.to_dict(), sort_keys=True, default=str).encode())
    h.update(repr((sorted(result.invalid), result.notes, result.summary())).encode())
    return h.hexdigest()[:16]


def measure(case: str, path: Path, src: Path | None = None) -> dict[str, Any]:
    """``case`` in its own process; ``src``: the ``src`` folder of the linksync to run."""
    # (One hash seed for both trees: a message that names a set's items names them in
    # one order.)
    env = {**os.environ, "PYTHONPATH": str(src), "PYTHONHASHSEED": "0"} if src else None
    proc = subprocess.run(
        [sys.executable, __file__, "--case", case, "--file", str(path)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    if proc.returncode != 0:
        return {"case": case, "error": proc.stderr.strip().splitlines()[-1:]}
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


#: (name, linksync case, bare case, target wall ratio, target CPU ratio)
TARGETS = (
    ("csv", "csv_linksync", "csv_bare", 1.5, 2.0),
    ("xlsx", "xlsx_linksync", "xlsx_bare", 1.3, None),
    ("yaml", "yaml_linksync", "yaml_bare", None, None),
)


def paired_ratios(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per target: linksync / bare, wall and CPU, for each repeat (the two cases of a
    pair run one after the other, so they see the same machine), and the median."""
    out: dict[str, Any] = {}
    for name, ours, bare, wall_target, cpu_target in TARGETS:
        pairs = [
            (r[ours], r[bare])
            for r in runs
            if "seconds" in r.get(ours, {}) and "seconds" in r.get(bare, {})
        ]
        if not pairs:
            continue
        wall = sorted(round(a["seconds"] / b["seconds"], 2) for a, b in pairs)
        cpu = sorted(round(a["cpu_s"] / b["cpu_s"], 2) for a, b in pairs)
        entry: dict[str, Any] = {
            "wall_ratio_median": wall[len(wall) // 2],
            "wall_ratios": wall,
            "cpu_ratio_median": cpu[len(cpu) // 2],
            "cpu_ratios": cpu,
        }
        if wall_target is not None:
            entry[f"wall<={wall_target}x"] = entry["wall_ratio_median"] <= wall_target
        if cpu_target is not None:
            entry[f"cpu<={cpu_target}x"] = entry["cpu_ratio_median"] <= cpu_target
        out[name] = entry
    return out


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def startup(src: Path, folder: Path) -> dict[str, Any]:
    """``linksync plan links.csv --sandbox`` of 50 rows: the CPU of the whole process
    (start-up included) and whether it imported pandas and numpy."""
    probe = (
        "import runpy, sys\n"
        "sys.argv = ['linksync', 'plan', 'links.csv', '--sandbox']\n"
        "try:\n    runpy.run_module('linksync', run_name='__main__')\n"
        "finally:\n"
        "    print('IMPORTED', 'pandas' in sys.modules, 'numpy' in sys.modules, file=sys.stderr)\n"
    )
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(src), "LINKSYNC_SANDBOX": "1"},
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    flags = proc.stderr.rsplit("IMPORTED", 1)[-1].split()
    return {
        "exit": proc.returncode,
        "cpu_s": round(cpu, 3),
        "pandas": flags[:1] == ["True"],
        "numpy": flags[1:2] == ["True"],
    }


def against(other: Path, sizes: list[int], repeat: int, messy: list[int]) -> dict[str, Any]:
    """This tree's reading beside ``other``'s (module docstring)."""
    sys.path.insert(0, str(Path(__file__).parent))
    from _workload import unchanged_rows, write_csv

    trees = {"this": Path(__file__).resolve().parents[1] / "src", "other": other / "src"}
    out: dict[str, Any] = {
        "other": str(other),
        "load_average_before": [round(x, 2) for x in os.getloadavg()],
    }
    with tempfile.TemporaryDirectory(prefix="linksync-bench-") as tmp:
        d = Path(tmp)
        files = [
            (f"plan_read_{n}", write_csv(unchanged_rows(n, n), d / f"rows-{n}.csv")) for n in sizes
        ]
        for n in messy:  # the mixed export of ``make_csv``: quotes, findings on some rows
            make_csv(d / f"messy-{n}.csv", n)
            files.append((f"plan_read_messy_{n}", d / f"messy-{n}.csv"))
        for label, path in files:
            runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
            for _ in range(max(1, repeat)):
                for name, src in trees.items():
                    runs[name].append(measure("plan_read", path, src))
            entry: dict[str, Any] = {}
            for name, got in runs.items():
                ok = [r for r in got if "cpu_s" in r]
                entry[name] = (
                    {
                        key: _median([r[key] for r in ok])
                        for key in ("read_validate_cpu_s", "specs_cpu_s", "cpu_s", "peak_rss_mb")
                    }
                    if ok
                    else {"error": got[-1]}
                )
            if "cpu_s" in entry["this"] and "cpu_s" in entry["other"]:
                entry["cpu_ratio"] = round(entry["this"]["cpu_s"] / entry["other"]["cpu_s"], 2)
                digests = {r.get("digest") for got in runs.values() for r in got}
                entry["same_specs_and_findings"] = len(digests) == 1
            out[label] = entry
        write_csv(unchanged_rows(50, 50), d / "links.csv")
        for src in trees.values():  # as an installed package runs: bytecode compiled
            compile_all = [sys.executable, "-m", "compileall", "-q", str(src)]
            subprocess.run(compile_all, capture_output=True, check=False)
        starts: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
        for _ in range(max(3, repeat)):
            for name, src in trees.items():
                starts[name].append(startup(src, d))
        out["startup_plan_50_rows"] = {
            name: {
                "cpu_s": _median([r["cpu_s"] for r in got]),
                "exit": got[-1]["exit"],
                "pandas": got[-1]["pandas"],
                "numpy": got[-1]["numpy"],
            }
            for name, got in starts.items()
        }
    out["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--csv-rows", type=int, default=1_000_000)
    ap.add_argument("--xlsx-rows", type=int, default=100_000)
    ap.add_argument("--yaml-entries", type=int, default=50_000)
    ap.add_argument("--no-openpyxl", action="store_true", help="skip the slow openpyxl case")
    ap.add_argument("--repeat", type=int, default=3, help="pairs of bare/linksync runs")
    ap.add_argument("--against", type=Path, help="another checkout: its reading beside this one")
    ap.add_argument("--sizes", default="200000,1000000", help="rows of --against's CSV files")
    ap.add_argument("--messy-sizes", default="", help="rows of --against's mixed CSV files")
    ap.add_argument("--case", help=argparse.SUPPRESS)
    ap.add_argument("--file", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.case:
        print(json.dumps(run_case(args.case, args.file)))
        return
    if args.against:
        sizes = [int(x) for x in args.sizes.split(",") if x]
        messy = [int(x) for x in args.messy_sizes.split(",") if x]
        print(json.dumps(against(args.against, sizes, args.repeat, messy), indent=2))
        return
    results: dict[str, Any] = {
        "python": platform.python_version(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cpu",
        "load_average_before": [round(x, 2) for x in os.getloadavg()],
        "sizes": {
            "csv_rows": args.csv_rows,
            "xlsx_rows": args.xlsx_rows,
            "yaml_entries": args.yaml_entries,
        },
        "runs": [],
    }
    with tempfile.TemporaryDirectory(prefix="linksync-bench-") as tmp:
        d = Path(tmp)
        plan: list[tuple[str, Path]] = []
        if args.csv_rows:
            make_csv(d / "links.csv", args.csv_rows)
            plan += [(c, d / "links.csv") for c in ("csv_bare", "csv_linksync")]
        if args.xlsx_rows:
            make_xlsx(d / "links.xlsx", args.xlsx_rows)
            plan += [(c, d / "links.xlsx") for c in ("xlsx_bare", "xlsx_linksync")]
        if args.yaml_entries:
            make_yaml(d / "links.yaml", args.yaml_entries)
            plan += [(c, d / "links.yaml") for c in ("yaml_bare", "yaml_linksync")]
        for _ in range(max(1, args.repeat)):
            results["runs"].append({case: measure(case, path) for case, path in plan})
        # Once each: building every LinkSpec, and pandas' own xlsx readers.
        once: list[tuple[str, Path]] = []
        if args.csv_rows:
            once.append(("csv_specs", d / "links.csv"))
        if args.xlsx_rows:
            once.append(("xlsx_pandas_calamine", d / "links.xlsx"))
            if not args.no_openpyxl:
                once.append(("xlsx_pandas_openpyxl", d / "links.xlsx"))
        results["once"] = {case: measure(case, path) for case, path in once}
    results["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    results["ratios"] = paired_ratios(results["runs"])
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
