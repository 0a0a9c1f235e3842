"""Where requests go: the base URL check (https, or plain http to loopback only; no
credentials in it), and the small helpers that shape a request (proxies and trust:
``linksync.api.network``)."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from linksync.errors import ConfigError

API_PREFIX = "/api/v1"
_LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


def is_loopback(host: str) -> bool:
    host = host.strip("[]").lower()
    if host in _LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_base_url(base_url: str, *, allow_insecure: bool) -> str:
    """The normalised base URL (no trailing slash, no ``/api/v1``). Plain http is refused
    for hosts other than loopback unless ``allow_insecure``."""
    parts = urlsplit(base_url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"base URL must be http(s)://host[:port][/path], got {base_url!r}")
    if parts.username or parts.password:
        raise ConfigError("base URL must not carry credentials; give the key separately")
    if parts.scheme == "http" and not allow_insecure and not is_loopback(parts.hostname):
        raise ConfigError(
            f"refusing to send the API key over plain http to {parts.hostname}; "
            "use https:// or pass --insecure (insecure: true in the profile)"
        )
    path = parts.path.rstrip("/")
    if path.endswith(API_PREFIX):
        path = path[: -len(API_PREFIX)]
    return f"{parts.scheme}://{parts.netloc}{path}"


def describe_exception(exc: Exception) -> str:
    name = type(exc).__name__
    text = str(exc).strip()
    return f"{name}: {text}" if text else name
