"""Column filters for validation: cheap tests over a whole column of values.

Each ``fast_*_ok`` returns, per value, True only when the scalar rule of
``linksync.rules`` would accept the value too (a sound subset: the tests in
``tests/validate/test_filters.py`` compare both on tricky and random inputs). Values the
filter does not pass go to the scalar rule, which decides and words the message.

Why not one regex per value: Python's ``re`` spends 0.5-2 us on a 50 character URL,
0.5-2 s for a million rows. The URL filter instead works on the column joined into
one ASCII string (values outside ASCII set aside): its characters are tested at once
(a ``bytes.translate`` that deletes printable ASCII; when some value fails, a numpy
pass finds which), the scheme of every value at once (eight bytes as one integer),
and the ``host:port`` of one value with the regex, then compared with every other
value's at once, a few hosts serving a whole column (``_prefix_by_authority``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

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
_AUTHORITY_RE = re.compile(_AUTHORITY.encode(), re.ASCII)
#: Where an authority ends: a path, a query, a fragment, or the next value (after a
#: "\n": not part of a value that gets this far).
_AUTHORITY_END_RE = re.compile(rb"[/?#\n]")

#: The same over a column joined into one string, every value preceded by "\n": the
#: prefix of a value ends where its text ends, at the next "\n" (a value holding a
#: "\n" of its own fails the character test anyway).
_JOINED_URL_PREFIX_RE = re.compile(r"\n" + _URL_PREFIX + r"(?=[/?#\n]|\Z)", re.ASCII)

#: A normalised expiry, as the readers write it: 2030-12-31T23:59:59.000Z.
EXPIRY_FIELDS_RE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z", re.ASCII)

#: Every printable ASCII character except the space: what a clean URL is made of.
_VISIBLE_ASCII = bytes(range(0x21, 0x7F))


def _all_text(values: Sequence[Any]) -> bool:
    return set(map(type, values)) <= {str}


def joined(values: Sequence[str]) -> tuple[str, np.ndarray]:
    """The values as one string, each preceded by "\\n", and where each value's "\\n"
    is in it (so character positions map back to values with ``searchsorted``)."""
    n = len(values)
    starts = np.zeros(n, dtype=np.int64)
    if n > 1:
        lengths = np.fromiter(map(len, values), dtype=np.int64, count=n)
        np.cumsum(lengths[:-1] + 1, out=starts[1:])
    return "\n" + "\n".join(values), starts


def visible_ascii(values: Sequence[str]) -> np.ndarray:
    """Per value: only printable ASCII, no space, no control character."""
    return _visible_joined(*joined(values))


def _visible_joined(big: str, starts: np.ndarray) -> np.ndarray:
    n = len(starts)
    if not n:
        return np.zeros(0, dtype=bool)
    if big.isascii():
        raw = big.encode("ascii")
        if raw.translate(None, _VISIBLE_ASCII) == b"\n" * n:
            return np.ones(n, dtype=bool)
        codes = np.frombuffer(raw, dtype=np.uint8)
    else:
        # One code point per character (lone surrogates included), so positions match.
        codes = np.frombuffer(big.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    bad = (codes < 0x21) | (codes > 0x7E)
    bad[starts] = False  # the separators
    out = np.ones(n, dtype=bool)
    out[np.searchsorted(starts, np.flatnonzero(bad), side="right") - 1] = False
    return out


def _url_prefix_joined(big: str, starts: np.ndarray) -> np.ndarray:
    """Per value: its text starts with a well-formed ``scheme://host[:port]``."""
    n = len(starts)
    found = np.fromiter((m.start() for m in _JOINED_URL_PREFIX_RE.finditer(big)), dtype=np.int64)
    idx = np.searchsorted(starts, found)
    inside = idx < n
    idx, found = idx[inside], found[inside]
    out = np.zeros(n, dtype=bool)
    out[idx[starts[idx] == found]] = True
    return out


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
    """Per value: True when ``rules.check_url`` surely accepts it."""
    return per_distinct(values, _fast_url_ok)


def _fast_url_ok(values: Sequence[Any]) -> np.ndarray:
    n = len(values)
    try:
        ascii_ = np.fromiter(map(str.isascii, values), dtype=bool, count=n)
    except TypeError:  # not all text
        out = np.zeros(n, dtype=bool)
        text_idx = [i for i, v in enumerate(values) if isinstance(v, str)]
        if text_idx:
            out[text_idx] = _fast_url_ok([values[i] for i in text_idx])
        return out
    if not n:
        return np.zeros(0, dtype=bool)
    # One ASCII string, every value between two "\n" and eight more at the end (so a
    # window read past a value's end stays inside). A value outside ASCII fails; it
    # stands in the string as "!", so that the rest can pass the character test at once.
    others = np.flatnonzero(~ascii_).tolist()
    text = list(values)
    for i in others:
        text[i] = "!"
    raw = "\n".join(["", *text, "\n" * 8]).encode("ascii")
    ok = _url_ok_ascii(raw, n, others, values)
    if ok is None:  # a value holds a line break: work on code points
        big, starts = joined(values)
        ok = _visible_joined(big, starts) & _url_prefix_joined(big, starts)
    return ok


