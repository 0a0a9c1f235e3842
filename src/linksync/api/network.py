"""How the client reaches a service over the network: the proxy and the trust of TLS.

- Proxies: httpx's own rules. With no ``--proxy`` (profile ``proxy:``), the environment's
  ``HTTPS_PROXY`` / ``HTTP_PROXY`` / ``ALL_PROXY`` (either case) apply, with ``NO_PROXY``
  host, suffix and address rules (``httpx._utils.get_environment_proxies``); a proxy
  given explicitly carries every request (httpx ignores the environment then).
  ``proxy_for`` answers which proxy a base URL goes through, by those rules: the
  transport sends every request through it (all go to the one base URL), and the
  run's banner names it; ``shown_proxy`` is a proxy URL without its credentials.
- Trust: ``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` (httpx's default context reads them), a CA
  file (``--ca-bundle`` / ``ca_bundle:``), or the operating system's trust store
  through ``truststore`` (``--system-trust`` / ``trust: system``).
- A certificate that does not verify is terminal: ``certificate_error`` turns the
  httpx error into :class:`~linksync.errors.CertificateError`, naming the host, the
  reason and the three ways to fix it.
- So is a proxy that refuses linksync's credentials (407, or 401 to CONNECT):
  ``proxy_failure`` makes it a :class:`~linksync.errors.ProxyAuthError` naming the
  proxy (without its credentials) and where to give them. Any other refusal of the
  proxy (502, 503: it could not reach the service) happened before the request was
  sent: a transport error "before sending", retried like a refused connection.
- A kept-alive connection the server closes just as a request goes out on it (nginx's
  ``keepalive_timeout``, ``keepalive_requests``): ``ConnectionTrace`` (a connection
  opened or reused, the head of an answer received: ``linksync.api.aio`` notes them,
  an httpcore transport tells them through httpx's ``trace`` request extension) tells
  that the failed attempt reused a connection and got no byte of answer;
  ``network_failure`` marks such a transport error ``reused``, which the retry policy
  retries at once, on a budget of its own (``RetryPolicy``).

The network's transport (``linksync.api.aio``) raises httpx's errors, so these rules
read the same for it as for any httpx transport.
"""

from __future__ import annotations

import re
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx

from linksync.api.urls import describe_exception
from linksync.errors import ApiError, CertificateError, ConfigError, ProxyAuthError

PROXY_SCHEMES = ("http", "https")


@dataclass(frozen=True, slots=True)
class Network:
    """The network settings of a target: a proxy URL (None: the environment's), a CA
    file to trust (None: the default), and whether to use the OS trust store."""

    proxy: str | None = None
    ca_bundle: str | None = None
    system_trust: bool = False

    def __repr__(self) -> str:
        proxy = shown_proxy(self.proxy) if self.proxy else None
        return (
            f"Network(proxy={proxy!r}, ca_bundle={self.ca_bundle!r}, "
            f"system_trust={self.system_trust})"
        )


def check_proxy(url: str, where: str = "--proxy") -> str:
    """The proxy URL, stripped; ``ConfigError`` when it is not scheme://host[:port]."""
    url = url.strip()
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        raise ConfigError(f"{where}: not a proxy URL (http://host:port)") from None
    if parts.scheme not in PROXY_SCHEMES or not parts.hostname:
        raise ConfigError(
            f"{where}: a proxy is {'|'.join(PROXY_SCHEMES)}://[user:password@]host:port, "
            f"got {shown_proxy(url)!r}"
        )
    return url


def check_ca_bundle(path: str, where: str = "--ca-bundle") -> str:
    """The CA file, checked to be a readable file of certificates (before any request)."""
    file = Path(path)
    if not file.is_file():
        raise ConfigError(f"{where}: CA file {path} does not exist (or is not a file)")
    try:
        ssl.create_default_context(cafile=str(file))
    except (OSError, ssl.SSLError) as exc:
        reason = getattr(exc, "reason", None) or getattr(exc, "strerror", None) or exc
        message = f"{where}: CA file {path} holds no usable certificate: {reason}"
        raise ConfigError(message) from None
    return str(file)


