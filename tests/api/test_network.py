"""Proxies, trust and compression as the client meets them (``linksync.api.network``):
a forward proxy and a TLS front of the tests' own (``netfakes``) in front of the
sandbox on a real 127.0.0.1 socket, and a CA made by the test."""

from __future__ import annotations

import base64
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest
import truststore
from api_fakes import no_retries
from netfakes import Pki, Relay
from starlette.middleware.gzip import GZipMiddleware

from linksync.api import LinkServiceClient, RetryPolicy, asgi_transport
from linksync.api.network import (
    Network,
    check_ca_bundle,
    check_proxy,
    proxy_for,
    proxy_secrets,
    shown_proxy,
    ssl_context,
)
from linksync.errors import (
    CertificateError,
    ConfigError,
    ProxyAuthError,
    TransportError,
    describe,
)
from linksync.sandbox import DEFAULT_FULL_KEY, SandboxSettings, create_app

KEY = DEFAULT_FULL_KEY


@pytest.fixture
def tls_sandbox(live_sandbox: str, pki: Pki) -> Iterator[Relay]:
    """The sandbox behind a TLS front whose certificate (for 127.0.0.1) ``pki.ca`` signed."""
    port = int(live_sandbox.rsplit(":", 1)[1])
    with Relay(tls=pki.server_context(), upstream=("127.0.0.1", port)) as front:
        yield front


def client(base_url: str, network: Network | None = None, **kw: object) -> LinkServiceClient:
    async def no_sleep(_: float) -> None:
        pass

    retry = RetryPolicy(sleep=no_sleep, random=lambda: 0.0)
    return LinkServiceClient(base_url, KEY, network=network, retry=retry, **kw)  # type: ignore[arg-type]


# --- proxies -----------------------------------------------------------------------------


