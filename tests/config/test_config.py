"""Targets and profiles: precedence flags > env > file > defaults, key sources, redaction."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from linksync.config import DEFAULT_CONCURRENCY, Settings, load_profile, resolve
from linksync.config.connect import open_client
from linksync.errors import ConfigError
from linksync.sandbox import DEFAULT_FULL_KEY

SECRET = "prod-secret-key-9f8e7d"

CONFIG = {
    "default_profile": "prod",
    "profiles": {
        "prod": {
            "base_url": "https://api.example.com",
            "api_key_env": "PROD_KEY",
            "default_domain": "go.example.com",
            "concurrency": 4,
            "owner_tag": "managed",
            "columns": {"Destination": "url"},
            "limits": {"max_delete_percent": 10},
        },
        "filekey": {"base_url": "https://api.example.com", "api_key_file": "keys/k.txt"},
        "box": {"sandbox": True, "sandbox_db": "state/box.db"},
    },
}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "linksync.yaml").write_text(yaml.safe_dump(CONFIG))
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys" / "k.txt").write_text("file-key-123\n")
    return tmp_path


def test_the_sandbox_asked_for(tmp_path: Path) -> None:
    s = resolve(env={}, cwd=tmp_path, sandbox=True)
    t = s.target
    assert t.is_sandbox and t.api_key == DEFAULT_FULL_KEY
    assert t.sandbox_db == str(tmp_path / ".linksync/sandbox.db")
    assert t.describe() == "target: built-in sandbox (.linksync/sandbox.db)"
    assert s.concurrency == DEFAULT_CONCURRENCY == 64 and s.profile.name is None


def test_default_profile_from_file(home: Path) -> None:
    s = resolve(env={"PROD_KEY": SECRET}, cwd=home)
    assert isinstance(s, Settings)
    assert (s.target.base_url, s.target.api_key) == ("https://api.example.com", SECRET)
    assert s.target.describe() == "target: https://api.example.com (profile prod)"
    prof = s.profile
    assert (s.default_domain, prof.owner_tag, s.concurrency) == ("go.example.com", "managed", 4)
    assert prof.columns == {"Destination": "url"} and s.limits == {"max_delete_percent": 10}


def test_env_beats_file_and_flags_beat_env(home: Path, tmp_path: Path) -> None:
    env = {"PROD_KEY": SECRET, "LINKSYNC_BASE_URL": "https://env.example.com",
           "LINKSYNC_API_KEY": "env-key"}  # fmt: skip
    s = resolve(env=env, cwd=home)
    assert (s.target.base_url, s.target.api_key) == ("https://env.example.com", "env-key")
    keyfile = tmp_path / "flag.key"
    keyfile.write_text("flag-key\n")
    s = resolve(
        env=env, cwd=home, base_url="https://flag.example.com", api_key_file=str(keyfile),
        concurrency=2,
    )  # fmt: skip
    assert (s.target.base_url, s.target.api_key) == ("https://flag.example.com", "flag-key")
    assert s.concurrency == 2


def test_profile_from_env_and_flag(home: Path) -> None:
    s = resolve(env={"LINKSYNC_PROFILE": "filekey"}, cwd=home)
    assert s.target.api_key == "file-key-123"  # relative to the config file
    s = resolve(env={"LINKSYNC_PROFILE": "filekey"}, cwd=home, profile="box")
    assert s.target.is_sandbox and s.target.sandbox_db == str(home / "state/box.db")
    assert s.target.describe() == f"target: built-in sandbox ({home / 'state/box.db'})"


def test_env_key_on_the_sandbox(tmp_path: Path) -> None:
    env = {"LINKSYNC_API_KEY": "sandbox-read-only-key"}
    t = resolve(env=env, cwd=tmp_path, sandbox=True).target
    assert t.is_sandbox and t.api_key == "sandbox-read-only-key"


@pytest.mark.parametrize(
    ("kwargs", "env", "words"),
    [
        ({}, {}, "$PROD_KEY, which is not set"),
        ({}, {"PROD_KEY": ""}, "$PROD_KEY, which is set but empty"),
        ({}, {"PROD_KEY": "  \n"}, "$PROD_KEY, which is set but empty"),
        ({"profile": "nope"}, {}, "no profile 'nope'"),
        ({"config": "missing.yaml"}, {}, "does not exist"),
        ({"base_url": "https://x.example.com", "profile": "box"}, {}, "no API key"),
    ],
)
def test_config_errors(home: Path, kwargs: dict[str, str], env: dict[str, str], words: str) -> None:
    with pytest.raises(ConfigError) as info:
        resolve(env=env, cwd=home, **kwargs)
    assert words in str(info.value)


@pytest.mark.parametrize(
    ("profile", "words"),
    [
        ({"base_url": "https://x", "api_key": "k"}, "unknown key(s) api_key"),
        ({"ownertag": "owner:web"}, "unknown key(s) ownertag (ownertag: did you mean owner_tag?)"),
        ({"default-domain": "go.x"}, "(default-domain: did you mean default_domain?)"),
        ({"concurrency": 0}, "concurrency"),
        ({"concurrency": "8"}, "concurrency"),
        ({"columns": ["url"]}, "columns must be a mapping"),
        ({"insecure": "yes"}, "insecure"),
        ({"timeout": -1}, "timeout"),
        ({"trust": "everything"}, "trust must be one of default, system"),
        ({"proxy": "proxy.corp:3128"}, "profile 'p': proxy: a proxy is http|https://"),
        ({"proxy": 3128}, "proxy must be a non-empty string"),
    ],
)
def test_profile_validation(tmp_path: Path, profile: dict[str, object], words: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"profiles": {"p": profile}}))
    with pytest.raises(ConfigError) as info:
        load_profile(path, None)
    assert words in str(info.value)


def test_several_profiles_without_default_need_a_choice(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"profiles": {"a": {}, "b": {}}}))
    with pytest.raises(ConfigError, match="choose a profile"):
        load_profile(path, None)
    assert load_profile(path, "b").name == "b"


def test_key_file_must_hold_one_key(tmp_path: Path) -> None:
    bad = tmp_path / "k"
    bad.write_text("two words\n")
    with pytest.raises(ConfigError, match="exactly one key"):
        resolve(env={}, cwd=tmp_path, base_url="https://x.example.com", api_key_file=str(bad))


def test_repr_and_errors_never_show_the_key(home: Path) -> None:
    s = resolve(env={"PROD_KEY": SECRET}, cwd=home)
    assert SECRET not in repr(s) and SECRET not in repr(s.target) and SECRET not in str(s)
    client = open_client(s.target)
    assert SECRET not in repr(client)


def test_example_config_is_valid() -> None:
    example = Path(__file__).resolve().parents[2] / "configs" / "linksync.example.yaml"
    for name in ("sandbox", "local-server", "production"):
        assert load_profile(example, name).name == name
    prod = load_profile(example, "production")
    assert prod.api_key_env == "LINKSYNC_PROD_KEY" and prod.columns


def test_network_keys_flags_over_the_profile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from linksync.config import NetworkFlags

    for name in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "certs").mkdir()
    ca = tmp_path / "certs" / "ca.pem"
    ca.write_text(_a_ca_pem(tmp_path))
    profile = {
        "base_url": "https://api.example.com",
        "api_key_env": "K",
        "proxy": "http://carol:pw-in-profile@proxy.corp:3128",
        "ca_bundle": "certs/ca.pem",  # relative to the config file
        "trust": "system",
    }
    (tmp_path / "linksync.yaml").write_text(yaml.safe_dump(profile))
    env = {"K": SECRET}
    t = resolve(env=env, cwd=tmp_path).target
    assert (t.proxy, t.ca_bundle, t.system_trust) == (profile["proxy"], str(ca), True)
    assert t.describe() == "target: https://api.example.com via proxy http://proxy.corp:3128"
    assert "pw-in-profile" not in repr(t) and "pw-in-profile" in t.secrets()
    flags = NetworkFlags(proxy="http://other:8080", ca_bundle=str(ca))
    t = resolve(env=env, cwd=tmp_path, network=flags).target
    assert t.proxy == "http://other:8080" and t.describe().endswith("via proxy http://other:8080")
    with pytest.raises(ConfigError, match=r"--ca-bundle: CA file nowhere\.pem does not exist"):
        resolve(env=env, cwd=tmp_path, network=NetworkFlags(ca_bundle="nowhere.pem"))
    ca.unlink()
    with pytest.raises(ConfigError, match=r"ca_bundle: CA file .*ca\.pem does not exist"):
        resolve(env=env, cwd=tmp_path)


def test_the_banner_names_an_env_proxy_unless_no_proxy_exempts_the_host(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://dave:pw-in-env@proxy.corp:3128")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    env = {"LINKSYNC_API_KEY": SECRET}
    t = resolve(env=env, base_url="https://api.example.com", cwd=tmp_path).target
    assert t.describe().endswith("via proxy http://proxy.corp:3128")
    assert "pw-in-env" in t.secrets() and "pw-in-env" not in t.describe()
    monkeypatch.setenv("NO_PROXY", ".example.com")
    t = resolve(env=env, base_url="https://api.example.com", cwd=tmp_path).target
    assert t.describe() == "target: https://api.example.com" and t.secrets() == (SECRET,)
    sandbox = resolve(env={}, cwd=tmp_path, sandbox=True).target
    assert "via proxy" not in sandbox.describe()  # in-process: no network


def _a_ca_pem(folder: Path) -> str:
    """A CA certificate (the openssl command makes it)."""
    import shutil
    import subprocess

    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is needed to make a CA for this test")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=t", "-keyout", "k.pem", "-out", "c.pem"],
        cwd=folder, check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return (folder / "c.pem").read_text()
