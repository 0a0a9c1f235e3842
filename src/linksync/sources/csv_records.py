"""The records of a CSV, every cell read as text (pandas only for a big quoted file).

Cells are never converted: ``007``, ``NA``, ``null`` and ``nan`` stay as typed. A
record with fewer values than the header is filled with empty cells (a blank line is
a record of empty cells); only the wanted columns are kept.

Two ways through the file, chosen a block (about a MB, cut at a line end) at a time:

- A block without a quote, whose every line holds exactly ``width - 1`` delimiters
  (the usual export; the delimiters of each line counted over its bytes by numpy), is
  split by ``str.split`` over the whole block: its lines are its records, and a
  column is every ``width``-th value. No Python work per row. In a UTF-8 file the
  line ends are made delimiters in the block's bytes (numpy, where the count found
  them) before the block is decoded: no second copy of its text to replace them in
  (a ``\r\n`` leaves an empty value between its two). The same pass over the
  bytes reads each cell's first and last byte: a column none of whose cells is empty
  or starts or ends with ASCII whitespace is handed over as ``Trimmed`` (the cleaning
  takes it as it is).
- From the first block that does not qualify to the end, the ``csv`` module reads the
  records (quoted values, line breaks inside them, ragged records). All blocks before
  it held no quote, so that block starts on a record's boundary. When what is left
  from there is big (``PANDAS_FROM``), the whole file is read by pandas' C parser
  instead (``linksync.sources.csv_pandas``, imported only then): on quoted records it
  costs about half the ``csv`` module's CPU, which pays for its import on a big file
  only.

A record with values beyond the header's columns makes ``whole`` False (the reader then
names them through ``linksync.sources.csv_scan``). A quote that opens and never
closes is found with a sentinel line after the file's end: the ``csv`` module swallows
it into the open value. ``unclosed`` is then the record where the quote opened
(0 = the file's first record, header lines included), and only the records before it
are returned. A byte the encoding cannot decode raises ``UnicodeDecodeError``.
"""

from __future__ import annotations

import codecs
import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import chain, islice
from operator import itemgetter
from pathlib import Path

import numpy as np

from linksync.sources.cleaning import Scratch, Trimmed
from linksync.sources.csv_scan import big_fields

#: From this many bytes (or characters) left to read with quotes in them, the rest is
#: not worth the ``csv`` module: the file is read whole by pandas' C parser instead
#: (``linksync.sources.csv_pandas``; about 0.011 s of CPU less a MB of quoted records,
#: against 0.35 s to import pandas).
PANDAS_FROM = 32 << 20
#: Characters read at a time (the file's bytes are decoded a block at a time).
_BLOCK = 1 << 20
_NEWLINE, _RETURN = ord("\n"), ord("\r")
#: Records the ``csv`` module reads at a time before they are put into columns.
_BATCH = 1 << 14
#: After the file's last record: read as a record of its own, unless a quote is open.
_SENTINEL = "\x00\x1flinksync-end-of-file\x1f\x00"


@dataclass(frozen=True)
class Records:
    """The wanted columns' cells (``columns[c]`` for each wanted column ``c``, one
    value a data record), whether every value of every record was within the header
    (True: no record has more values than the header), and the record where a quote
    opens and never closes (None: none)."""

    columns: dict[int, list[str]]
    whole: bool
    unclosed: int | None = None


def read_records(
    source: Path | str,
    *,
    encoding: str | None,
    delimiter: str,
    skip: int,
    width: int,
    wanted: list[int],
) -> Records:
    """The records after the first ``skip`` ones; ``source`` is a path, or decoded text
    (``encoding`` None)."""
    size = len(source) if isinstance(source, str) else source.stat().st_size
    reader = _Reader(delimiter, skip, max(width, 1), wanted)
    read = reader.read(_texts(source, encoding), size)
    if read is not None:
        return read
    from linksync.sources.csv_pandas import pandas_records

    columns, whole, unclosed = pandas_records(
        source, encoding=encoding, delimiter=delimiter, skip=skip, width=width, wanted=wanted
    )
    return Records(columns, whole, unclosed)


#: A block of text (None: not decoded yet), and its bytes when they are its UTF-8 (the
#: file's own, read; valid until the next block is read).
Block = tuple[str | None, memoryview | None]


