"""The service's value rules (no I/O, no HTTP) and ``rules.timestamps`` (the one ISO 8601
parser, how linksync writes instants).

Both the sandbox (which rejects a request) and local validation (which flags a row
before any request) import these, so the two can never disagree. Every check returns
a constant of ``linksync.errors.ERRORS`` or ``None`` when the value is fine.

Lowest layer, beside ``linksync.errors``, ``linksync.model`` and ``linksync.safe``: it may
import ``linksync.errors`` (``timestamps``: the ``ConfigError`` of an unknown zone) and
the standard library, nothing above.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime
from urllib.parse import urlsplit

from linksync.rules.timestamps import parse_iso

#: The interface's slug pattern ``/^[a-z0-9]+(?:-[a-z0-9]+)*$/i``. ASCII only: Python's
#: IGNORECASE alone would let ``[a-z]`` match the Kelvin sign or the long s. Use
#: ``SLUG_RE.fullmatch`` (``$`` would accept a trailing newline).
SLUG_RE: re.Pattern[str] = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*", re.IGNORECASE | re.ASCII)

#: Slug length limit, in bytes of UTF-8.
MAX_SLUG_BYTES = 2048

#: Tags per link, characters per tag, characters per description (the sandbox's
#: decisions where the interface says "not shown"; local validation uses the same).
MAX_TAGS = 100
MAX_TAG_CHARS = 100
MAX_DESCRIPTION_CHARS = 10_000

#: Length of a slug the service generates when none is given.
GENERATED_SLUG_LENGTH = 6

#: Words reserved for system use (compared lower-cased). The interface names api, auth,
#: dashboard and docs as examples; the rest are the usual routes of a web service.
RESERVED_SLUGS: frozenset[str] = frozenset(
    {
        "about",
        "account",
        "accounts",
        "admin",
        "analytics",
        "api",
        "app",
        "apps",
        "assets",
        "auth",
        "billing",
        "blog",
        "callback",
        "cdn",
        "contact",
        "dashboard",
        "docs",
        "domains",
        "favicon",
        "health",
        "healthz",
        "help",
        "links",
        "login",
        "logout",
        "oauth",
        "pricing",
        "privacy",
        "register",
        "robots",
        "settings",
        "signin",
        "signup",
        "sitemap",
        "static",
        "status",
        "support",
        "terms",
        "tools",
        "verify",
        "www",
    }
)

#: Characters that do not show but change a value (the usual paste-from-editor harm)
#: beyond those ``find_invisible`` catches by category: any control (Cc), format (Cf:
#: zero-width, bidi, BOM, soft hyphen...), separator (Zs besides the ASCII space, Zl,
#: Zp) or private-use (Co) character.
INVISIBLE_CHARS: frozenset[str] = frozenset(
    [chr(c) for c in range(0xFE00, 0xFE10)]  # variation selectors
    + [
        "\u034f",  # combining grapheme joiner
        "\u115f",  # hangul choseong filler
        "\u1160",  # hangul jungseong filler
        "\u17b4",  # khmer vowel inherent aq
        "\u17b5",  # khmer vowel inherent aa
        "\u2800",  # braille pattern blank
        "\u3164",  # hangul filler
        "\uffa0",  # halfwidth hangul filler
    ]
)

_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp", "Co"})


def is_invisible(ch: str) -> bool:
    """True for a character that should never be inside a URL or slug unseen."""
    if ch == " ":
        return False
    return ch in INVISIBLE_CHARS or unicodedata.category(ch) in _INVISIBLE_CATEGORIES


def find_invisible(s: str) -> list[tuple[int, str]]:
    """Every invisible character of ``s`` as (index, character), in order.

    The ASCII space is not invisible (a URL with a space is rejected as malformed by
    ``check_url`` instead). Use ``describe_char`` to name a character in a message.
    """
    if s.isascii() and s.isprintable():
        return []
    return [(i, ch) for i, ch in enumerate(s) if not " " <= ch <= "~" and is_invisible(ch)]


def strip_invisible(s: str) -> str:
    """``s`` without its invisible characters (for an explicit --fix-invisible)."""
    return "".join(ch for ch in s if not is_invisible(ch))


def describe_char(ch: str) -> str:
    """'U+200B ZERO WIDTH SPACE' (control characters have no name: 'U+0009')."""
    name = unicodedata.name(ch, "")
    return f"U+{ord(ch):04X} {name}".rstrip()


def describe_invisible(s: str) -> str:
    """A short message naming the invisible characters of ``s`` and where they are."""
    found = find_invisible(s)
    shown = ", ".join(f"{describe_char(ch)} at position {i + 1}" for i, ch in found[:5])
    more = f" and {len(found) - 5} more" if len(found) > 5 else ""
    return f"invisible character(s): {shown}{more}" if found else ""


def _valid_host(host: str) -> bool:
    if host.startswith("["):  # IPv6 literal, already checked by urlsplit
        return True
    if not host or host.startswith(".") or host.startswith("-") or ".." in host:
        return False
    try:
        host.rstrip(".").encode("idna")
    except UnicodeError:
        return False
    return all(ch.isalnum() or ch in "-._" for ch in host)


def check_url(s: str) -> str | None:
    """``INVALID_URL`` unless ``s`` is an http(s) URL with a host and nothing hidden.

    Rejected: another scheme or none, no host, a bad port, any whitespace (leading,
    trailing or inside), any invisible character (``find_invisible``).
    """
    if not isinstance(s, str) or not s:
        return "INVALID_URL"
    if find_invisible(s) or any(ch.isspace() for ch in s):
        return "INVALID_URL"
    lower = s[:8].lower()
    if not (lower.startswith("http://") or lower.startswith("https://")):
        return "INVALID_URL"
    try:
        parts = urlsplit(s)
        _ = parts.port  # raises ValueError on a malformed port
    except ValueError:
        return "INVALID_URL"
    netloc_host = parts.netloc.rpartition("@")[2]
    if netloc_host.startswith("["):
        host = netloc_host.partition("]")[0] + "]"
    else:
        host = netloc_host.rpartition(":")[0] if ":" in netloc_host else netloc_host
    if not parts.hostname or not _valid_host(host):
        return "INVALID_URL"
    return None


def check_slug(s: str) -> str | None:
    """``INVALID_SLUG`` (pattern or length) or ``RESERVED_SLUG``, else ``None``."""
    if not isinstance(s, str) or not s:
        return "INVALID_SLUG"
    if len(s.encode("utf-8")) > MAX_SLUG_BYTES:
        return "INVALID_SLUG"
    if SLUG_RE.fullmatch(s) is None:
        return "INVALID_SLUG"
    if s.lower() in RESERVED_SLUGS:
        return "RESERVED_SLUG"
    return None


def check_tag(tag: str) -> str | None:
    """Why the service refuses ``tag`` (INVALID_REQUEST), or None. A line break (Alt+Enter
    in a cell) and any invisible character count as invisible."""
    if not isinstance(tag, str) or not tag.strip() or find_invisible(tag):
        return "a tag must be visible non-empty text"
    if len(tag) > MAX_TAG_CHARS:
        return f"a tag is at most {MAX_TAG_CHARS} characters"
    return None


def check_tags(tags: tuple[str, ...] | list[str]) -> str | None:
    """Why the service refuses this list of tags, or None."""
    for tag in tags:
        why = check_tag(tag)
        if why is not None:
            return why
    if len(dict.fromkeys(tags)) > MAX_TAGS:
        return f"at most {MAX_TAGS} tags per link"
    return None


def check_description(text: str) -> str | None:
    """Why the service refuses this description, or None."""
    if len(text) > MAX_DESCRIPTION_CHARS:
        return f"description is at most {MAX_DESCRIPTION_CHARS} characters"
    return None


def parse_expiry(s: str, now: datetime, *, assume_utc: bool = False) -> datetime | str:
    """The expiry instant in UTC, or ``"INVALID_EXPIRY"`` when malformed or not after
    ``now`` (an aware datetime)."""
    dt = parse_iso(s, assume_utc=assume_utc)  # the one parser (linksync.rules.timestamps)
    if dt is None or dt <= now:
        return "INVALID_EXPIRY"
    return dt


_HOST_LABEL_RE = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)", re.IGNORECASE | re.ASCII)


def check_hostname(s: str) -> bool:
    """True for a DNS host name of at least two labels (``go.example.com``): ASCII
    letters, digits and inner hyphens, labels of 1-63, at most 253 characters, a
    top-level label that is not all digits. Used for custom domains."""
    if not isinstance(s, str) or not s or len(s) > 253:
        return False
    labels = s.split(".")
    if len(labels) < 2:
        return False
    if not all(_HOST_LABEL_RE.fullmatch(label) for label in labels):
        return False
    return not labels[-1].isdigit()
