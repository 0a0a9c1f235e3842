"""Malformed inputs for ``faults.py --only bad-input``: each file is run through
``linksync validate`` and ``linksync plan`` (against an in-memory sandbox) with a
timeout. What the tool said and its exit code are recorded; none may crash with a
traceback or hang, and the good rows of a file whose format allows row-level recovery
must still be reported (they appear in the plan as creates).
"""

from __future__ import annotations

import io
import random
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import xlsxwriter  # type: ignore[import-untyped]
from _harness import CliRun, SandboxOptions, run_cli, running_sandbox

GOOD = (("good-alpha", "https://example.com/alpha"), ("good-bravo", "https://example.com/bravo"))
HEADER = "slug,url,description\n"
MARKER = "PWNED-MARKER"
WRONG_EXPIRIES = (
    "31/12/2030",
    "2030-13-01T00:00:00Z",
    "2030-02-30T00:00:00Z",
    "2030-12-31T25:00:00Z",
    "2030-12-31T23:59:59+25:00",
    "Dec 31 2030",
    "tomorrow",
    "1924992000",
    "2020-01-01T00:00:00Z",
    "0000-00-00T00:00:00Z",
)


def _good_csv() -> str:
    return "".join(f"{s},{u},fine\n" for s, u in GOOD)


def _xlsx_bytes(rows: int) -> bytes:
    buf = io.BytesIO()
    wb = xlsxwriter.Workbook(buf, {"in_memory": True, "strings_to_urls": False})
    ws = wb.add_worksheet("Links")
    ws.write_row(0, 0, ["slug", "url", "description"])
    for i, (s, u) in enumerate(GOOD, start=1):
        ws.write_row(i, 0, [s, u, "fine"])
    for i in range(len(GOOD) + 1, rows):
        ws.write_row(i, 0, [f"fill-{i}", f"https://example.com/fill/{i}", "x" * 40])
    wb.close()
    return buf.getvalue()


def _truncated_xlsx() -> bytes:
    data = _xlsx_bytes(500)
    return data[: len(data) * 6 // 10]


def _binary() -> bytes:
    rng = random.Random(42)
    return bytes(rng.randrange(256) for _ in range(4096)) + b"\x00\x00\xff\xfe"


def _alias_bomb() -> str:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 9):
        prev = chr(ord("a") + i - 1)
        cur = chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    lines.append("links:")
    for s, u in GOOD:
        lines.append(f"  - slug: {s}\n    url: {u}")
    lines.append("  - slug: bomb\n    url: https://example.com/bomb\n    tags: *i")
    return "\n".join(lines) + "\n"


def _python_tag() -> str:
    good = "".join(f"  - slug: {s}\n    url: {u}\n" for s, u in GOOD)
    return (
        "links:\n"
        + good
        + "  - slug: evil\n"
        + f'    url: !!python/object/apply:os.system ["touch {MARKER}"]\n'
    )


@dataclass(frozen=True, slots=True)
class BadInput:
    name: str
    filename: str
    what: str
    build: Callable[[], bytes | str]
    good: tuple[str, ...] = tuple(s for s, _ in GOOD)  # slugs that must still be planned
    bad_rows: int = 1
    #: The format cannot tell where the damage ends: refusing the whole file (exit 2,
    #: nothing applied) with a message naming the row is acceptable.
    whole_file_refusal_ok: bool = False


CASES: tuple[BadInput, ...] = (
    BadInput("truncated xlsx", "truncated.xlsx", "valid workbook cut at 60%", _truncated_xlsx, ()),
    BadInput("binary named .csv", "binary.csv", "4 KB of random bytes with NULs", _binary, ()),
    BadInput(
        "ragged CSV",
        "ragged.csv",
        "one row with 5 fields, one with 1 field",
        lambda: HEADER + _good_csv() + "ragged-a,https://example.com/r,desc,extra,more\nragged-b\n",
        bad_rows=2,
    ),
    BadInput(
        "unclosed quote CSV",
        "unclosed.csv",
        'last row opens a quote that never closes: bad-q,"https://...',
        lambda: HEADER + _good_csv() + 'bad-q,"https://example.com/q,desc\nlost,https://x.y,z\n',
        whole_file_refusal_ok=True,
    ),
    BadInput("empty file", "empty.csv", "0 bytes", lambda: b"", ()),
    BadInput("header-only file", "header.csv", "header line, no rows", lambda: HEADER, ()),
    BadInput(
        "invalid UTF-8",
        "latin1.csv",
        "one row with bytes 0xE9 0xFF 0xFE",
        lambda: (HEADER + _good_csv()).encode() + b"bad-u,https://example.com/u,caf\xe9 \xff\xfe\n",
    ),
    BadInput(
        "YAML alias bomb",
        "bomb.yaml",
        "9 levels of 9 aliases (387M nodes when walked)",
        _alias_bomb,
        (),
    ),
    BadInput(
        "YAML Python tag",
        "tag.yaml",
        f"url: !!python/object/apply:os.system [touch {MARKER}]",
        _python_tag,
        (),
    ),
    BadInput(
        "10 MB cell",
        "bigcell.csv",
        "one description of 10,000,000 characters",
        lambda: (
            HEADER + _good_csv() + "big-cell,https://example.com/big," + "x" * 10_000_000 + "\n"
        ),
    ),
    BadInput(
        "100,000 invisible characters",
        "invisible.csv",
        "URL followed by 100,000 U+200B",
        lambda: HEADER + _good_csv() + "invis,https://example.com/i" + "\u200b" * 100_000 + ",d\n",
    ),
    BadInput(
        "slug of 2,048 bytes",
        "slug2048.csv",
        "a valid slug at the limit (must be accepted)",
        lambda: HEADER + _good_csv() + "a" * 2048 + ",https://example.com/long,d\n",
        (*(s for s, _ in GOOD), "a" * 2048),
        bad_rows=0,
    ),
    BadInput(
        "slug of 2,049 bytes",
        "slug2049.csv",
        "one byte over the limit (INVALID_SLUG)",
        lambda: HEADER + _good_csv() + "a" * 2049 + ",https://example.com/long,d\n",
    ),
    BadInput(
        "expiry in wrong formats",
        "expiry.csv",
        "; ".join(WRONG_EXPIRIES),
        lambda: (
            "slug,url,expiresAt\n"
            + "".join(f"{s},{u},2031-12-31T23:59:59Z\n" for s, u in GOOD)
            + "".join(
                f"exp-{i},https://example.com/e{i},{v}\n" for i, v in enumerate(WRONG_EXPIRIES)
            )
        ),
        bad_rows=len(WRONG_EXPIRIES),
    ),
)


