"""``linksync sandbox serve`` / ``reset`` and the settings file."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from linksync.cli import cli
from linksync.errors import ConfigError
from linksync.sandbox import SandboxSettings, create_app
from linksync.sandbox.settings import parse_latency, resolve_settings

from .conftest import client_for

CONFIG = Path(__file__).resolve().parents[2] / "configs" / "sandbox.yaml"


def test_config_file_equals_the_defaults_in_code() -> None:
    assert SandboxSettings.load(CONFIG) == SandboxSettings()


def test_flags_override_the_file(tmp_path: Path) -> None:
    cfg = tmp_path / "s.yaml"
    cfg.write_text(
        "keys: {full: k-full}\nrate_limit: {requests: 5, window_s: 2}\n"
        "faults: {latency_ms: '10-20', fail_503: 0.1}\nserver: {backlog: 5}\n"
    )
    assert resolve_settings(cfg).backlog == 5
    assert resolve_settings(cfg, backlog=511).backlog == 511
    s = resolve_settings(cfg, rate_limit=7, read_key=None)
    assert (s.full_key, s.read_key, s.rate_limit, s.rate_window_s) == (
        "k-full",
        "sandbox-read-only-key",
        7,
        2.0,
    )
    assert (s.latency_ms, s.fail_503) == ((10, 20), 0.1)


@pytest.mark.parametrize(
    "text",
    [
        "nope: {}",
        "keys: {master: x}",
        "keys: [1, 2]",
        "rate_limit: {requests: 'many'}",
        "rate_limit: {requests: 0}",
        "faults: {drop: 2}",
        "faults: {latency_ms: '20-10'}",
        "server: {backlog: 0}",
        "server: {backlog: many}",
        "server: {queue: 5}",
        "keys: {full: same, read: same}",
        "domains: {system: 'not a host'}",
        "- a list",
        "keys: {full: [unclosed",
    ],
)
def test_bad_config_is_a_config_error(tmp_path: Path, text: str) -> None:
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(text)
    with pytest.raises(ConfigError):
        SandboxSettings.load(cfg)


def test_parse_latency() -> None:
    assert parse_latency("20-80") == (20, 80)
    assert parse_latency("5") == (5, 5)
    with pytest.raises(ConfigError):
        parse_latency("fast")


def test_serve_with_a_bad_config_exits_2(tmp_path: Path) -> None:
    cfg = tmp_path / "bad.yaml"
    cfg.write_text("faults: {drop: 5}")
    result = CliRunner().invoke(cli, ["sandbox", "serve", "--config", str(cfg), "--port", "0"])
    assert result.exit_code == 2
    assert "drop must be a probability" in result.output


def test_reset_clears_the_state_file(tmp_path: Path) -> None:
    db = tmp_path / ".linksync" / "sandbox.db"

    async def make_link() -> None:
        async with client_for(create_app(SandboxSettings(), str(db))) as http:
            r = await http.post("/api/v1/links", json={"url": "https://e.com", "slug": "keep"})
            assert r.status_code == 201

    asyncio.run(make_link())
    assert db.exists()
    runner = CliRunner()
    result = runner.invoke(cli, ["sandbox", "reset", "--db", str(db)])
    assert result.exit_code == 0 and "Cleared" in result.output
    assert not db.exists()

    async def check_empty() -> None:
        async with client_for(create_app(SandboxSettings(), str(db))) as http:
            assert (await http.get("/api/v1/links/keep")).status_code == 404

    asyncio.run(check_empty())
    result = runner.invoke(cli, ["sandbox", "reset", "--db", str(tmp_path / "none.db")])
    assert result.exit_code == 0 and "nothing to clear" in result.output


def test_serve_prints_the_real_url_and_serves(tmp_path: Path) -> None:
    cmd = [
        sys.executable,
        "-c",
        "from linksync.cli import main; main()",
        "sandbox",
        "serve",
        "--port",
        "0",
        "--memory",
        "--full-key",
        "k-full",
        "--read-key",
        "k-read",
        "--rate-limit",
        "2",
        "--rate-window",
        "60",
        "--system-domain",
        "s.example",
        "--link-quota",
        "1",
        "--backlog",
        "5",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("linksync sandbox listening on http://127.0.0.1:")
        base = first.split()[-1]
        assert not base.endswith(":0")
        banner = [proc.stdout.readline() for _ in range(8)]
        assert any(line.split() == ["listen", "backlog", "5"] for line in banner)
        assert any("k-full" in line for line in banner)
        assert any("k-read" in line for line in banner)
        headers = {"Authorization": "Bearer k-full"}
        with httpx.Client(base_url=base, headers=headers, timeout=10) as http:
            r = http.post("/api/v1/links", json={"url": "https://e.com", "slug": "one"})
            assert r.status_code == 201
            assert r.json()["data"]["shortUrl"] == "https://s.example/one"
            r = http.post("/api/v1/links", json={"url": "https://e.com", "slug": "two"})
            assert r.status_code == 403 and r.json()["error"]["constant"] == "QUOTA_EXCEEDED"
            r = http.get("/api/v1/links")
            assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
    finally:
        proc.terminate()
        proc.communicate(timeout=10)
