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
from linksync.sources.cleaning import Scratch
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

#: Values checked at a time by ``_url_ok``.
_URL_BLOCK = 1 << 14
#: ``http://`` and one character: where the end of a URL's authority is looked for.
_SCHEME_AND_ONE = 8
#: Authorities compared at once with those before (longer ones: one at a time).
_LONGEST_COMPARED = 64
#: Values at the start of a block that tell whether its values mostly repeat the
#: authority of the value before (else ``_URL_LINES`` is cheaper).
_SAMPLE = 64
#: The first k bytes of eight kept (``_KEPT[k]``), as a 64-bit word of them.
_KEPT = np.frombuffer(b"".join(b"\xff" * k + b"\0" * (8 - k) for k in range(9)), np.uint64)
#: Values that pass ``_URL_RE``, each followed by a line break (possessive: a line
#: that fails ends the match there, without trying the lines before again).
_URL_LINES = re.compile(r"(?:" + _URL_RE.pattern + r"\n)*+", re.ASCII)

#: What a slug is made of.
_SLUG_BYTES = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-"
_HYPHEN, _LINE_FEED = ord("-"), ord("\n")


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
    """``_URL_RE`` on every value, a block of values at a time (``_block_url_ok``),
    value by value in a block that is not all text or where a value holds a line feed
    (told by the block's count of them, where the block is read)."""
    n = len(values)
    out = np.zeros(n, dtype=bool)
    scratch = Scratch(3, np.uint8)  # a byte buffer and two masks
    for start in range(0, n, _URL_BLOCK):
        block = values[start : start + _URL_BLOCK]
        try:
            text = "\n".join([*block, ""])
        except TypeError:  # not all text
            text = ""
        if text:
            out[start : start + len(block)] = _block_url_ok(block, text, scratch)
        else:
            out[start : start + len(block)] = _each_url_ok(block)
    return out


def _block_url_ok(block: Sequence[str], text: str, scratch: Scratch) -> np.ndarray:
    """``_URL_RE`` on each value of ``block`` (``text``: the values, each followed by a
    line feed; value by value when one holds one), over the bytes of ``text``: a value
    passes when all its bytes are printable ASCII and its scheme and authority (up to
    the first ``/?#`` from its eighth character on, or its end) pass ``URL_PREFIX_RE``
    (nothing else of a value can fail). Values mostly repeat the authority of the
    value before them (one host, or runs of one): those are found by comparing bytes,
    and the rule runs once per distinct authority among the others. A value shorter
    than ``http://x`` is checked alone; a block whose values mostly change authority,
    by ``_URL_LINES``."""
    n = len(block)
    sample = block[:_SAMPLE]
    if sum(map(_same_start, sample[1:], sample)) * 4 < (len(sample) - 1) * 3:
        return _lines_url_ok(block, text)
    data = text.encode("utf-8", "surrogatepass")
    raw = np.frombuffer(data, dtype=np.uint8)
    work, line_end, mark = scratch.take(len(raw))
    line_end, mark = line_end.view(bool), mark.view(bool)
    ends = np.flatnonzero(np.equal(raw, 0x0A, out=line_end))
    if len(ends) != n:  # a value holds a line feed
        return _each_url_ok(block)
    starts = np.empty(n, dtype=np.int64)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    short = np.flatnonzero(ends - starts < _SCHEME_AND_ONE)
    # ``/`` and ``?`` are the bytes that are 0x3F with bit 0x10 set, then ``#`` and \n.
    np.equal(np.bitwise_or(raw, 0x10, out=work), 0x3F, out=mark)
    mark |= line_end
    mark |= np.equal(raw, 0x23, out=line_end)
    marks = np.flatnonzero(mark)
    stop = marks[np.minimum(np.searchsorted(marks, starts + _SCHEME_AND_ONE), len(marks) - 1)]
    size = stop - starts
    size[short] = _LONGEST_COMPARED + 1  # never the same as another value's
    first = np.flatnonzero(~_same_as_before(raw, starts, size))  # whose authority is checked
    if len(first) * 4 > n:
        return _lines_url_ok(block, text)
    known: dict[bytes, bool] = {}
    full = URL_PREFIX_RE.fullmatch
    checked: list[bool] = []
    for a, b in zip(starts[first].tolist(), stop[first].tolist(), strict=True):
        head = data[a:b]
        verdict = known.get(head)
        if verdict is None:
            verdict = known[head] = full(head.decode("latin-1")) is not None
        checked.append(verdict)
    run = np.zeros(n, dtype=np.int64)  # per value, the first of its run
    run[first] = np.arange(len(first))
    ok = np.array(checked, dtype=bool)[np.maximum.accumulate(run)]
    # Not printable ASCII (``[!-~]``): below 0x21 a byte wraps round past 0x5D too.
    bad = np.greater(np.subtract(raw, 0x21, out=work), 0x7E - 0x21, out=mark)
    bad[ends] = False
    if bad.any():  # each such byte fails its value (the first line end at or after it)
        ok[np.searchsorted(ends, np.flatnonzero(bad))] = False
    if len(short):
        ok[short] = _each_url_ok([block[j] for j in short.tolist()])
    return ok


