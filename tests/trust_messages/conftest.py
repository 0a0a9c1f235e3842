"""Fixtures of the messages and time-zone suite: a working directory with the built-in
sandbox (its state file in a temporary directory) and no target in the environment."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("LINKSYNC_BASE_URL", "LINKSYNC_API_KEY", "LINKSYNC_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path