def proxy_secrets(proxy: str) -> tuple[str, ...]:
    """The password of a proxy URL (as written and decoded): kept out of every output,
    like the API key."""
    try:
        password = urlsplit(proxy).password
    except ValueError:
        return ()
    if not password:
        return ()
    return tuple({password, unquote(password)})


def shown_proxy(url: str) -> str:
    """A proxy URL as output may show it: scheme://host:port, never the credentials."""
    try:
        parts = urlsplit(url.strip() if "://" in url else f"http://{url.strip()}")
        host, port = parts.hostname or "", parts.port
    except ValueError:
        return "(a proxy URL that cannot be read)"
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}" + (f":{port}" if port else "")


def proxy_for(base_url: str, proxy: str | None = None) -> str | None:
    """The proxy requests to ``base_url`` go through (with its credentials, for httpx),
    by httpx's rules: ``proxy`` when given, else the environment's (None when
    ``NO_PROXY`` exempts the host, or none is set)."""
    if proxy:
        return proxy
    from httpx._utils import URLPattern, get_environment_proxies

    url = httpx.URL(base_url)
    # The order httpx gives its mounts (most specific first) and the first that matches.
    mounts = sorted((URLPattern(k), v) for k, v in get_environment_proxies().items())
    for pattern, value in mounts:
        if pattern.matches(url):
            return value
    return None


def ssl_context(network: Network) -> ssl.SSLContext | bool:
    """What httpx's ``verify=`` gets: True (httpx's default context: certifi, or
    ``SSL_CERT_FILE`` / ``SSL_CERT_DIR``), a context on the CA file, or on the OS store
    (plus the CA file when both are given)."""
    if network.system_trust:
        import truststore

        ctx: ssl.SSLContext = truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        if network.ca_bundle:
            ctx.load_verify_locations(cafile=network.ca_bundle)
        return ctx
    if network.ca_bundle:
        return ssl.create_default_context(cafile=network.ca_bundle)
    return True


FIXES = (
    "SSL_CERT_FILE=/path/ca.pem (the CA that signed it, in the environment), "
    "--ca-bundle FILE (profile ca_bundle: FILE), "
    "or --system-trust (profile trust: system: the operating system's trust store)"
)