def _same_start(a: str, b: str) -> bool:
    """``b`` starts as ``a`` does up to the first ``/`` after its scheme."""
    end = a.find("/", _SCHEME_AND_ONE) + 1
    return end > 0 and a[:end] == b[:end]


def _same_as_before(raw: np.ndarray, starts: np.ndarray, size: np.ndarray) -> np.ndarray:
    """Per value, whether its first ``size`` bytes are those of the value before (no
    value more than ``_LONGEST_COMPARED`` is), compared eight bytes at a time."""
    n = len(starts)
    widest = -(-min(int(size.max()), _LONGEST_COMPARED) // 8) * 8
    padded = np.concatenate([raw, np.zeros(widest, dtype=np.uint8)])
    heads = np.lib.stride_tricks.sliding_window_view(padded, widest)[starts].view(np.uint64)
    same = np.zeros(n, dtype=bool)
    same[1:] = (size[1:] == size[:-1]) & (size[1:] <= widest)
    for k in range(widest // 8):  # the bytes past the authority left out
        word = heads[:, k] & _KEPT[np.clip(size - 8 * k, 0, 8)]
        same[1:] &= word[1:] == word[:-1]
    return same


def _lines_url_ok(block: Sequence[str], text: str) -> np.ndarray:
    """``_URL_LINES`` on the block whole (``text``: its values, each followed by a line
    feed), value by value when a value fails or holds a line feed."""
    if text.count("\n") != len(block):
        return _each_url_ok(block)
    whole = _URL_LINES.match(text)
    if whole is not None and whole.end() == len(text):
        return np.ones(len(block), dtype=bool)
    return _each_url_ok(block)


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
    tested on the values joined by line breaks (``_slug_lines``); then only reserved
    words fail."""
    n = len(values)
    try:
        text = "\n".join(values)
    except TypeError:  # not all text
        text = ""
    reserved = rules.RESERVED_SLUGS
    data = text.encode("ascii") if text and text.isascii() else b""
    del text  # its bytes from here on: one copy of the column's text at a time
    if data and _slug_lines(data, n):
        low = data.lower()  # (ASCII: as ``str.lower`` does; all lower: no new text)
        lowered = values if low == data else low.decode("ascii").split("\n")
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


def _slug_lines(data: bytes, n: int) -> bool:
    """``data`` is ``n`` slugs ``rules.check_slug`` surely accepts, joined by line
    feeds: only slug bytes and ``n - 1`` line feeds (no value holds one), no empty value
    and none longer than ``rules.MAX_SLUG_BYTES``, no hyphen first or last in a value
    nor beside another (the values' lengths and the hyphens' neighbours read over the
    bytes by numpy)."""
    if data.translate(None, _SLUG_BYTES) != b"\n" * (n - 1):
        return False
    raw = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(raw == _LINE_FEED)  # (one array at a time: the peak stays low)
    if len(ends):
        steps = np.diff(ends)  # a value's length plus one, but the first's and the last's
        edges = (int(ends[0]), len(raw) - 1 - int(ends[-1]))
        shortest = min(*edges, int(steps.min()) - 1 if len(steps) else len(raw))
        longest = max(*edges, int(steps.max()) - 1 if len(steps) else 0)
        del steps
    else:
        shortest = longest = len(raw)
    del ends
    if shortest < 1 or longest > rules.MAX_SLUG_BYTES:
        return False
    hyphens = np.flatnonzero(raw == _HYPHEN)
    if not len(hyphens):
        return True
    if hyphens[0] == 0 or hyphens[-1] == len(raw) - 1:
        return False
    near = np.concatenate([raw[hyphens - 1], raw[hyphens + 1]])
    return not ((near == _HYPHEN) | (near == _LINE_FEED)).any()


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
