"""The structure of a CSV file: which records hold more values than the header.

pandas, when it reads only the mapped columns (``usecols``), drops the values past the
header's last column without a word (and without ``usecols`` it refuses the file). So
the raw bytes are scanned for records with more delimiters than the header, at numpy
speed:

- Chunks of the file (any ASCII-compatible encoding: the delimiter, the quote and the
  newline are single bytes that never occur inside a multi-byte character) are turned
  into positions of quotes, delimiters and newlines. A delimiter or newline is inside
  a quoted field when an odd number of quotes comes before it; ``""`` inside a quoted
  field counts twice, so the parity holds.
- That parity is exact only when every quote sits at a field's edge (an opening quote
  after a delimiter or a newline, a closing one before). A quote inside an unquoted
  value (``5" screen``) breaks it: then the file is parsed with the ``csv`` module
  instead (slower, exact).
- A carriage return not followed by a line feed ends a record for the readers (as for
  the ``csv`` module), and so does a line feed in a file of carriage returns; a count
  of one of them misses the other, so such a file is parsed with the ``csv`` module.
- A record with at least as many delimiters as the header has columns is checked
  value by value; only non-empty values beyond the header make it ragged (a trailing
  separator is not data).

``record_of(offsets)`` maps byte offsets to record numbers (for the encoding warning).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

_CHUNK = 8 << 20
_QUOTE = 0x22


@dataclass(frozen=True, slots=True)
class Ragged:
    """A record with values beyond the header: its index (0 = the file's first
    record), how many values it has, and the values past the header."""

    record: int
    count: int
    extra: tuple[str, ...]


@dataclass
class Structure:
    """What the scan found (see module docstring)."""

    ragged: list[Ragged] = field(default_factory=list)
    newlines: np.ndarray | None = None  # byte offsets of record ends (fast scan only)

    def record_of(self, offsets: list[int]) -> list[int] | None:
        """The record holding each byte offset (None when the scan kept no offsets)."""
        if self.newlines is None:
            return None
        found = np.searchsorted(self.newlines, np.asarray(offsets), side="left")
        return [int(x) for x in found]


@contextmanager
def big_fields() -> Iterator[None]:
    old = csv.field_size_limit()
    csv.field_size_limit(1 << 30)
    try:
        yield
    finally:
        csv.field_size_limit(old)


def _extras(record: str, delim: str, width: int) -> tuple[int, tuple[str, ...]]:
    with big_fields():
        rows = list(csv.reader(io.StringIO(record), delimiter=delim))
    fields = rows[0] if rows else []
    return len(fields), tuple(fields[width:])


def _chunks(source: Path | bytes, size: int) -> Iterator[bytes]:
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source)
        for start in range(0, len(data), size):
            yield data[start : start + size]
        return
    with source.open("rb") as fh:
        while chunk := fh.read(size):
            yield chunk


class _FastScan:
    """Quote-parity scan over chunks (see module docstring)."""

    def __init__(self, delim: int, width: int, first_data: int, offsets: bool):
        self.delim, self.width, self.first_data, self.keep = delim, width, first_data, offsets
        self.nl = -1
        self.parity = 0
        self.record = 0
        self.count = 0  # delimiters outside quotes in the current record
        self.start = 0  # byte offset where the current record starts
        self.prev = 0x0A  # the byte before the chunk
        self.candidates: list[tuple[int, int, int, int]] = []  # record, count, start, end
        self.ends: list[np.ndarray] = []

    def feed(self, a: np.ndarray, pos: int, eof: bool, *, cr: bool = True) -> bool:
        """Scan ``a[:-1]`` (``a`` whole at EOF); False when a quote is not at an edge,
        or a line end is of the other kind (``cr``: ``a`` may hold a carriage return)."""
        n = len(a) if eof else len(a) - 1
        if self.nl < 0:
            has_lf = bool((a == 0x0A).any())
            self.nl = 0x0A if has_lf or not (a == 0x0D).any() else 0x0D
        body = a[:n]
        if (cr or self.nl == 0x0D) and self._other_line_end(a, body):
            return False
        q = np.flatnonzero(body == _QUOTE)
        if len(q) and not self._edges_ok(a, q, n, eof):
            return False
        d = np.flatnonzero(body == self.delim)
        nl = np.flatnonzero(body == self.nl)
        quoted = np.zeros(0, dtype=np.int64)  # delimiters inside each quoted span
        span_at = quoted
        if len(q) or self.parity:
            # Quoted spans as (open, close) pairs; one open at the chunk's start begins
            # at -1, one still open at its end closes at n. Delimiters inside a span are
            # counted per span (few searches) instead of testing every delimiter.
            opener = (np.arange(len(q)) + self.parity) % 2 == 0
            opens = np.concatenate([[-1] if self.parity else [], q[opener]]).astype(np.int64)
            closes = q[~opener].astype(np.int64)
            if len(closes) < len(opens):
                closes = np.concatenate([closes, [n]]).astype(np.int64)
            quoted = np.searchsorted(d, closes) - np.searchsorted(d, opens)
            owner = np.searchsorted(opens, nl, side="right") - 1
            inside = (owner >= 0) & (nl < closes[np.maximum(owner, 0)])
            nl = nl[~inside]
            span_at = np.searchsorted(nl, opens)  # the record (of this chunk) of each span
        if len(nl):
            cum = np.searchsorted(d, nl)
            counts = np.diff(cum, prepend=0)
            if len(quoted):
                counts -= np.bincount(span_at, weights=quoted, minlength=len(nl) + 1)[
                    : len(nl)
                ].astype(np.int64)
            counts[0] += self.count
            starts = np.empty(len(nl), dtype=np.int64)
            starts[0] = self.start
            starts[1:] = nl[:-1] + 1 + pos
            for k in np.flatnonzero(counts >= self.width).tolist():
                rec = self.record + k
                if rec >= self.first_data:
                    self.candidates.append((rec, int(counts[k]), int(starts[k]), int(nl[k]) + pos))
            if self.keep:
                self.ends.append(nl.astype(np.int64) + pos)
            self.record += len(nl)
            tail_quoted = int(quoted[span_at == len(nl)].sum()) if len(quoted) else 0
            self.count = len(d) - int(cum[-1]) - tail_quoted
            self.start = int(nl[-1]) + 1 + pos
        else:
            self.count += len(d) - int(quoted.sum())
        self.parity = (self.parity + len(q)) % 2
        if n:
            self.prev = int(body[-1])
        if eof and self.count >= self.width and self.record >= self.first_data:
            self.candidates.append((self.record, self.count, self.start, pos + n))
        return True

    def _other_line_end(self, a: np.ndarray, body: np.ndarray) -> bool:
        """A line end this scan does not count: a carriage return not followed by a
        line feed in a file of line feeds, a line feed in one of carriage returns. The
        readers (as the csv module) end a record at either."""
        if self.nl == 0x0D:
            return bool((body == 0x0A).any())
        cr = np.flatnonzero(body == 0x0D)
        cr = cr[cr + 1 < len(a)]
        return bool(len(cr)) and bool((a[cr + 1] != 0x0A).any())

    def _edges_ok(self, a: np.ndarray, q: np.ndarray, n: int, eof: bool) -> bool:
        edge = np.array([self.delim, self.nl, 0x0D, 0x0A, _QUOTE], dtype=np.uint8)
        prev = np.empty(len(q), dtype=np.uint8)
        prev[q > 0] = a[q[q > 0] - 1]
        prev[q == 0] = self.prev
        nxt = np.full(len(q), self.delim, dtype=np.uint8)
        inner = q + 1 < len(a)
        nxt[inner] = a[q[inner] + 1]
        opener = (np.arange(len(q)) + self.parity) % 2 == 0
        bad_open = opener & ~np.isin(prev, edge)
        bad_close = ~opener & ~np.isin(nxt, edge)
        if eof:
            bad_close &= q + 1 < n
        return not bool((bad_open | bad_close).any())


def scan(
    source: Path | bytes,
    delimiter: str,
    width: int,
    *,
    first_data: int,
    encoding: str = "utf-8",
    offsets: bool = False,
    chunk: int = _CHUNK,
) -> Structure:
    """Records from ``first_data`` on with values beyond ``width`` columns (see module
    docstring). ``source`` is the file, or its bytes in an ASCII-compatible encoding."""
    fast = _FastScan(ord(delimiter), width, first_data, offsets)
    pos = 0
    carry = b""
    ok = True
    for part in _chunks(source, max(chunk, 2)):
        buf = carry + part
        ok = fast.feed(np.frombuffer(buf, dtype=np.uint8), pos, eof=False, cr=b"\r" in buf)
        if not ok:
            break
        pos += len(buf) - 1
        carry = buf[-1:]
    if ok and carry:
        ok = fast.feed(np.frombuffer(carry, dtype=np.uint8), pos, eof=True, cr=carry == b"\r")
    if not ok:
        return _exact(source, delimiter, width, first_data, encoding)
    out = Structure()
    if offsets:
        out.newlines = np.concatenate(fast.ends) if fast.ends else np.zeros(0, dtype=np.int64)
    for rec, count, extra in _checked(source, fast.candidates, delimiter, width, encoding):
        out.ragged.append(Ragged(rec, count, extra))
    return out


def _checked(
    source: Path | bytes,
    candidates: list[tuple[int, int, int, int]],
    delimiter: str,
    width: int,
    encoding: str,
) -> Iterator[tuple[int, int, tuple[str, ...]]]:
    """The candidates whose values beyond the header are not all empty."""
    if not candidates:
        return
    fh = None if isinstance(source, bytes) else source.open("rb")
    try:
        for rec, count, start, end in candidates:
            if fh is None:
                assert isinstance(source, bytes)
                data = source[start:end]
            else:
                fh.seek(start)
                data = fh.read(end - start)
            text = data.decode(encoding, errors="replace").rstrip("\r\n")
            tail = text.rstrip(delimiter + " \t")
            if text[len(tail) :].count(delimiter) >= count - width + 1 and '"' not in text:
                continue  # only separators beyond the header (a trailing comma)
            n, extra = _extras(text, delimiter, width)
            if any(v.strip() for v in extra):
                yield rec, n, extra
    finally:
        if fh is not None:
            fh.close()


def _exact(
    source: Path | bytes, delimiter: str, width: int, first_data: int, enc: str
) -> Structure:
    """The slow, exact path: the ``csv`` module over the decoded file."""
    data = source if isinstance(source, bytes) else source.read_bytes()
    text = data.decode(enc, errors="replace")
    out = Structure()
    with big_fields():
        lines = io.StringIO(text, newline="")  # a lone CR ends a record, as in the readers
        for rec, fields in enumerate(csv.reader(lines, delimiter=delimiter)):
            if rec >= first_data and len(fields) > width:
                extra = tuple(fields[width:])
                if any(v.strip() for v in extra):
                    out.ragged.append(Ragged(rec, len(fields), extra))
    return out
