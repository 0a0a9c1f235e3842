"""The network flags through the CLI (exit codes, files, every output): ``--proxy`` /
``proxy:`` / the environment's proxies, ``--ca-bundle`` / ``ca_bundle:``,
``SSL_CERT_FILE``, and a certificate refused (exit 2, one attempt, nothing written)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from netfakes import Pki, Relay

from linksync.api import LinkServiceClient
from linksync.cli import cli
from linksync.sandbox import DEFAULT_FULL_KEY

CSV = "slug,url\nalpha,https://example.com/a\nbeta,https://example.com/b\n"
SECRET = "s3cret-proxy-pw"


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("LINKSYNC_BASE_URL", "LINKSYNC_PROFILE", "SSL_CERT_FILE", "SSL_CERT_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LINKSYNC_API_KEY", DEFAULT_FULL_KEY)
    monkeypatch.setenv("LINKSYNC_SANDBOX", "1")  # the sandbox target asked for (no terminal)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "links.csv").write_text(CSV, encoding="utf-8")
    return tmp_path


@pytest.fixture
def tls_front(live_sandbox: str, pki: Pki) -> Iterator[Relay]:
    port = int(live_sandbox.rsplit(":", 1)[1])
    with Relay(tls=pki.server_context(), upstream=("127.0.0.1", port)) as front:
        yield front


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def slugs(base_url: str) -> list[str]:
    async def go() -> list[str]:
        async with LinkServiceClient(base_url, DEFAULT_FULL_KEY) as c:
            return sorted(link.slug for link in await c.list_links())

    return asyncio.run(go())


def everything(result: Result, *files: Path) -> str:
    """Every output of a run: stdout, stderr and the files it wrote."""
    texts = [result.stdout, result.stderr]
    texts += [f.read_text(encoding="utf-8") for f in files if f.exists()]
    texts += [p.read_text(encoding="utf-8") for p in Path(".linksync").rglob("*.jsonl")]
    return "\n".join(texts)


def test_proxy_flag_carries_the_run_and_its_credentials_never_show(
    workdir: Path, live_sandbox: str
) -> None:
    with Relay() as proxy:
        given = proxy.url.replace("http://", f"http://alice:{SECRET}@")
        planned = run("plan", "links.csv", "--base-url", live_sandbox, "--proxy", given,
                      "--format", "json", "--log-format", "json")  # fmt: skip
        applied = run("apply", "links.csv", "--yes", "--base-url", live_sandbox, "--proxy",
                      given, "--report", "report.json", "--log-format", "json")  # fmt: skip
    assert planned.exit_code == 0, planned.output
    assert applied.exit_code == 0, applied.output
    assert f"via proxy {proxy.url}" in planned.stderr
    assert f"via proxy {proxy.url}" in applied.stderr
    assert len(proxy.lines) >= 4 and all(a and a.startswith("Basic ") for a in proxy.auth)
    assert any(line.startswith(f"POST {live_sandbox}/api/v1/links") for line in proxy.lines)
    shown = everything(planned) + everything(applied, workdir / "report.json")
    assert SECRET not in shown and "alice:" not in shown
    assert slugs(live_sandbox) == ["alpha", "beta"]


def test_a_profile_proxy_and_an_env_proxy_are_announced(
    workdir: Path, live_sandbox: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Relay() as proxy:
        authed = proxy.url.replace("http://", f"http://bob:{SECRET}@")
        (workdir / "linksync.yaml").write_text(
            f"base_url: {live_sandbox}\nproxy: {authed}\n", encoding="utf-8"
        )
        by_profile = run("plan", "links.csv")
        (workdir / "linksync.yaml").unlink()
        monkeypatch.setenv("HTTP_PROXY", authed)
        by_env = run("plan", "links.csv", "--base-url", live_sandbox)
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        before = len(proxy.lines)
        bypassed = run("plan", "links.csv", "--base-url", live_sandbox)
    for result in (by_profile, by_env):
        assert result.exit_code == 0, result.output
        assert f"via proxy {proxy.url}" in result.stderr
        assert SECRET not in everything(result)
    assert bypassed.exit_code == 0 and "via proxy" not in bypassed.stderr
    assert len(proxy.lines) == before  # NO_PROXY: straight to the target
    assert proxy.auth[0] == proxy.auth[-1] and proxy.auth[0] is not None


def test_a_proxy_refusing_the_credentials_stops_with_exit_2_and_never_shows_them(
    workdir: Path, live_sandbox: str, tls_front: Relay, pki: Pki
) -> None:
    with Relay(refuse="401 Unauthorized") as proxy:
        given = proxy.url.replace("http://", f"http://alice:{SECRET}@")
        result = run("apply", "links.csv", "--yes", "--base-url", tls_front.url,
                     "--proxy", given, "--ca-bundle", str(pki.ca), "--report", "r.json",
                     "--log-format", "json")  # fmt: skip
    assert result.exit_code == 2, result.output  # nothing written: a usage error
    assert "PROXY_AUTH_ERROR" in result.output and f"the proxy {proxy.url}" in result.output
    assert "--proxy http://USER:PASSWORD@HOST:PORT" in result.output
    assert "outcome unknown" not in result.output
    assert len(proxy.lines) == 1  # never retried
    assert SECRET not in everything(result, workdir / "r.json")
    assert slugs(live_sandbox) == []


def test_an_untrusted_certificate_stops_the_run_with_exit_2(
    workdir: Path, tls_front: Relay, live_sandbox: str
) -> None:
    result = run("apply", "links.csv", "--yes", "--base-url", tls_front.url)
    assert result.exit_code == 2, result.output
    text = result.output
    assert "CERTIFICATE_ERROR" in text and "127.0.0.1" in text
    assert "unable to get local issuer certificate" in text
    for fix in ("SSL_CERT_FILE=/path/ca.pem", "--ca-bundle FILE", "--system-trust"):
        assert fix in text
    assert "code None" not in text
    assert tls_front.connections == 1  # one attempt: never retried
    assert slugs(live_sandbox) == []  # nothing written


def test_ca_bundle_flag_profile_key_and_ssl_cert_file(
    workdir: Path, tls_front: Relay, live_sandbox: str, pki: Pki, monkeypatch: pytest.MonkeyPatch
) -> None:
    by_flag = run("apply", "links.csv", "--yes", "--base-url", tls_front.url,
                  "--ca-bundle", str(pki.ca))  # fmt: skip
    assert by_flag.exit_code == 0, by_flag.output
    assert slugs(live_sandbox) == ["alpha", "beta"]
    (workdir / "certs").mkdir()
    (workdir / "certs" / "ca.pem").write_bytes(pki.ca.read_bytes())
    (workdir / "linksync.yaml").write_text(
        f"base_url: {tls_front.url}\nca_bundle: certs/ca.pem\n", encoding="utf-8"
    )
    by_profile = run("plan", "links.csv", "--format", "json")
    assert by_profile.exit_code == 0, by_profile.output
    assert json.loads(by_profile.stdout)["counts"]["unchanged"] == 2
    (workdir / "linksync.yaml").unlink()
    monkeypatch.setenv("SSL_CERT_FILE", str(pki.ca))
    by_env = run("plan", "links.csv", "--base-url", tls_front.url)
    assert by_env.exit_code == 0, by_env.output


def test_a_missing_ca_bundle_is_refused_before_any_request(workdir: Path, tls_front: Relay) -> None:
    result = run("apply", "links.csv", "--yes", "--base-url", tls_front.url,
                 "--ca-bundle", "nowhere/ca.pem")  # fmt: skip
    assert result.exit_code == 2
    assert "nowhere/ca.pem" in result.output and "does not exist" in result.output


def test_the_flags_are_in_the_help() -> None:
    shown = run("apply", "--help").output
    for flag in ("--proxy URL", "--ca-bundle FILE", "--system-trust", "NO_PROXY", "trust:"):
        assert flag in shown


def test_a_run_over_targets_says_which_target_uses_a_proxy(
    workdir: Path, live_sandbox: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LINKSYNC_API_KEY")
    monkeypatch.setenv("KEY_A", DEFAULT_FULL_KEY)
    with Relay() as proxy:
        authed = proxy.url.replace("http://", f"http://erin:{SECRET}@")
        (workdir / "linksync.yaml").write_text(
            "targets:\n"
            f"  a:\n    base_url: {live_sandbox}\n    api_key_env: KEY_A\n"
            f"    proxy: {authed}\n    files: [links.csv]\n"
            "  b:\n    sandbox_db: b.db\n    files: [links.csv]\n",
            encoding="utf-8",
        )
        result = run("plan", "--all", "--log-format", "json")
    assert result.exit_code == 0, result.output
    assert f"[a] via proxy {proxy.url}" in result.stderr and "[b] via" not in result.stderr
    assert proxy.lines and SECRET not in everything(result)


def test_a_report_may_not_overwrite_the_ca_file(workdir: Path, tls_front: Relay, pki: Pki) -> None:
    ca = workdir / "ca.pem"
    ca.write_bytes(pki.ca.read_bytes())
    result = run("apply", "links.csv", "--yes", "--base-url", tls_front.url,
                 "--ca-bundle", "ca.pem", "--report", "ca.pem")  # fmt: skip
    assert result.exit_code == 2 and "CA file" in result.output
    assert ca.read_bytes() == pki.ca.read_bytes() and tls_front.connections == 0
