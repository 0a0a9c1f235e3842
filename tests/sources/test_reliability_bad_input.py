"""Malformed inputs through the readers and local validation: a file-level SourceError
(nothing else) when the file cannot be read at all, and otherwise every good row kept
valid while each bad row is named with the service's constant. No code ever runs from
a YAML tag."""

from __future__ import annotations

import io
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import xlsxwriter  # type: ignore[import-untyped]

from linksync.errors import SourceError
from linksync.sources import SourceBatch, read_sources
from linksync.validate import Validation, validate

GOOD = {"good-alpha": "https://example.com/alpha", "good-bravo": "https://example.com/bravo"}
HEADER = "slug,url,description\n"
GOOD_CSV = "".join(f"{s},{u},fine\n" for s, u in GOOD.items())
MARKER = "code-ran-marker"
WRONG_EXPIRIES = (
    "31/12/2030",
    "2030-13-01T00:00:00Z",
    "2030-02-30T00:00:00Z",
    "2030-12-31T25:00:00Z",
    "tomorrow",
    "2020-01-01T00:00:00Z",
)


def _xlsx(rows: int) -> bytes:
    buf = io.BytesIO()
    wb = xlsxwriter.Workbook(buf, {"in_memory": True, "strings_to_urls": False})
    ws = wb.add_worksheet("Links")
    ws.write_row(0, 0, ["slug", "url"])
    for i in range(1, rows):
        ws.write_row(i, 0, [f"fill-{i}", f"https://example.com/{i}"])
    wb.close()
    return buf.getvalue()


def _alias_bomb() -> str:
    lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    for i in range(1, 9):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    lines.append("links:\n  - slug: bomb\n    url: https://example.com/b\n    tags: *i")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Case:
    name: str
    filename: str
    content: Callable[[], bytes | str]
    good: tuple[str, ...] = tuple(GOOD)  # slugs that must stay valid
    bad: dict[str, str] | None = None  # slug -> constant it must be flagged with
    file_level_ok: bool = False  # may be refused as a whole (SourceError)
    message_has: str = ""  # what a file-level refusal must say


CASES = [
    Case("truncated xlsx", "t.xlsx", lambda: _xlsx(300)[:4000], (), file_level_ok=True),
    Case(
        "binary named .csv",
        "b.csv",
        lambda: bytes(random.Random(1).randrange(256) for _ in range(2048)),
        (),
        file_level_ok=True,
    ),
    Case("empty file", "e.csv", lambda: b"", (), file_level_ok=True),
    Case("header only", "h.csv", lambda: HEADER, (), file_level_ok=True),
    Case("ragged CSV", "r.csv", lambda: HEADER + GOOD_CSV + "rag,https://e.com/r,d,x,y\nrag2\n"),
    # Where an unclosed quote should end cannot be known: the file is refused as a whole,
    # and the message must name the row where the quote opens.
    Case(
        "unclosed quote",
        "q.csv",
        lambda: HEADER + GOOD_CSV + 'bad,"https://e.com/q,d\n',
        (),
        file_level_ok=True,
        message_has="row 3",
    ),
    Case(
        "invalid UTF-8",
        "u.csv",
        lambda: (HEADER + GOOD_CSV).encode() + b"bad-u,https://example.com/u,caf\xe9\xff\n",
    ),
    Case("YAML alias bomb", "bomb.yaml", _alias_bomb, (), file_level_ok=True),
    Case(
        "YAML python tag",
        "tag.yaml",
        lambda: (
            f'links:\n  - slug: evil\n    url: !!python/object/apply:os.system ["touch {MARKER}"]\n'
        ),
        (),
        file_level_ok=True,
    ),
    Case(
        "10 MB cell",
        "big.csv",
        lambda: HEADER + GOOD_CSV + "big,https://example.com/big," + "x" * 10_000_000 + "\n",
    ),
    Case(
        "100,000 invisible characters",
        "inv.csv",
        lambda: HEADER + GOOD_CSV + "inv,https://example.com/i" + "\u200b" * 100_000 + ",d\n",
        bad={"inv": "INVALID_URL"},
    ),
    Case(
        "slug of 2,048 bytes",
        "s2048.csv",
        lambda: HEADER + GOOD_CSV + "a" * 2048 + ",https://example.com/l,d\n",
        (*GOOD, "a" * 2048),
    ),
    Case(
        "slug of 2,049 bytes",
        "s2049.csv",
        lambda: HEADER + GOOD_CSV + "a" * 2049 + ",https://example.com/l,d\n",
        bad={"a" * 2049: "INVALID_SLUG"},
    ),
    Case(
        "expiry in wrong formats",
        "exp.csv",
        lambda: (
            "slug,url,expiresAt\n"
            + "".join(f"{s},{u},2031-12-31T23:59:59Z\n" for s, u in GOOD.items())
            + "".join(
                f"exp-{i},https://example.com/{i},{v}\n" for i, v in enumerate(WRONG_EXPIRIES)
            )
        ),
        bad={f"exp-{i}": "INVALID_EXPIRY" for i in range(len(WRONG_EXPIRIES))},
    ),
]


def _read(path: Path) -> tuple[SourceBatch, Validation] | SourceError:
    try:
        batch = read_sources([path])
    except SourceError as exc:  # the only exception a bad file may raise
        return exc
    return batch, validate(batch)


def _constants_by_slug(batch: SourceBatch, v: Validation) -> dict[str, set[str]]:
    """slug -> constants of the errors on its row."""
    by_row: dict[tuple[str | None, int | None], set[str]] = {}
    for p in v.problems:
        if p.provenance is not None and p.severity.value == "error":
            key = (p.provenance.sheet, p.provenance.row)
            by_row.setdefault(key, set()).add(p.constant)
    out: dict[str, set[str]] = {}
    for spec in batch.specs:
        prov = spec.provenance
        key = (prov.sheet, prov.row) if prov else (None, None)
        out[spec.slug or ""] = by_row.get(key, set())
    return out


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input_is_reported_not_crashed(
    case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a YAML tag that ran code would create the marker here
    path = tmp_path / case.filename
    data = case.content()
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)

    outcome = _read(path)

    assert not (tmp_path / MARKER).exists()
    if isinstance(outcome, SourceError):
        assert case.file_level_ok, f"{case.name}: refused as a whole: {outcome}"
        assert str(outcome)  # says why
        assert case.message_has in str(outcome)
        return
    batch, v = outcome
    constants = _constants_by_slug(batch, v)
    for slug in case.good:
        assert slug in constants, f"{case.name}: good row {slug[:20]} lost"
        assert not constants[slug], f"{case.name}: good row {slug[:20]}: {constants[slug]}"
    for slug, constant in (case.bad or {}).items():
        assert constant in constants.get(slug, set()), f"{case.name}: {slug[:20]} not flagged"
    if case.file_level_ok and not case.good:
        # Read without a file-level error: then it must hold no row, or flag it.
        assert len(batch) == 0 or v.problems
