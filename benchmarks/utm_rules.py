"""The cost of the team's UTM rules: ``read_sources`` + ``validate``
of one CSV with UTM columns, without rules, with the rules of docs/checks.md, and with
``fix_utm_case``, in one process, each ``--repeat`` times (the median is printed).

    python benchmarks/utm_rules.py                 # 100,000 rows
    python benchmarks/utm_rules.py --rows 20000 --repeat 5

One row in ten breaks a rule (a typo, a capital, a space, a missing campaign). Prints
JSON: seconds per case, the extra cost of the rules per 1,000 rows, problems found.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from linksync.model.utm_rules import parse_utm_rules
from linksync.sources import read_sources
from linksync.validate import validate

RULES = {
    "required": ["utm_source", "utm_medium", "utm_campaign"],
    "allowed": {
        "utm_source": ["facebook", "newsletter", "google"],
        "utm_medium": ["social", "email", "cpc"],
    },
    "pattern": {"utm_campaign": "^[a-z0-9-]+$"},
    "lowercase": True,
    "no_spaces": "-",
    "max_length": 100,
}
BAD = ("newsleter,email,spring", "Facebook,social,spring", "google,cpc,Spring Sale", "google,cpc,")


def write_csv(path: Path, rows: int) -> None:
    lines = ["url,slug,utm_source,utm_medium,utm_campaign"]
    for i in range(rows):
        cells = BAD[(i // 10) % len(BAD)] if i % 10 == 9 else "facebook,social,spring-2026"
        lines.append(f"https://example.com/p/{i},s{i},{cells}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def timed(path: Path, **kw: Any) -> tuple[float, int]:
    start = time.perf_counter()
    result = validate(read_sources([str(path)]), **kw)
    return time.perf_counter() - start, len(result.problems)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rules = parse_utm_rules(RULES)
    cases: dict[str, dict[str, Any]] = {
        "no_rules": {},
        "rules": {"utm_rules": rules},
        "rules_fix": {"utm_rules": rules, "fix_utm_case": True},
    }
    out: dict[str, Any] = {
        "rows": args.rows,
        "repeat": args.repeat,
        "python": platform.python_version(),
    }
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "utm.csv"
        write_csv(path, args.rows)
        for name, kw in cases.items():
            runs = [timed(path, **kw) for _ in range(args.repeat)]
            print(f"{name}: {[round(t, 3) for t, _ in runs]}", file=sys.stderr)
            out[name] = {
                "seconds": round(statistics.median(t for t, _ in runs), 3),
                "problems": runs[0][1],
            }
    extra = out["rules"]["seconds"] - out["no_rules"]["seconds"]
    out["rules_extra_ms_per_1000_rows"] = round(extra * 1000 / (args.rows / 1000), 2)
    print(json.dumps(out, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
