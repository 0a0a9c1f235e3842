"""docs/architecture.md names real things: every path and dotted name in backticks
exists, so the newcomer's four paths (a source format, a report format, an endpoint, a
sandbox rule) cannot drift from the code."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
TICKED = re.compile(r"`([^`\s]+)`")


def _ticked() -> list[str]:
    return TICKED.findall(DOC.read_text(encoding="utf-8"))


def _resolve(dotted: str) -> object:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise ModuleNotFoundError(dotted)


def test_every_path_named_exists() -> None:
    paths = [t for t in _ticked() if t.startswith(("src/", "tests/")) and "..." not in t]
    assert len(paths) >= 20  # the newcomer paragraphs name their files
    missing = [p for p in paths if not (ROOT / p.rstrip("/")).exists()]
    assert missing == []


@pytest.mark.parametrize(
    "dotted",
    sorted({t for t in _ticked() if re.fullmatch(r"linksync(\.[A-Za-z_]\w*)+", t)}),
)
def test_every_name_named_exists(dotted: str) -> None:
    _resolve(dotted)


def test_no_module_in_src_is_over_400_lines() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in (ROOT / "src").rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400
    }
    assert long == {}
