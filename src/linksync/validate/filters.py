"""Column filters for validation: cheap tests over a whole column of values.

Each ``fast_*_ok`` returns, per value, True only when the scalar rule of
``linksync.rules`` would accept the value too (a sound subset: the tests in
``tests/validate/test_filters.py`` compare both on tricky and random inputs). Values the
filter does not pass go to the scalar rule, which decides and words the message.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from linksync import rules
from linksync.validate.suggest import suggest_slug, suggest_url, use

#: scheme://host[:port] followed by the end, a path, a query or a fragment. The host
#: is ASCII labels of 1-63 characters (letters, digits, ``_``, inner ``-``), the first
#: not starting with ``-``, an optional final dot; no user info (left to the rule).
_AUTHORITY = (
    r"[A-Za-z0-9_][A-Za-z0-9_-]{0,62}(?:\.[A-Za-z0-9_-]{1,63})*\.?"
    r"(?::[0-9]{1,4})?"
)
_URL_PREFIX = r"[hH][tT][tT][pP][sS]?://" + _AUTHORITY
URL_PREFIX_RE = re.compile(_URL_PREFIX + r"(?=[/?#]|\Z)", re.ASCII)
#: A URL the filter passes: that prefix, then nothing or a path, a query or a fragment
#: of printable ASCII (no space, no control character).
_URL_RE = re.compile(_URL_PREFIX + r"(?:[/?#][!-~]*)?", re.ASCII)

#: Values that pass ``_URL_RE``, each followed by a line break (possessive: a line
#: that fails ends the match there, without trying the lines before again).
_URL_LINES = re.compile(r"(?:" + _URL_RE.pattern + r"\n)*+", re.ASCII)
#: Values joined at a time by ``_url_ok``.
_URL_BLOCK = 1 << 16

#: What a slug is made of.
_SLUG_BYTES = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-"


def per_distinct(values: Sequence[Any], test: Any, *, sample: int = 2_000) -> np.ndarray:
    """``test`` (a column test) run on the distinct values only when they repeat a lot
    (iOS/Android targets, expiries, domains), mapped back to every value. A column
    whose values at ``sample`` places along it are mostly distinct is tested whole (hashing a
    million distinct URLs costs more than it saves)."""
    n = len(values)
    try:
        if mostly_distinct(values, sample):
            return np.asarray(test(values), dtype=bool)
        distinct = list(dict.fromkeys(values))
    except TypeError:  # unhashable values (specs built in Python): test them all
        return np.asarray(test(values), dtype=bool)
    if len(distinct) * 2 > n:
        return np.asarray(test(values), dtype=bool)
    verdict = dict(zip(distinct, np.asarray(test(distinct), dtype=bool).tolist(), strict=True))
    return np.fromiter(map(verdict.__getitem__, values), dtype=bool, count=n)


def mostly_distinct(values: Sequence[Any], sample: int = 2_000) -> bool:
    """The values at ``sample`` places along a long column are mostly distinct (then
    testing the distinct values only would not pay). Raises TypeError for values
    that cannot be hashed."""
    n = len(values)
    picked = values[:: n // sample] if n > sample * 2 else ()
    return len(set(picked)) * 2 > len(picked) > 0


def fast_url_ok(values: Sequence[Any]) -> np.ndarray:
    """Per value: True when ``rules.check_url`` surely accepts it (``_URL_RE``)."""
    return per_distinct(values, _url_ok)


def _url_ok(values: Sequence[Any]) -> np.ndarray:
    """``_URL_RE`` on every value: a block of values joined by line breaks at once
    (``_URL_LINES``: no value can hold a line break, so a line is a value), value by
    value in a block that does not pass whole (its values are not all text, or one
    fails)."""
    n = len(values)
    out = np.zeros(n, dtype=bool)
    lines = _URL_LINES.match
    for start in range(0, n, _URL_BLOCK):
        block = values[start : start + _URL_BLOCK]
        try:
            text = "\n".join(block) + "\n"
        except TypeError:  # not all text
            text = ""
        whole = lines(text) if text and text.count("\n") == len(block) else None
        if whole is not None and whole.end() == len(text):
            out[start : start + len(block)] = True
        else:
            out[start : start + len(block)] = _each_url_ok(block)
    return out


def _each_url_ok(values: Sequence[Any]) -> np.ndarray:
    full = _URL_RE.fullmatch
    return np.fromiter(
        (isinstance(v, str) and full(v) is not None for v in values),
        dtype=bool,
        count=len(values),
    )


def fast_slug_ok(values: Sequence[Any]) -> np.ndarray:
    """Per value: True when ``rules.check_slug`` surely accepts it.

    The usual column (letters, digits and single inner hyphens, none too long) is
    tested on the values joined by line breaks; then only reserved words fail."""
    n = len(values)
    try:
        text = "\n".join(values)
    except TypeError:  # not all text
        text = ""
    reserved = rules.RESERVED_SLUGS
    if (
        n
        and all(values)
        and text.isascii()
        and text.encode("ascii").translate(None, _SLUG_BYTES) == b"\n" * (n - 1)
        and "--" not in text
        and "\n-" not in text
        and "-\n" not in text
        and text[0] != "-"
        and text[-1] != "-"
        and max(map(len, values)) <= rules.MAX_SLUG_BYTES
    ):
        low = text.lower()
        lowered = values if low == text else low.split("\n")  # no new text when all lower
        if reserved.isdisjoint(lowered):
            return np.ones(n, dtype=bool)
        return ~np.fromiter(map(reserved.__contains__, lowered), dtype=bool, count=n)
    full = rules.SLUG_RE.fullmatch
    limit = rules.MAX_SLUG_BYTES
    return np.fromiter(
        (
            isinstance(v, str)
            and len(v) <= limit
            and full(v) is not None
            and v.lower() not in reserved
            for v in values
        ),
        dtype=bool,
        count=n,
    )


def has_invisible(values: Sequence[Any]) -> np.ndarray:
    """Per value: True when it may hold an invisible character (a superset; the rule's
    ``find_invisible`` decides). Printable ASCII (space included) never does."""
    n = len(values)
    return np.fromiter(
        (isinstance(v, str) and not (v.isascii() and v.isprintable()) for v in values),
        dtype=bool,
        count=n,
    )


def describe_value(text: str, limit: int = 80) -> str:
    """A value quoted for a message, invisible characters escaped, long ones cut."""
    shown = text if len(text) <= limit else text[: limit - 1] + "…"
    return repr(shown)


def url_message(url: str) -> str:
    """Why ``rules.check_url`` rejects ``url``, in words, with a near URL that passes
    when there is one (``linksync.validate.suggest``)."""
    return _why_url(url) + use(suggest_url(url))


def _why_url(url: str) -> str:
    if rules.find_invisible(url):
        return f"{describe_value(url)} contains {rules.describe_invisible(url)}"
    spaces = [i + 1 for i, ch in enumerate(url) if ch.isspace()]
    if spaces:
        where = ", ".join(map(str, spaces[:5]))
        return f"{describe_value(url)} contains whitespace at position {where}"
    if not url[:8].lower().startswith(("http://", "https://")):
        return f"{describe_value(url)} must start with http:// or https://"
    return f"{describe_value(url)} is not a valid URL (host or port malformed)"


def slug_message(slug: str, constant: str) -> str:
    """Why ``rules.check_slug`` rejects ``slug``, in words, with a near slug that passes
    when there is one (``linksync.validate.suggest``)."""
    return _why_slug(slug, constant) + use(suggest_slug(slug))


def _why_slug(slug: str, constant: str) -> str:
    if constant == "RESERVED_SLUG":
        return f"{describe_value(slug)} is reserved for system use; pick another slug"
    if rules.find_invisible(slug):
        return f"{describe_value(slug)} contains {rules.describe_invisible(slug)}"
    if len(slug.encode("utf-8")) > rules.MAX_SLUG_BYTES:
        return f"slug is longer than {rules.MAX_SLUG_BYTES} bytes"
    return (
        f"{describe_value(slug)} is not a valid slug: letters and digits, "
        "with single hyphens between groups (e.g. spring-sale-2026)"
    )
