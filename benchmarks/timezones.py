"""What reading date-times in a time zone costs: ``read_sources`` + ``validate`` of a CSV
with one expiry per row (a few hundred distinct values, as real campaigns have, and
one distinct value per row, the worst case), in UTC and in ``America/New_York``; and
``RowResult.from_change``'s expiry note over the same rows. Prints JSON (median of
``--repeat`` runs, seconds).

    .venv/bin/python benchmarks/timezones.py --rows 200000 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from linksync.model import Action, RowResult, Status
from linksync.sources import read_sources
from linksync.sync.plan import Change
from linksync.validate import validate


def _csv(path: Path, rows: int, distinct: int) -> Path:
    start = datetime(2027, 1, 1, 9, 0)
    with path.open("w", encoding="utf-8") as f:
        f.write("slug,url,expires\n")
        for i in range(rows):
            when = start + timedelta(minutes=7 * (i % distinct))
            f.write(f"s{i},https://example.com/{i},{when:%Y-%m-%d %H:%M}\n")
    return path


def _median(fn: object, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - t)
    return round(statistics.median(times), 3)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    out: dict[str, object] = {"rows": args.rows}
    with tempfile.TemporaryDirectory() as tmp:
        for label, distinct in (("few_distinct", 300), ("all_distinct", args.rows)):
            path = _csv(Path(tmp) / f"{label}.csv", args.rows, distinct)
            for zone in (None, "America/New_York"):

                def run(path: Path = path, zone: str | None = zone) -> object:
                    return validate(read_sources([path], timezone=zone))

                out[f"read_validate_{label}_{zone or 'UTC'}_s"] = _median(run, args.repeat)
        batch = read_sources([path], timezone="America/New_York")
        changes = [
            Change(Action.CREATE, "lnk.test", s.slug, i, s) for i, s in enumerate(batch.specs)
        ]

        def rows() -> list[RowResult]:
            return [RowResult.from_change(ch, Status.PLANNED) for ch in changes]

        out["from_change_all_distinct_s"] = _median(rows, args.repeat)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
