"""No silent sandbox, from Python (``linksync.config.choice``): the library never falls
back to the built-in sandbox. It is the target when asked for (``resolve(sandbox=True)``,
``LINKSYNC_SANDBOX=1``, a profile's ``sandbox: true``; a front end's ``sandbox="if-unset"`` for a
person at a terminal); otherwise a ``ConfigError`` names the ways to set a target, and
nothing is done (no sandbox file appears)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import linksync
from linksync.config import resolve
from linksync.config.targets import load_workspaces
from linksync.errors import ConfigError
from linksync.sandbox import DEFAULT_FULL_KEY

WAYS = (
    "no target configured",
    "LINKSYNC_BASE_URL and LINKSYNC_API_KEY",
    "--base-url",
    "--profile",
    "--sandbox",
    "LINKSYNC_SANDBOX=1",
    "sandbox: true",
    "resolve(sandbox=True)",
)


@pytest.fixture
def bare(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with nothing configured: no variable, no linksync.yaml."""
    for name in ("LINKSYNC_BASE_URL", "LINKSYNC_API_KEY", "LINKSYNC_PROFILE", "LINKSYNC_SANDBOX"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "links.csv").write_text("slug,url\nx,https://example.com/x\n", encoding="utf-8")
    return tmp_path


def test_nothing_configured_is_a_config_error_naming_the_ways(bare: Path) -> None:
    with pytest.raises(ConfigError) as info:
        resolve()
    assert all(way in str(info.value) for way in WAYS), str(info.value)
    for call in (linksync.plan, linksync.apply):
        with pytest.raises(ConfigError, match="no target configured"):
            call(["links.csv"])
    assert not (bare / ".linksync" / "sandbox.db").exists()  # nothing was written anywhere


@pytest.mark.parametrize(
    ("how", "env", "profile"),
    [
        ({"sandbox": True}, {}, None),
        ({}, {"LINKSYNC_SANDBOX": "1"}, None),
        ({}, {"LINKSYNC_SANDBOX": "true"}, None),
        ({}, {}, {"sandbox": True}),
        ({"sandbox": "if-unset"}, {}, None),  # a person at a terminal (the CLI decides)
    ],
    ids=["keyword", "env-1", "env-true", "profile", "terminal-fallback"],
)
def test_the_sandbox_asked_for(
    bare: Path, how: dict[str, bool], env: dict[str, str], profile: dict[str, object] | None
) -> None:
    if profile is not None:
        (bare / "linksync.yaml").write_text(yaml.safe_dump(profile), encoding="utf-8")
    settings = resolve(env=env, **how)
    assert settings.target.is_sandbox
    assert settings.target.describe() == "target: built-in sandbox (.linksync/sandbox.db)"
    results = linksync.apply(["links.csv"], settings=settings)
    assert results.exit_code == 0 and results.writes.describe() == "1 created"


def test_the_variable_permits_and_never_redirects_a_named_service(bare: Path) -> None:
    env = {"LINKSYNC_SANDBOX": "1", "LINKSYNC_API_KEY": "k"}
    named = resolve(env={**env, "LINKSYNC_BASE_URL": "https://api.example.com"}).target
    assert not named.is_sandbox and named.base_url == "https://api.example.com"
    (bare / "linksync.yaml").write_text("base_url: https://prod.example.com\n", encoding="utf-8")
    assert resolve(env=env).target.base_url == "https://prod.example.com"
    # The flag (keyword) does: flags > environment > file.
    env["LINKSYNC_BASE_URL"] = "https://api.example.com"
    assert resolve(env=env, sandbox=True).target.is_sandbox


def test_the_sandbox_flag_over_a_profile_reads_not_its_key(bare: Path) -> None:
    (bare / "linksync.yaml").write_text(
        "base_url: https://prod.example.com\napi_key_env: PROD_KEY\n", encoding="utf-8"
    )
    with pytest.raises(ConfigError, match=r"PROD_KEY, which is not set"):
        resolve(env={})
    target = resolve(env={}, sandbox=True).target  # the profile's key is the service's
    assert target.is_sandbox and target.api_key == DEFAULT_FULL_KEY


@pytest.mark.parametrize(
    ("kwargs", "env", "config", "words"),
    [
        ({"sandbox": True, "base_url": "https://x.example.com"}, {}, None, "give one"),
        ({}, {"LINKSYNC_SANDBOX": "maybe"}, None, "LINKSYNC_SANDBOX must be 1"),
        ({}, {}, {"base_url": "https://x.example.com", "sandbox": True}, "keep one"),
        ({}, {}, {"sandbox": "yes"}, "sandbox must be true or false"),
        ({}, {}, {"sandbox_db": "team.db"}, "config names sandbox_db/sandbox_config"),
    ],
)
def test_what_is_refused(
    bare: Path,
    kwargs: dict[str, object],
    env: dict[str, str],
    config: dict[str, object] | None,
    words: str,
) -> None:
    if config is not None:
        (bare / "linksync.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        resolve(env=env, **kwargs)  # type: ignore[arg-type]
    assert words in str(info.value)


TARGETS = """\
targets:
  asked:
    sandbox: true
    sandbox_db: asked.db
    files: [links.csv]
  silent:
    sandbox_db: silent.db
    files: [links.csv]
"""


def test_a_target_that_names_no_service_fails_alone(bare: Path) -> None:
    (bare / "linksync.yaml").write_text(TARGETS, encoding="utf-8")
    every = linksync.apply_all(env={})
    asked, silent = every["asked"], every["silent"]
    assert asked.status == "ok" and asked.writes.describe() == "1 created"
    assert silent.exit_code == 2 and silent.error_constant == "CONFIG_ERROR"
    assert "target silent: no base_url" in (silent.error or "")
    assert "sandbox: true" in (silent.error or "")
    assert not (bare / "silent.db").exists()
    # LINKSYNC_SANDBOX=1 (or load_workspaces(sandbox=True)) lets it use the sandbox.
    again = linksync.apply_all(env={"LINKSYNC_SANDBOX": "1"})
    assert again["silent"].status == "ok" and again.exit_code == 0
    (ws,) = load_workspaces(names=["silent"], env={}, sandbox=True)
    assert ws.settings(env={}).target.is_sandbox
