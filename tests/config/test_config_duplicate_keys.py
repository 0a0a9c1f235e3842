"""A key given twice in one mapping of ``linksync.yaml`` is refused, naming both lines:
YAML parsers keep the last one in silence, so a target named twice ran only its second
block (the first one's files, key and scope dropped), and a profile's ``owner_tag``
written twice tagged links with whichever came last."""

from __future__ import annotations

from pathlib import Path

import pytest

from linksync.config import resolve
from linksync.config.targets import load_workspaces
from linksync.errors import ConfigError
from support.cli_runs import run

TWICE = """\
targets:
  brand-a:
    sandbox: true
    sandbox_db: a.db
    files: [links/a/]
  brand-a:
    sandbox: true
    sandbox_db: b.db
    files: [links/b/]
"""


def test_a_target_named_twice_is_refused_by_line(tmp_path: Path) -> None:
    config = tmp_path / "linksync.yaml"
    config.write_text(TWICE, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_workspaces(config)
    message = str(info.value)
    assert "line 6: key 'brand-a' is given twice (first on line 2)" in message
    assert str(config) in message


def test_a_profile_key_given_twice_stops_the_run(workdir: Path) -> None:
    (workdir / "linksync.yaml").write_text(
        "default_domain: lnk.test\nowner_tag: owner:web\nowner_tag: owner:shop\n", "utf-8"
    )
    (workdir / "links.yaml").write_text("links:\n  a: https://example.com/a\n", "utf-8")
    planned = run("plan", "links.yaml")
    assert planned.exit_code == 2, planned.output
    assert "line 3: key 'owner_tag' is given twice (first on line 2)" in planned.output


def test_a_merge_key_is_not_a_duplicate(tmp_path: Path) -> None:
    config = tmp_path / "linksync.yaml"
    config.write_text(
        "profiles:\n"
        "  base: &base\n    sandbox: true\n    owner_tag: owner:base\n"
        "  web:\n    <<: *base\n    owner_tag: owner:web\n"
        "default_profile: web\n",
        encoding="utf-8",
    )
    settings = resolve(cwd=tmp_path, env={})
    assert settings.profile.owner_tag == "owner:web"
