"""The shape of a service base URL, checked when the target is resolved, before any
request: http(s), a host, a port in 1..65535, no query, and never credentials (a URL
with a user name or password is refused without repeating them)."""

from __future__ import annotations

from urllib.parse import urlsplit

from linksync.errors import ConfigError


def _shown_url(url: str) -> str:
    """``url`` fit for a message: anything that could be credentials replaced."""
    text = url.strip()
    head, sep, rest = text.partition("//")
    if sep:
        netloc, slash, path = rest.partition("/")
        if "@" in netloc:
            netloc = "***@" + netloc.rpartition("@")[2]
        text = f"{head}{sep}{netloc}{slash}{path}"
    elif "@" in text:
        text = "***@" + text.rpartition("@")[2]
    return text[:200]


def check_url(url: str, where: str = "base URL") -> str:
    """``url`` when it can be a service base URL: http(s), a host, a port in 1..65535,
    no credentials. ``ConfigError`` otherwise, never repeating credentials."""
    text = url.strip()
    if any(c.isspace() or ord(c) < 32 for c in text):
        raise ConfigError(f"{where} must not contain spaces or control characters")
    try:
        parts = urlsplit(text)
        userinfo = "@" in parts.netloc or (not parts.netloc and "@" in text)
        port = None if userinfo else parts.port
    except ValueError as exc:
        if "@" in text:
            userinfo = True
            port = None
        else:
            raise ConfigError(
                f"{where} {_shown_url(text)!r} is not valid: the port must be a number "
                f"1..65535 ({exc})"
            ) from None
    if userinfo:
        raise ConfigError(
            f"{where} must not carry a user name or password ({_shown_url(text)}); give "
            "the key with LINKSYNC_API_KEY, --api-key-file or the profile's api_key_env"
        )
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{where} must be http(s)://host[:port][/path], got {_shown_url(text)!r}")
    if port is not None and not 1 <= port <= 65535:
        raise ConfigError(f"{where} {_shown_url(text)!r}: the port must be 1..65535")
    if parts.query or parts.fragment:
        raise ConfigError(f"{where} must not have a query or fragment ({_shown_url(text)})")
    return text


def target_name(url: str) -> str:
    """How a target is named in every output: scheme, host and port, as given
    (``http://127.0.0.1:8443``), never a user name, a password, the path (it may hold a
    token), a query or a fragment. ``url`` is one ``check_url`` passed."""
    parts = urlsplit(url.strip())
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 address keeps its brackets
        host = f"[{host}]"
    port = parts.port
    return f"{parts.scheme.lower()}://{host}{f':{port}' if port is not None else ''}"
