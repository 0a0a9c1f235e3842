"""A run journal's records, read back as the tests check them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def read_journal(path: Path | str) -> list[dict[str, Any]]:
    """Every complete record of a journal (a last line cut short by a kill is left out)."""
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.endswith("\n")]
