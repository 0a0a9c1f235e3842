"""tinyproxy as the only way to the service: CONNECT for the https target, absolute-form
requests for the http one, with proxy authentication.

nginx answers 403 to every client but 127.0.0.3, and tinyproxy opens its outgoing
connections from 127.0.0.3 (``Bind``): a request that did not go through the proxy
cannot succeed, and nginx's access log says where each one came from.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
import yaml

from .conftest import Stack
from .pki import Pki
from .servers import PROXY_PASSWORD, PROXY_USER, Nginx, Site, Tinyproxy
from .workload import (
    AUTH,
    Outcome,
    apply_then_plan,
    assert_untouched,
    assert_workload_done,
    run,
    write_source,
)

OUTGOING = "127.0.0.3"


def _behind_proxy(stack: Stack, pki: Pki | None) -> tuple[Nginx, Tinyproxy]:
    nginx = stack.nginx(Site(tls=pki, allow_only=OUTGOING))
    proxy = stack.tinyproxy(bind=OUTGOING, connect_port=nginx.daemon.port)
    return nginx, proxy


def _assert_all_through_proxy(nginx: Nginx) -> None:
    lines = nginx.access_lines()
    assert lines, "no request reached nginx"
    direct = [(x.remote_addr, x.method, x.target) for x in lines if x.remote_addr != OUTGOING]
    assert direct == [], f"requests that did not come through the proxy: {direct}"


def _assert_proxy_said_without_credentials(outcome: Outcome) -> None:
    """The plan's header says a proxy is used; neither the proxy's password nor its
    user:password pair is in any output, the report, or any file the runs left in the
    working folder (journal)."""
    assert "proxy" in outcome.plan.stderr.lower(), outcome.plan.stderr
    seen = [outcome.texts()]
    seen += [p.read_text(errors="replace") for p in Path.cwd().rglob("*") if p.is_file()]
    for text in seen:
        assert PROXY_PASSWORD not in text
        assert f"{PROXY_USER}:" not in text


def test_the_target_answers_only_through_the_proxy(stack: Stack) -> None:
    nginx, proxy = _behind_proxy(stack, None)
    url = f"{nginx.base_url}/api/v1/organizations/current"
    with httpx.Client(headers=AUTH, trust_env=False) as direct:
        assert direct.get(url).status_code == 403
    anonymous = proxy.url.replace(f"{PROXY_USER}:{PROXY_PASSWORD}@", "")
    with httpx.Client(headers=AUTH, trust_env=False, proxy=anonymous) as bad:
        assert bad.get(url).status_code == 407  # the proxy wants its credentials
    with httpx.Client(headers=AUTH, trust_env=False, proxy=proxy.url) as proxied:
        assert proxied.get(url).status_code == 200
    assert proxy.requests() == [f"GET {url} HTTP/1.1"] * 2
    assert [x.remote_addr for x in nginx.access_lines()] == ["127.0.0.1", OUTGOING]


@pytest.mark.parametrize(
    "how", ["HTTPS_PROXY", "ALL_PROXY", "--proxy"], ids=["env-https", "env-all", "option"]
)
def test_https_target_through_connect(stack: Stack, pki: Pki, how: str) -> None:
    nginx, proxy = _behind_proxy(stack, pki)
    env = {"SSL_CERT_FILE": str(pki.ca_cert)}
    flags: tuple[str, ...] = ()
    if how == "--proxy":
        flags = ("--proxy", proxy.url)
    else:
        env[how] = proxy.url
    outcome = apply_then_plan(Path.cwd(), nginx.base_url, *flags, env=env)
    assert_workload_done(outcome, stack.sandbox_url)
    _assert_all_through_proxy(nginx)
    tunnels = proxy.requests()
    target = urlsplit(nginx.base_url).netloc
    assert tunnels and all(t == f"CONNECT {target} HTTP/1.1" for t in tunnels), tunnels
    _assert_proxy_said_without_credentials(outcome)


@pytest.mark.parametrize("how", ["HTTP_PROXY", "--proxy"], ids=["env-http", "option"])
def test_http_target_through_the_proxy(stack: Stack, how: str) -> None:
    nginx, proxy = _behind_proxy(stack, None)
    env: dict[str, str] = {}
    flags: tuple[str, ...] = ()
    if how == "--proxy":
        flags = ("--proxy", proxy.url)
    else:
        env[how] = proxy.url
    outcome = apply_then_plan(Path.cwd(), nginx.base_url, *flags, env=env)
    assert_workload_done(outcome, stack.sandbox_url)
    _assert_all_through_proxy(nginx)
    # one line in the proxy's log for each request nginx answered
    logged = Counter(proxy.requests())
    answered = Counter(
        f"{x.method} {nginx.base_url}{x.target} HTTP/1.1" for x in nginx.access_lines()
    )
    assert logged == answered
    _assert_proxy_said_without_credentials(outcome)


def test_no_proxy_sends_straight_to_the_target(stack: Stack, pki: Pki) -> None:
    nginx = stack.nginx(Site(tls=pki))  # reachable directly
    proxy = stack.tinyproxy(bind=OUTGOING, connect_port=nginx.daemon.port)
    env = {
        "SSL_CERT_FILE": str(pki.ca_cert),
        "HTTPS_PROXY": proxy.url,
        "HTTP_PROXY": proxy.url,
        "NO_PROXY": "localhost,127.0.0.1",
    }
    outcome = apply_then_plan(Path.cwd(), nginx.base_url, env=env)
    assert_workload_done(outcome, stack.sandbox_url)
    assert proxy.requests() == []
    assert {x.remote_addr for x in nginx.access_lines()} == {"127.0.0.1"}


def test_proxy_and_ca_bundle_from_the_profile(stack: Stack, pki: Pki, tmp_path: Path) -> None:
    nginx, proxy = _behind_proxy(stack, pki)
    config = tmp_path / "linksync.yaml"
    profile = {"proxy": proxy.url, "ca_bundle": str(pki.ca_cert)}
    config.write_text(yaml.safe_dump({"default_profile": "corp", "profiles": {"corp": profile}}))
    outcome = apply_then_plan(Path.cwd(), nginx.base_url, "--config", str(config), env={})
    assert_workload_done(outcome, stack.sandbox_url)
    _assert_all_through_proxy(nginx)
    assert proxy.requests(), "the proxy logged no tunnel"
    _assert_proxy_said_without_credentials(outcome)


def test_a_wrong_proxy_password_stops_the_run_with_nothing_written(stack: Stack, pki: Pki) -> None:
    nginx, proxy = _behind_proxy(stack, pki)
    wrong = proxy.url.replace(PROXY_PASSWORD, "not-the-password")
    env = {"SSL_CERT_FILE": str(pki.ca_cert), "HTTPS_PROXY": wrong}
    source = write_source(Path.cwd())
    r = run(["apply", str(source), "--yes", "--no-progress", "--base-url", nginx.base_url], env)
    assert r.exit_code == 2, r.output
    assert proxy.requests(), "the run did not ask the proxy"
    assert nginx.access_lines() == []
    assert_untouched(stack.sandbox_url)
    assert "not-the-password" not in r.output and PROXY_PASSWORD not in r.output