def _said(run: CliRun, tmp: Path) -> str:
    """The gist of what the tool said: its first error line (else its summary line),
    with the temporary directory taken out."""
    lines = [ln.strip() for ln in (run.stderr + "\n" + run.stdout).splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith(("ERROR", "Error:", "WARNING"))]
    summary = [ln for ln in lines if "row(s)" in ln or "Plan:" in ln or ln.startswith("plan")]
    text = (errors or summary or lines or [""])[0]
    text = " ".join(text.replace(f"{tmp}/", "").replace(MARKER, "<marker>").split())
    text = "".join(ch if ch.isprintable() else "?" for ch in text)
    return text if len(text) <= 160 else text[:157] + "..."


def _planned(run: CliRun, out_file: Path, slugs: tuple[str, ...]) -> bool:
    text = run.stdout
    if out_file.exists():
        text += out_file.read_text(encoding="utf-8", errors="replace")
    return all(s in text for s in slugs)


def _one(case: BadInput, tmp: Path, env: dict[str, str], timeout: float) -> dict[str, Any]:
    path = tmp / case.filename
    data = case.build()
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    validate = run_cli(["validate", str(path)], env=env, cwd=tmp, timeout=timeout)
    plan_out = tmp / f"{path.stem}.plan.json"
    plan = run_cli(["plan", str(path), "--out", str(plan_out)], env=env, cwd=tmp, timeout=timeout)
    runs = (validate, plan)
    return {
        "input": case.name,
        "file": case.filename,
        "what": case.what,
        "size_bytes": path.stat().st_size,
        "validate_exit": validate.returncode,
        "validate_said": _said(validate, tmp),
        "validate_s": round(validate.wall_s, 2),
        "plan_exit": plan.returncode,
        "plan_said": _said(plan, tmp),
        "traceback": any(r.traceback for r in runs),
        "hang": any(r.timed_out for r in runs),
        "good_rows": len(case.good),
        "good_rows_planned": _planned(plan, plan_out, case.good) if case.good else None,
        "code_ran": (tmp / MARKER).exists(),
        "max_rss_mb": round(max(r.max_rss_mb for r in runs), 1),
    }


def _passes(r: dict[str, Any], case: BadInput) -> bool:
    refused = r["validate_exit"] == 2 and r["plan_exit"] == 2
    return (
        not r["traceback"]
        and not r["hang"]
        and not r["code_ran"]
        and r["validate_exit"] in (0, 1, 2)
        and (r["good_rows_planned"] is not False or (case.whole_file_refusal_ok and refused))
    )


def bad_input_scenario(timeout: float) -> dict[str, Any]:
    per_file_timeout = min(timeout, 120.0)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="linksync-badinput-") as d:
        tmp = Path(d)
        with running_sandbox(SandboxOptions(rate_limit=10_000, latency_ms=None)) as box:
            env = box.env()
            for case in CASES:
                r = _one(case, tmp, env, per_file_timeout)
                r["pass"] = _passes(r, case)
                rows.append(r)
    return {"inputs": rows, "ok": all(r["pass"] for r in rows)}


def _cell(text: Any) -> str:
    s = "" if text is None else str(text)
    s = "".join(ch if ch.isprintable() else " " for ch in s)
    return s.replace("|", "\\|").replace("`", "'")


def bad_input_markdown(result: dict[str, Any]) -> str:
    lines = [
        "| input | what the file holds | validate exit | what linksync said | plan exit "
        "| good rows still planned | traceback / hang | pass |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in result.get("inputs", []):
        kept = r["good_rows_planned"]
        if kept is None:
            kept_txt = "none in file"
        elif kept:
            kept_txt = "yes"
        elif r["plan_exit"] == 2:
            kept_txt = "no: whole file refused, nothing applied"
        else:
            kept_txt = "NO (rows lost)"
        lines.append(
            f"| {_cell(r['input'])} | {_cell(r['what'])} | {r['validate_exit']} "
            f"| {_cell(r['validate_said'])} | {r['plan_exit']} | {kept_txt} "
            f"| {'yes' if r['traceback'] or r['hang'] else 'no'} "
            f"| {'pass' if r['pass'] else 'FAIL'} |"
        )
    return "\n".join(lines)