def _texts(source: Path | str, encoding: str | None) -> Iterator[Block]:
    """The text in blocks, each ending at a line end (but the last). A file's bytes are
    read into one buffer and cut at their last line feed before they are decoded (no
    encoding a reader is given here has a line feed byte inside another character), so
    each block is decoded once and, in UTF-8, comes with its bytes. A UTF-8 block
    without a quote comes undecoded (text None): the reader decodes it
    (``_decoded``), once it has put the delimiter in place of its line ends when its
    lines can be split at once."""
    if isinstance(source, str):
        start = 0
        while start < len(source):
            cut = source.find("\n", start + _BLOCK) + 1 or len(source)
            yield source[start:cut], None
            start = cut
        return
    codec = codecs.lookup(encoding or "utf-8")
    decoder = codec.incrementaldecoder()
    utf8 = codec.name in ("utf-8", "utf-8-sig")
    bom = codec.name == "utf-8-sig"  # left out of the text, if the file starts with it
    buf = bytearray(_BLOCK)
    view, have = memoryview(buf), 0  # bytes in ``buf``: those after the last cut
    with source.open("rb", buffering=0) as fh:
        while True:
            if have == len(buf):  # no line feed in the whole buffer: a bigger one
                buf = buf + bytearray(len(buf))
                view = memoryview(buf)
            got = fh.readinto(view[have:])
            if not got:
                break
            have += got
            cut = buf.rfind(b"\n", 0, have) + 1
            if cut:
                start = 0
                if bom:
                    start, bom = (3 if buf.startswith(codecs.BOM_UTF8) else 0), False
                if not utf8:
                    yield decoder.decode(view[:cut]), None
                elif buf.find(b'"', start, cut) >= 0:  # for the csv module: decoded
                    yield _decoded(view[start:cut]), None
                else:
                    yield None, view[start:cut]
                buf[: have - cut] = view[cut:have]  # the same size: no export is moved
                have -= cut
    rest = bytes(buf[:have])
    if bom and rest.startswith(codecs.BOM_UTF8):  # (a file without a line feed)
        rest = rest[3:]
    text = _decoded(rest) if utf8 else decoder.decode(rest, final=True)
    if text:
        yield text, None


def _decoded(data: memoryview | bytes | None) -> str:
    """UTF-8 bytes as text (a block's: it ends at a line end, or the file's end)."""
    return str(data or b"", "utf-8")


def _text(block: Block) -> str:
    """A block's text, decoded now when it was not."""
    text, data = block
    return text if text is not None else _decoded(data)


def _lines(block: str) -> io.StringIO:
    """The lines of a block, each with its line end (``\n``, ``\r\n`` or ``\r``)."""
    return io.StringIO(block, newline="")


#: The bytes a cell may not start or end with to be taken as it is (``Trimmed``):
#: ASCII whitespace, and the delimiter and line ends (the byte after an empty cell's
#: start, or before its end, is the delimiter or line end that ends or starts it).
_EDGES = b" \t\r\n"


def _columns(
    body: str | None, delim: str, width: int, end: str, scratch: Scratch, data: memoryview | None
) -> tuple[list[list[str]], np.ndarray | None, int] | None:
    """The columns of ``body`` (lines without quotes, ending with ``end``: a line feed,
    or a carriage return and a line feed), or None unless every line holds exactly
    ``width - 1`` delimiters and, with ``\r\n``, every line feed follows a carriage
    return and no other carriage return is met (counted over the bytes at numpy speed:
    the delimiters and line feeds in the order met, every ``width``-th a line feed);
    with them, per line and column, whether the cell may be empty or start or end with
    ASCII whitespace (None: not looked at), and the body's length in characters.
    ``data``: the body's UTF-8 bytes when they were read (else the body is encoded
    here); ``body`` None: not decoded yet (``_texts``), its line ends then told by its
    carriage returns (``end`` is not looked at), and, when it splits, its line ends
    made delimiters in ``data`` before it is decoded (no second copy of the text with
    them replaced)."""
    if body is not None and width == 1 and end == "\n":
        return [body.split(end)], None, len(body)
    if width > 1 and ord(delim) > 0x7F:  # never one byte of UTF-8: the csv module
        return None
    raw = np.frombuffer(
        data if data is not None else (body or "").encode("utf-8", "surrogatepass"),
        dtype=np.uint8,
    )
    if not len(raw):
        return None
    is_sep, other = scratch.take(len(raw))
    returns = -1
    if body is None or end != "\n":
        returns = int(np.count_nonzero(np.equal(raw, _RETURN, out=other)))
    if body is None:
        end = "\r\n" if returns else "\n"
    feeds = int(np.count_nonzero(np.equal(raw, _NEWLINE, out=is_sep)))
    if width > 1:
        np.logical_or(is_sep, np.equal(raw, ord(delim), out=other), out=is_sep)
    seps = np.flatnonzero(is_sep)
    lines, odd = divmod(len(seps) + 1, width)
    # As many line feeds as lines after the first, each where a line's last value
    # ends: every other one met is a delimiter.
    breaks = seps[width - 1 :: width]
    if odd or feeds != lines - 1 or (width > 1 and not (raw[breaks] == _NEWLINE).all()):
        return None
    if end != "\n" and (
        (len(breaks) and (breaks[0] == 0 or not (raw[breaks - 1] == _RETURN).all()))
        or returns != len(breaks)
    ):
        return None
    # Each cell's first byte (the one after the delimiter or line end before it) and
    # last byte (before the delimiter or line end after it, the \r of a \r\n).
    last = len(raw) - 1
    firsts = np.empty(len(seps) + 1, dtype=np.uint8)
    firsts[0] = raw[0]
    np.take(raw, seps + 1, out=firsts[1:], mode="clip")  # (a last empty value: its end)
    before = seps - 1
    if end != "\n":
        before[width - 1 :: width] -= 1
    lasts = np.empty(len(seps) + 1, dtype=np.uint8)
    np.take(raw, before, out=lasts[:-1])
    lasts[-1] = raw[last]
    edge = np.zeros(256, dtype=bool)
    edge[list(_EDGES + delim.encode("utf-8"))] = True
    odd_cells = edge[firsts]
    odd_cells |= edge[lasts]
    odd_cells = odd_cells.reshape(lines, width)
    if body is None and width > 1:  # each line end one delimiter, or two (\r\n)
        raw[breaks] = ord(delim)
        if end != "\n":
            raw[breaks - 1] = ord(delim)
    del raw, seps, breaks, before
    if width == 1:
        text = body if body is not None else _decoded(data)
        return [text.split(end)], odd_cells, len(text)
    if body is not None:
        flat = body.replace(end, delim).split(delim)
        step = width
    else:
        body = _decoded(data)
        flat = body.split(delim)
        step = width + len(end) - 1  # an empty value between a \r\n's two delimiters
    return [flat[c::step] for c in range(width)], odd_cells, len(body)