async def test_an_env_proxy_carries_every_request(
    live_sandbox: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Relay() as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        async with client(live_sandbox) as c:
            assert c.proxy == proxy.url
            await c.create_link({"url": "https://e.com/a", "slug": "a"})
            assert [link.slug for link in await c.list_links()] == ["a"]
    assert len(proxy.lines) == 2
    assert proxy.lines[0] == f"POST {live_sandbox}/api/v1/links HTTP/1.1"  # absolute form
    assert proxy.lines[1].startswith(f"GET {live_sandbox}/api/v1/links?")


async def test_no_proxy_sends_its_hosts_straight(
    live_sandbox: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Relay() as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        monkeypatch.setenv("NO_PROXY", "example.com,127.0.0.1")
        async with client(live_sandbox) as c:
            assert c.proxy is None
            await c.get_organization()
    assert proxy.lines == []


async def test_a_given_proxy_with_credentials_authenticates(
    live_sandbox: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")  # a given proxy carries every request anyway
    with Relay() as proxy:
        given = proxy.url.replace("http://", "http://alice:pa%40ss-word@")
        async with client(live_sandbox, Network(proxy=given)) as c:
            await c.get_organization()
    assert len(proxy.lines) == 1
    assert proxy.auth == ["Basic " + base64.b64encode(b"alice:pa@ss-word").decode()]


@pytest.mark.parametrize(
    ("scheme", "refusal"),
    [
        ("http", "407 Proxy Authentication Required"),  # absolute form: the proxy's answer
        ("https", "407 Proxy Authentication Required"),  # CONNECT refused
        ("https", "401 Unauthorized"),  # CONNECT refused as tinyproxy does
    ],
)
async def test_a_proxy_refusing_the_credentials_stops_at_once_without_showing_them(
    live_sandbox: str, tls_sandbox: Relay, pki: Pki, scheme: str, refusal: str
) -> None:
    target = tls_sandbox.url if scheme == "https" else live_sandbox
    with Relay(refuse=refusal) as proxy:
        given = proxy.url.replace("http://", "http://alice:s3cret-word@")
        network = Network(proxy=given, ca_bundle=str(pki.ca))
        async with client(target, network) as c:
            with pytest.raises(ProxyAuthError) as info:
                await c.create_link({"url": "https://e.com/p", "slug": "p"})
    error = info.value
    assert len(proxy.lines) == 1 and error.attempts == 1  # never retried
    assert error.constant == "PROXY_AUTH_ERROR" and not error.retryable
    assert not error.outcome_unknown
    shown = f"{error} {describe(error)} {error!r}"
    assert f"the proxy {proxy.url} refused linksync's credentials ({refusal})" in shown
    assert "--proxy http://USER:PASSWORD@HOST:PORT" in shown and "HTTPS_PROXY" in shown
    assert "s3cret-word" not in shown and "alice" not in shown
    assert "outcome unknown" not in shown and "code None" not in shown
    assert tls_sandbox.connections == 0  # nothing went on to the service


async def test_a_proxy_asking_for_credentials_when_none_were_given_says_so(
    tls_sandbox: Relay, pki: Pki, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Relay(refuse_auth=True) as proxy:
        monkeypatch.setenv("HTTPS_PROXY", proxy.url)
        async with client(tls_sandbox.url, Network(ca_bundle=str(pki.ca))) as c:
            with pytest.raises(ProxyAuthError) as info:
                await c.get_organization()
    assert f"the proxy {proxy.url} asks for credentials, none were given" in str(info.value)
    assert len(proxy.lines) == 1


async def test_a_proxy_that_cannot_reach_the_service_is_retried_as_not_sent(
    tls_sandbox: Relay, pki: Pki
) -> None:
    with Relay(refuse="502 Bad Gateway") as proxy:
        async with client(tls_sandbox.url, Network(proxy=proxy.url, ca_bundle=str(pki.ca))) as c:
            with pytest.raises(TransportError) as info:
                await c.create_link({"url": "https://e.com/q", "slug": "q"})
            confirmations = c.stats.confirmations
    error = info.value
    assert not error.sent and not error.outcome_unknown
    assert f"{proxy.url} answered 502 Bad Gateway (before sending)" in str(error)
    assert error.attempts == 4 and len(proxy.lines) == 4  # retried like a refused connection
    assert all(line.startswith("CONNECT ") for line in proxy.lines)
    assert confirmations == 0  # nothing was sent: no read to confirm a create


async def test_https_goes_through_the_proxy_by_connect(
    tls_sandbox: Relay, pki: Pki, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Relay() as proxy:
        monkeypatch.setenv("HTTPS_PROXY", proxy.url)
        async with client(tls_sandbox.url, Network(ca_bundle=str(pki.ca))) as c:
            await c.create_link({"url": "https://e.com/t", "slug": "t"})
            await c.get_link("t")
    # One tunnel, kept alive for both requests: the proxy sees only the CONNECT.
    assert proxy.lines == [f"CONNECT 127.0.0.1:{tls_sandbox.port} HTTP/1.1"]


@pytest.mark.parametrize("scheme", ["https", "HTTPS"])
async def test_a_tls_proxy_is_verified_with_the_ca_given_whatever_the_case_of_its_scheme(
    live_sandbox: str, pki: Pki, scheme: str
) -> None:
    """A proxy spoken to over TLS is verified with the CA file given, its scheme written
    in capitals too (``HTTPS://``: not a default context that does not hold the CA)."""
    with Relay(tls=pki.server_context()) as proxy:
        url = proxy.url.replace("https://", f"{scheme}://", 1)
        async with client(live_sandbox, Network(proxy=url, ca_bundle=str(pki.ca))) as c:
            assert (await c.get_organization()).id
    assert proxy.lines == [f"GET {live_sandbox}/api/v1/organizations/current HTTP/1.1"]


def test_proxy_for_follows_httpx_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "proxy.corp:3128")  # no scheme: http:// (as httpx)
    monkeypatch.setenv("HTTP_PROXY", "http://plain.corp:3128")
    monkeypatch.setenv("NO_PROXY", ".internal.example, example.org, 10.0.0.1")
    assert proxy_for("https://api.example.com") == "http://proxy.corp:3128"
    assert proxy_for("http://127.0.0.1:8000") == "http://plain.corp:3128"
    assert proxy_for("https://svc.internal.example") is None  # suffix rule
    assert proxy_for("https://internal.example") == "http://proxy.corp:3128"  # not ".x"
    assert proxy_for("https://www.example.org") is None  # example.org covers subdomains
    assert proxy_for("https://badexample.org") == "http://proxy.corp:3128"
    assert proxy_for("https://10.0.0.1") is None
    given = "http://u:p@given:1"
    assert proxy_for("https://svc.internal.example", given) == given  # given: every request
    monkeypatch.setenv("NO_PROXY", "*")
    assert proxy_for("https://api.example.com") is None
    monkeypatch.delenv("NO_PROXY")
    monkeypatch.delenv("HTTPS_PROXY")
    monkeypatch.delenv("HTTP_PROXY")
    monkeypatch.setenv("ALL_PROXY", "http://all.corp:8080")
    assert proxy_for("https://api.example.com") == "http://all.corp:8080"


def test_proxy_urls_are_checked_and_shown_without_credentials() -> None:
    assert check_proxy(" http://u:p@proxy:3128 ") == "http://u:p@proxy:3128"
    for bad in ("proxy:3128", "ftp://proxy", "http://", "http://proxy:port"):
        with pytest.raises(ConfigError) as info:
            check_proxy(bad)
        assert "--proxy" in str(info.value)
    with pytest.raises(ConfigError) as info:
        check_proxy("socks4://user:hunter22@proxy:1080")
    assert "hunter22" not in str(info.value)
    assert shown_proxy("http://alice:s3cret@proxy.corp:3128") == "http://proxy.corp:3128"
    assert shown_proxy("http://[::1]:3128") == "http://[::1]:3128"
    assert set(proxy_secrets("http://alice:a%2Fb@proxy:1")) == {"a%2Fb", "a/b"}
    assert proxy_secrets("http://proxy:1") == ()
    assert "s3cret" not in repr(Network(proxy="http://alice:s3cret@proxy:1"))


# --- trust ------------------------------------------------------------------------------


async def test_a_ca_bundle_is_trusted(tls_sandbox: Relay, pki: Pki) -> None:
    async with client(tls_sandbox.url, Network(ca_bundle=str(pki.ca))) as c:
        assert (await c.get_organization()).id


async def test_ssl_cert_file_is_trusted(
    tls_sandbox: Relay, pki: Pki, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(pki.ca))
    async with client(tls_sandbox.url) as c:
        assert (await c.get_organization()).id


async def test_an_unknown_ca_is_terminal_and_says_how_to_fix_it(tls_sandbox: Relay) -> None:
    async with client(tls_sandbox.url) as c:
        with pytest.raises(CertificateError) as info:
            await c.get_organization()
        assert c.stats.retries == 0
    assert tls_sandbox.connections == 1
    err = info.value
    assert err.attempts == 1 and not err.retryable and err.constant == "CERTIFICATE_ERROR"
    text = describe(err)
    assert "127.0.0.1" in text and "unable to get local issuer certificate" in text
    for fix in ("SSL_CERT_FILE=/path/ca.pem", "--ca-bundle FILE", "ca_bundle:", "--system-trust",
                "trust: system"):  # fmt: skip
        assert fix in text
    assert not text.rstrip().endswith("]")  # no "[code None]", no empty brackets


async def test_a_name_mismatch_is_named(live_sandbox: str, pki: Pki) -> None:
    port = int(live_sandbox.rsplit(":", 1)[1])
    ctx = pki.server_context(wrong_name=True)
    with Relay(tls=ctx, upstream=("127.0.0.1", port)) as front:
        async with client(front.url, Network(ca_bundle=str(pki.ca))) as c:
            with pytest.raises(CertificateError) as info:
                await c.get_organization()
    assert "mismatch" in info.value.message.lower()


async def test_the_system_store_does_not_know_a_private_ca(tls_sandbox: Relay) -> None:
    async with client(tls_sandbox.url, Network(system_trust=True)) as c:
        with pytest.raises(CertificateError):
            await c.get_organization()


def test_system_trust_is_a_truststore_context(pki: Pki) -> None:
    ctx = ssl_context(Network(system_trust=True))
    assert isinstance(ctx, truststore.SSLContext)
    assert ctx.verify_mode is ssl.CERT_REQUIRED and ctx.check_hostname
    both = ssl_context(Network(system_trust=True, ca_bundle=str(pki.ca)))
    assert isinstance(both, truststore.SSLContext)
    own = ssl_context(Network(ca_bundle=str(pki.ca)))
    assert isinstance(own, ssl.SSLContext) and not isinstance(own, truststore.SSLContext)
    assert ssl_context(Network()) is True  # httpx's default: certifi or SSL_CERT_FILE


def test_a_ca_bundle_must_exist_and_hold_certificates(tmp_path: Path, pki: Pki) -> None:
    assert check_ca_bundle(str(pki.ca)) == str(pki.ca)
    with pytest.raises(ConfigError, match=r"missing\.pem does not exist"):
        check_ca_bundle(str(tmp_path / "missing.pem"))
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate\n")
    with pytest.raises(ConfigError, match=r"junk\.pem holds no usable certificate"):
        check_ca_bundle(str(junk), "ca_bundle")


async def test_a_refused_connection_has_no_code_none(unused_tcp_port: int) -> None:
    async with client(f"http://127.0.0.1:{unused_tcp_port}") as c:
        c.retry = no_retries()
        with pytest.raises(TransportError) as info:
            await c.get_organization()
    text = describe(info.value)
    assert "TRANSPORT_ERROR" in text and "code None" not in text and "[" not in text


# --- compression ------------------------------------------------------------------------


async def test_a_gzipped_list_page_is_decoded() -> None:
    seen: list[str] = []
    app = create_app(SandboxSettings(rate_limit=1_000_000), ":memory:")
    gz = GZipMiddleware(app, minimum_size=100)

    async def recording(scope, receive, send):  # type: ignore[no-untyped-def]
        async def spy(message):  # type: ignore[no-untyped-def]
            if message["type"] == "http.response.start":
                headers = dict(message["headers"])
                seen.append(headers.get(b"content-encoding", b"").decode())
            await send(message)

        await gz(scope, receive, spy)

    transport = asgi_transport(recording)
    async with LinkServiceClient(
        "http://sandbox.local", KEY, transport=transport, allow_insecure=True
    ) as c:
        for i in range(30):
            await c.create_link({"url": f"https://example.com/page/{i}", "slug": f"p{i}"})
        links = await c.list_links()
    assert len(links) == 30 and links[0].url.startswith("https://example.com/page/")
    assert seen[-1] == "gzip"  # the list page came compressed, and was read