def _url_ok_ascii(
    raw: bytes, n: int, others: Sequence[int], values: Sequence[Any]
) -> np.ndarray | None:
    """``raw``: ASCII, every one of the ``n`` values preceded by "\n", eight more
    at the end; the values at ``others`` stand in it as "!" and fail. None when its
    "\n" are not n + 9 (a value holds one)."""
    codes = np.frombuffer(raw, dtype=np.uint8)
    breaks = np.flatnonzero(codes == 0x0A)
    if len(breaks) != n + 9:
        return None
    starts = breaks[:n]
    if len(raw.translate(None, _VISIBLE_ASCII)) == len(breaks):
        ok = np.ones(n, dtype=bool)
    else:
        bad = (codes < 0x21) | (codes > 0x7E)
        bad[breaks] = False
        ok = np.ones(n, dtype=bool)
        ok[np.searchsorted(starts, np.flatnonzero(bad), side="right") - 1] = False
    ok[list(others)] = False
    ok[ok] = _prefix_by_authority(raw, codes, starts[ok] + 1, values, np.flatnonzero(ok))
    return ok


_HTTPS = int.from_bytes(b"https://", "little")
_HTTP = int.from_bytes(b"http://\0", "little")
_SEVEN = (1 << 56) - 1


def _prefix_by_authority(
    raw: bytes,
    codes: np.ndarray,
    first: np.ndarray,
    values: Sequence[Any],
    which: np.ndarray,
) -> np.ndarray:
    """Per value of visible ASCII starting at ``raw[first]`` (``codes``: its bytes):
    the URL prefix regex matches it. The scheme is tested on every value at once; the
    authority (host and port, up to the first ``/ ? #`` or the value's end) of one
    value is tested with the regex, then compared with the others' at once, so a
    column with a few hosts costs a few numpy passes; when the hosts are many, the
    rest go through the regex one by one. ``codes`` ends with eight "\n" more than
    the last value's own."""
    k = len(first)
    out = np.zeros(k, dtype=bool)
    if not k:
        return out
    # The first eight bytes of each value as one integer, letters in lower case.
    head = (sliding_window_view(codes, 8)[first] | 0x20).view("<u8").ravel()
    https = head == _HTTPS
    http = (head & _SEVEN) == _HTTP
    host = first + np.where(https, 8, 7)
    pending = np.flatnonzero(https | http)
    limit = len(codes) - 1
    while len(pending):
        start = int(host[pending[0]])
        end_m = _AUTHORITY_END_RE.search(raw, start)
        authority = raw[start : end_m.start() if end_m else limit]
        size = len(authority)
        at = host[pending]
        fits = at + size <= limit
        same = np.zeros(len(at), dtype=bool)
        if size:
            window = sliding_window_view(codes, size)[at[fits]]
            same[fits] = window.view(f"S{size}").ravel() == authority
        else:
            same[fits] = True
        same[fits] &= np.isin(codes[at[fits] + size], _ENDS)
        out[pending[same]] = _AUTHORITY_RE.fullmatch(authority) is not None
        before = len(pending)
        pending = pending[~same]
        if len(pending) > 64 and (before - len(pending)) * 10 < before:
            break  # many different hosts: one regex per value is cheaper
    for j in pending.tolist():
        out[j] = URL_PREFIX_RE.match(values[int(which[j])]) is not None
    return out


_ENDS = np.frombuffer(b"/?#\n", dtype=np.uint8)


SLUG_BYTES = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-"


def fast_slug_ok(values: Sequence[Any], *, chunk: int = 20_000) -> np.ndarray:
    """Per value: True when ``rules.check_slug`` surely accepts it.

    Tested a chunk at a time on one joined string (allowed bytes only, no hyphen at
    an edge or doubled, length, reserved words by set intersection); a chunk that
    fails is tested value by value."""
    n = len(values)
    out = np.zeros(n, dtype=bool)
    for start in range(0, n, chunk):
        part = values[start : start + chunk]
        out[start : start + len(part)] = _slug_chunk(part)
    return out


def _slug_chunk(values: Sequence[Any]) -> np.ndarray:
    n = len(values)
    if _all_text(values) and all(values):
        big = "\n".join(values)
        if (
            big.isascii()
            and big.encode("ascii").translate(None, SLUG_BYTES) == b"\n" * (n - 1)
            and "--" not in big
            and "\n-" not in big
            and "-\n" not in big
            and big[0] != "-"
            and big[-1] != "-"
            and max(map(len, values)) <= rules.MAX_SLUG_BYTES
        ):
            lowered = big.lower().split("\n")
            if not rules.RESERVED_SLUGS.intersection(lowered):
                return np.ones(n, dtype=bool)
            reserved = rules.RESERVED_SLUGS
            return ~np.fromiter(map(reserved.__contains__, lowered), dtype=bool, count=n)
    return _slug_values(values)


def _slug_values(values: Sequence[Any]) -> np.ndarray:
    n = len(values)
    full = rules.SLUG_RE.fullmatch
    reserved = rules.RESERVED_SLUGS
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