class _Reader:
    def __init__(self, delim: str, skip: int, width: int, wanted: list[int]):
        self.delim, self.skip, self.width = delim, skip, width
        self.wanted = sorted(set(wanted))
        # Trimmed while every cell met in the column was (``_columns``), else a list.
        self.columns: dict[int, list[str]] = {c: Trimmed() for c in self.wanted}
        self.records = 0  # records met so far, header lines included
        self.scratch = Scratch(2)
        self.whole = True
        self.done = 0  # characters split at once

    def read(self, blocks: Iterator[Block], size: int) -> Records | None:
        """The records; None when the rest of a big file has quotes (module docstring)."""
        for block, data in blocks:
            text = self._split(block, data)
            if text is not None:
                if size - self.done >= PANDAS_FROM:
                    return None
                return self._csv(chain([text], map(_text, blocks)))
        return Records(self.columns, self.whole)

    def _split(self, block: str | None, data: memoryview | None) -> str | None:
        """The block split at once (module docstring): None, else the block's text
        when it does not qualify. ``block`` None: not decoded yet (``_texts``: it holds
        no quote); ``data``: the block's UTF-8 bytes, when read already."""
        if block is not None:
            if '"' in block:
                return block
            end = "\r\n" if "\r" in block else "\n"
            trail = 2 if block.endswith("\r\n") else 1 if block.endswith("\n") else 0
            body: str | None = block[: len(block) - trail]  # the last line's end left out
        else:  # not decoded yet: its line ends are told by ``_columns``
            whole, end, body = memoryview(data or b""), "\n", None
            tail = bytes(whole[-2:])
            trail = 2 if tail == b"\r\n" else 1 if tail.endswith(b"\n") else 0
            data = whole[: len(whole) - trail]
        head = max(self.skip - self.records, 0)
        split = _columns(body, self.delim, self.width, end, self.scratch, data)
        if split is None:
            return block if block is not None else _decoded(whole)
        columns, odd, chars = split
        self.done += chars + trail
        self.records += len(columns[0])
        untrimmed: list[bool] = (
            np.any(odd[head:], axis=0).tolist() if odd is not None else [True] * self.width
        )
        for c in self.wanted:
            if untrimmed[c]:
                self._untrimmed(c)
            self.columns[c].extend(columns[c][head:] if head else columns[c])
        return None

    def _untrimmed(self, c: int) -> None:
        """Column ``c`` holds a cell that may not be trimmed or set: a plain list."""
        if self.columns[c].__class__ is Trimmed:
            self.columns[c] = list(self.columns[c])

    def _csv(self, blocks: Iterator[str]) -> Records:
        """The rest of the file through the ``csv`` module."""
        # Every block but the last ends at a line end; the last line gets one when it
        # has none (so the sentinel is a record of its own, and no record is added).
        for c in self.wanted:
            self._untrimmed(c)
        ended = (b if b.endswith(("\n", "\r")) else b + "\n" for b in blocks)
        lines = chain(chain.from_iterable(map(_lines, ended)), (_SENTINEL,))
        unclosed: int | None = None
        with big_fields():
            reader = csv.reader(lines, delimiter=self.delim)
            while batch := list(islice(reader, _BATCH)):
                last = batch[-1]
                if last and last[-1].endswith(_SENTINEL):
                    batch.pop()
                    if last != [_SENTINEL]:
                        unclosed = self.records + len(batch)
                self._take(batch)
        return Records(self.columns, self.whole, unclosed)

    def _take(self, batch: list[list[str]]) -> None:
        """A batch of records into the columns (those before ``skip`` left out): a
        column at a time where every record has as many values as the header."""
        head = max(self.skip - self.records, 0)
        self.records += len(batch)
        if head:
            batch = batch[head:]
        width = self.width
        counts = set(map(len, batch))
        if counts and max(counts) > width:
            self.whole = False
        if counts == {width}:
            for c in self.wanted:
                self.columns[c].extend(map(itemgetter(c), batch))
            return
        for c in self.wanted:
            self.columns[c].extend([r[c] if c < len(r) else "" for r in batch])
