"""CLI fixtures: a profile pointing at a sandbox database in tmp_path (see ws_helpers)."""

from __future__ import annotations

from pathlib import Path

import pytest
from ws_helpers import Workspace


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    w = Workspace(tmp_path, tmp_path / "linksync.yaml")
    w.write()
    return w