def verification_failure(exc: BaseException) -> ssl.SSLCertVerificationError | None:
    """The certificate verification error behind an httpx error (its cause chain; the
    error OpenSSL raised, not aiohttp's subclass wrapping it)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ssl.SSLCertVerificationError) and hasattr(current, "verify_message"):
            return current
        current = current.__cause__ or current.__context__
    return None


def certificate_error(exc: BaseException, base_url: str, attempts: int) -> CertificateError | None:
    """The terminal error for a certificate that did not verify (None for another
    failure): the host, the reason, the three fixes."""
    found = verification_failure(exc)
    if found is None:
        return None
    host = urlsplit(base_url).hostname or base_url
    reason = (found.verify_message or found.reason or str(found)).rstrip(".")
    message = f"the TLS certificate of {host} was refused: {reason}. Fix: {FIXES}"
    return CertificateError(None, "CERTIFICATE_ERROR", message, attempts=attempts)


PROXY_FIXES = (
    "give the proxy's user and password in its URL: --proxy http://USER:PASSWORD@HOST:PORT, "
    "the profile's proxy:, or the HTTPS_PROXY variable (HTTP_PROXY for an http:// service); "
    "a character such as @ or : in the password is written %40, %3A"
)
#: httpcore's message for a CONNECT the proxy refused: "407 Proxy Authentication Required".
_PROXY_STATUS = re.compile(r"^\s*(\d{3})\b\s*(.*)$")


def proxy_auth_error(proxy: str | None, status: int, reason: str, attempts: int) -> ProxyAuthError:
    """The terminal error for a proxy refusing linksync's credentials: the proxy as
    output may show it, whether credentials were given, what it said, and the fix."""
    where = f"the proxy {shown_proxy(proxy)}" if proxy else "a proxy on the way to the service"
    given = bool(proxy) and bool(_user_of(proxy or ""))
    what = "refused linksync's credentials" if given else "asks for credentials, none were given"
    said = f"{status} {reason}".strip()
    message = f"{where} {what} ({said}); nothing was sent to the service. Fix: {PROXY_FIXES}"
    return ProxyAuthError(None, "PROXY_AUTH_ERROR", message, attempts=attempts)


def proxy_failure(text: str, proxy: str | None, attempts: int) -> ProxyAuthError | str:
    """What httpx's ``ProxyError`` (its ``text``, secrets taken out) means: the terminal
    error when the proxy refused the credentials (407, or 401 to CONNECT), else the
    words of a transport error (the proxy answered another status, or none). The text
    carries only what the proxy answered the CONNECT with, if anything
    (``"407 Proxy Authentication Required"``)."""
    answered = _PROXY_STATUS.match(text)
    where = f"the proxy {shown_proxy(proxy)}" if proxy else "the proxy"
    if answered is None:
        return f"ProxyError: {where}: {text}"
    status, reason = int(answered.group(1)), answered.group(2).strip()
    if status in (401, 407):
        return proxy_auth_error(proxy, status, reason, attempts)
    return f"ProxyError: {where} answered {status} {reason}".rstrip()


def _user_of(url: str) -> str | None:
    try:
        return urlsplit(url).username
    except ValueError:
        return None


class ConnectionTrace:
    """httpx's ``trace`` request extension for one attempt: whether the transport spoke
    to the network at all (``seen``; not through an in-process transport), opened a
    connection for it (``opened``), and received the head of an answer (``answered``).
    ``linksync.api.aio`` sets the same facts itself."""

    __slots__ = ("answered", "opened", "seen")

    def __init__(self) -> None:
        self.seen = self.opened = self.answered = False

    async def __call__(self, name: str, info: dict[str, Any]) -> None:
        self.seen = True
        if name.startswith(("connection.connect_tcp.", "connection.connect_unix_socket.")):
            self.opened = True
        elif name.endswith(".receive_response_headers.complete"):
            self.answered = True

    @property
    def reused_unanswered(self) -> bool:
        """The attempt went out on a connection kept alive from an earlier request, and
        not a byte of answer came back on it."""
        return self.seen and not self.opened and not self.answered


@dataclass(frozen=True, slots=True)
class Failure:
    """A transport failure in words: whether the request may have reached the service
    (``sent``), and whether it went out on a kept-alive connection the server closed
    without answering (``reused``)."""

    what: str
    sent: bool
    reused: bool = False


REUSED = "on a kept-alive connection the server closed without answering"


def network_failure(
    exc: Exception,
    *,
    base_url: str,
    proxy: str | None,
    attempts: int,
    trace: ConnectionTrace,
    redact: Callable[[str], str],
) -> ApiError | Failure:
    """What an httpx (or socket) error of one attempt means: a terminal error (a refused
    certificate, a proxy refusing the credentials), or a transport failure."""
    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout):
        refused = certificate_error(exc, base_url, attempts)
        return refused if refused is not None else Failure(describe_exception(exc), False)
    if isinstance(exc, httpx.ProxyError):  # the proxy refused the CONNECT: nothing sent on
        failure = proxy_failure(redact(str(exc)), proxy, attempts)
        return failure if isinstance(failure, ApiError) else Failure(failure, False)
    what = describe_exception(exc)
    if trace.reused_unanswered and not isinstance(exc, httpx.TimeoutException):
        return Failure(f"{what} ({REUSED})", True, reused=True)
    return Failure(what, True)
