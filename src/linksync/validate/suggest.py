"""A value that passes, when one is near the one a row holds: what a row's message
names after "use" (``'black friday' is not a valid slug ...: use `black-friday```).

Pure functions, no I/O. Each returns a value the same rules accept
(``linksync.rules``, which the sandbox applies too) or None when no value is near
enough to name: a suggestion is never applied, only shown on the row.

- ``suggest_slug``: ``black friday`` -> ``black-friday``, ``Summer_Sale`` ->
  ``Summer-Sale`` (the rule ignores case), ``café`` -> ``cafe``; a reserved word gets
  ``-link`` (``docs`` -> ``docs-link``); an over-long slug is cut.
- ``suggest_url``: ``example.com/x`` -> ``https://example.com/x``, surrounding spaces
  and invisible characters dropped, inner spaces written ``%20``.
- ``suggest_tag``: invisible characters and line breaks dropped, cut to the limit.
- ``suggest_domain``: ``https://Go.Example.com/`` -> ``go.example.com``.
- ``suggest_expiry``: ``31/03/2027 23:59`` -> ``2027-03-31 23:59`` when only one
  reading is possible (the day is past 12).
- ``use``: the words a message ends with (``: use `black-friday```), or "".
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime
from urllib.parse import quote

from linksync import rules
from linksync.rules.timestamps import parse_iso

_NOT_SLUG = re.compile(r"[^a-z0-9]+", re.IGNORECASE | re.ASCII)
_DAY_MONTH = re.compile(
    r"(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?", re.ASCII
)
_HOSTLIKE = re.compile(r"[a-z0-9-]+(?:\.[a-z0-9-]+)+(?::\d+)?(?:[/?#].*)?", re.I | re.S)


def _ascii(text: str) -> str:
    """Accents dropped (``café`` -> ``cafe``), invisible characters removed."""
    plain = unicodedata.normalize("NFKD", rules.strip_invisible(text))
    return "".join(ch for ch in plain if not unicodedata.combining(ch))


def suggest_slug(value: str) -> str | None:
    """A slug the service accepts, near ``value``, or None (nothing of it is left)."""
    slug = _NOT_SLUG.sub("-", _ascii(value)).strip("-")
    if not slug:
        return None
    if len(slug) > rules.MAX_SLUG_BYTES:
        slug = slug[: rules.MAX_SLUG_BYTES].rstrip("-")
    if slug.lower() in rules.RESERVED_SLUGS:
        slug = f"{slug}-link"
    if slug == value or rules.check_slug(slug) is not None:
        return None
    return slug


def suggest_url(value: str) -> str | None:
    """An http(s) URL the service accepts, near ``value``, or None."""
    url = rules.strip_invisible(value).strip()
    if not url[:8].lower().startswith(("http://", "https://")):
        if "://" in url or not _HOSTLIKE.fullmatch(url):
            return None
        url = f"https://{url}"
    url = quote(url, safe="".join(chr(c) for c in range(0x21, 0x7F)) + "%")
    if url == value or rules.check_url(url) is not None:
        return None
    return url


def suggest_tag(value: str) -> str | None:
    """A tag the service accepts, near ``value``, or None."""
    if not isinstance(value, str):
        return None
    tag = " ".join(rules.strip_invisible(value.replace("\n", " ")).split())
    tag = tag[: rules.MAX_TAG_CHARS].rstrip()
    if tag == value or rules.check_tag(tag) is not None:
        return None
    return tag


def suggest_domain(value: str) -> str | None:
    """A host name such as ``go.example.com`` near ``value``, or None."""
    host = rules.strip_invisible(value).strip().lower()
    host = re.sub(r"^[a-z][a-z0-9+.-]*://", "", host).split("/", 1)[0].rstrip(".")
    if host == value or not rules.check_hostname(host):
        return None
    return host


def suggest_expiry(value: str) -> str | None:
    """``31/03/2027 23:59`` -> ``2027-03-31 23:59`` when the date can be read only one
    way (its first number is a day past 12), else None."""
    m = _DAY_MONTH.fullmatch(value.strip())
    if m is None:
        return None
    day, month, year, hh, mm, ss = m.groups()
    if int(day) <= 12:
        return None  # 03/04/2027: April 3 or March 4, only the user knows
    try:
        when = datetime(int(year), int(month), int(day), int(hh or 0), int(mm or 0), int(ss or 0))
    except ValueError:
        return None
    if hh is None:
        return when.strftime("%Y-%m-%d")
    text = when.strftime("%Y-%m-%d %H:%M:%S" if ss else "%Y-%m-%d %H:%M")
    return text if parse_iso(text, assume_utc=True) is not None else None


def use(suggested: str | None) -> str:
    """``: use `black-friday``` for a message's end ("" for no suggestion)."""
    return f": use `{suggested}`" if suggested else ""
