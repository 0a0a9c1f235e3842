"""The ``targets:`` block of a config file (``linksync.config.targets``): each target's own
profile, files, mode and scope; every wrong shape refused by name before anything
runs; one key per workspace."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from linksync.config import resolve
from linksync.config.profiles import load_profile
from linksync.config.targets import load_workspaces
from linksync.errors import ConfigError

CONFIG = """\
default_profile: prod
profiles:
  prod:
    base_url: https://api.example.com
    api_key_env: PROD_KEY
    owner_tag: managed
    limits: {max_deletes: 50, max_change_ratio: 0.3}
    columns: {Ziel: url}
targets:
  brand-a:
    profile: prod
    api_key_env: BRAND_A_KEY
    files: [links/a/, /abs/b.csv]
    mode: mirror
    scope_domains: [go.brand-a.com]
    limits: {max_deletes: 5}
  brand-b:
    base_url: https://api.example.com
    api_key_file: keys/b.key
    files: links/b.xlsx
"""


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "linksync.yaml"
    path.write_text(CONFIG, encoding="utf-8")
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys/b.key").write_text("key-of-b\n", encoding="utf-8")
    return path


def test_each_target_is_its_profile_with_its_own_settings_over_it(config: Path) -> None:
    a, b = load_workspaces(config, env={})
    assert (a.name, b.name) == ("brand-a", "brand-b")
    assert a.profile.base_url == "https://api.example.com"  # from the profile
    assert a.profile.api_key_env == "BRAND_A_KEY"  # its own
    assert dict(a.profile.limits) == {"max_deletes": 5, "max_change_ratio": 0.3}  # merged
    assert dict(a.profile.columns) == {"Ziel": "url"}
    assert a.files == ("links/a", "/abs/b.csv")  # relative to the config's folder
    assert a.keywords() == {"mode": "mirror", "scope_domains": ("go.brand-a.com",)}
    assert b.profile.owner_tag is None  # no profile named: nothing inherited
    assert b.files == ("links/b.xlsx",) and b.keywords()["mode"] is None


def test_a_target_resolves_with_its_own_key_only(config: Path) -> None:
    a, b = load_workspaces(config, env={})
    settings = a.settings(env={"BRAND_A_KEY": "key-of-a", "PROD_KEY": "key-of-prod"})
    assert settings.target.api_key == "key-of-a"
    assert settings.target.label == "https://api.example.com (target brand-a)"
    assert b.settings(env={}).target.api_key == "key-of-b"
    with pytest.raises(ConfigError, match=r"target brand-a: .*\$BRAND_A_KEY, which is not set"):
        a.settings(env={"PROD_KEY": "key-of-prod"})


def test_a_shared_key_or_url_in_the_environment_is_refused(config: Path) -> None:
    with pytest.raises(ConfigError, match="one key is one workspace"):
        load_workspaces(config, env={"LINKSYNC_API_KEY": "k"})
    with pytest.raises(ConfigError, match="unset LINKSYNC_BASE_URL"):
        load_workspaces(config, env={"LINKSYNC_BASE_URL": "https://x.example.com"})
    # ...unless a target names LINKSYNC_API_KEY as its own key variable
    text = config.read_text(encoding="utf-8").replace("BRAND_A_KEY", "LINKSYNC_API_KEY")
    config.write_text(text, encoding="utf-8")
    a, _ = load_workspaces(config, env={"LINKSYNC_API_KEY": "k"})
    assert a.settings(env={"LINKSYNC_API_KEY": "k"}).target.api_key == "k"


def test_names_select_targets_in_the_order_given(config: Path) -> None:
    assert [w.name for w in load_workspaces(config, ["brand-b", "brand-a"], env={})] == [
        "brand-b",
        "brand-a",
    ]
    with pytest.raises(ConfigError, match="no target 'brand-c'; targets: brand-a, brand-b"):
        load_workspaces(config, ["brand-c"], env={})
    with pytest.raises(ConfigError, match="more than once"):
        load_workspaces(config, ["brand-a", "brand-a"], env={})


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"files": None}, "files must name the link files"),
        ({"files": []}, "files must name the link files"),
        ({"mode": "sometimes"}, "mode must be one of"),
        ({"scope_domains": [1]}, "scope_domains must be a list of domains"),
        ({"colour": "red"}, r"unknown key\(s\) colour"),
        ({"profile": "staging"}, "no profile 'staging'"),
        ({"api_key": "secret"}, "put the key in api_key_env or api_key_file"),
        ({"concurrency": 0}, "concurrency must be an integer"),
    ],
)
def test_a_wrong_target_is_refused_by_name(
    config: Path, change: dict[str, object], message: str
) -> None:
    data = yaml.safe_load(config.read_text(encoding="utf-8"))
    data["targets"]["brand-b"].update(change)
    config.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        load_workspaces(config, env={})


def test_names_are_fit_for_file_names(config: Path) -> None:
    data = yaml.safe_load(config.read_text(encoding="utf-8"))
    data["targets"]["../escape"] = data["targets"].pop("brand-b")
    config.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(ConfigError, match="letters, digits"):
        load_workspaces(config, env={})


def test_a_config_without_targets(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="needs a config file"):
        load_workspaces(cwd=tmp_path, env={})
    (tmp_path / "linksync.yaml").write_text("default_domain: go.example.com\n", "utf-8")
    with pytest.raises(ConfigError, match="no targets: block"):
        load_workspaces(cwd=tmp_path, env={})


def test_single_runs_still_read_the_file_with_targets(config: Path) -> None:
    assert load_profile(config, None).name == "prod"
    assert resolve(env={"PROD_KEY": "k"}).target.label == "https://api.example.com (profile prod)"
    flat = config.parent / "flat.yaml"
    flat.write_text("owner_tag: mine\ntargets:\n  x: {files: [a.csv]}\n", encoding="utf-8")
    assert load_profile(flat, None).owner_tag == "mine"


def test_the_example_config_has_targets() -> None:
    example = Path(__file__).resolve().parents[2] / "configs" / "linksync.example.yaml"
    workspaces = load_workspaces(example, env={})
    assert len(workspaces) >= 2
    assert all(w.files for w in workspaces)


def test_network_keys_and_flags_reach_each_target(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from linksync.config import NetworkFlags

    config.write_text(
        CONFIG.replace(
            "    owner_tag: managed\n", "    owner_tag: managed\n    trust: system\n"
        ).replace("    mode: mirror\n", "    mode: mirror\n    proxy: http://proxy.corp:3128\n"),
        encoding="utf-8",
    )
    a, b = load_workspaces(config, env={})
    assert a.profile.proxy == "http://proxy.corp:3128" and a.profile.trust == "system"
    ta = a.settings(env={"BRAND_A_KEY": "key-of-a"}).target
    assert ta.system_trust and ta.describe().endswith("via proxy http://proxy.corp:3128")
    flags = NetworkFlags(proxy="http://flag.corp:8080")
    tb = b.settings(env={}, network=flags).target
    assert tb.proxy == "http://flag.corp:8080" and not tb.system_trust
