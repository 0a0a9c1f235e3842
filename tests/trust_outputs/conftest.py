"""Fixtures of the outputs/runs/exit-codes suite: a working folder with a source, the
built-in sandbox behind the CLI, and a record of the source to prove it untouched."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from trust_support import Source

CSV = (
    "slug,Destination URL,description\n"
    "alpha,https://example.com/alpha,café crème\n"
    ",https://example.com/no-slug,service picks the slug\n"
    "bravo,https://example.com/bravo,\n"
)


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("LINKSYNC_BASE_URL", "LINKSYNC_API_KEY", "LINKSYNC_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def source(workdir: Path) -> Source:
    path = workdir / "links.csv"
    path.write_text(CSV, encoding="utf-8")
    return Source.of(path)


@pytest.fixture(autouse=True)
def _umask() -> None:
    os.umask(0o022)
