"""Profile settings that reach the sync options: system domain and safety limits."""

from __future__ import annotations

from pathlib import Path

import pytest

from linksync.config import resolve
from linksync.errors import ConfigError
from linksync.pipeline.inputs import sync_options
from linksync.pipeline.request import SyncPolicy


def _settings(tmp_path: Path, body: str):  # type: ignore[no-untyped-def]
    (tmp_path / "linksync.yaml").write_text(body, encoding="utf-8")
    return resolve(cwd=tmp_path, env={}, sandbox=True)


def test_profile_names_the_system_domain_and_limits(tmp_path: Path) -> None:
    settings = _settings(
        tmp_path,
        "profiles:\n  default:\n    system_domain: Sho.RT\n"
        "    limits: {max_deletes: 5, max_change_ratio: 0.5, min_existing: 3}\n"
        "default_profile: default\n",
    )
    opts = sync_options(SyncPolicy(), settings)
    assert opts.system_domain == "sho.rt"
    assert (opts.max_deletes, opts.max_change_ratio, opts.min_existing) == (5, 0.5, 3)


def test_unknown_limit_key_is_a_config_error(tmp_path: Path) -> None:
    settings = _settings(
        tmp_path,
        "profiles:\n  default:\n    limits: {max_delete_percent: 10}\ndefault_profile: default\n",
    )
    with pytest.raises(ConfigError, match="max_delete_percent"):
        sync_options(SyncPolicy(), settings)
