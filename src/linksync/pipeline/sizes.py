"""A cheap look at the sources before they are read: how many rows they hold, about,
and whether their reading could refuse the run.

``look_at(sources)`` reads no cell: it counts the lines of a CSV (its header left out)
and the ``url:`` keys of a YAML file, and counts ``LinkSpec`` objects; a workbook's
rows are not counted (``rows`` None). It says ``refusable`` when the reading may
refuse the run without reading every row: a path that is not a readable file or
folder, an empty file, a CSV of a header alone, a binary file where text is expected,
an unknown type, a folder with stray files or without YAML. A run then reads first,
as it always did, and asks the service nothing before (``linksync.pipeline.overlap``).

``names_domain``: a CSV header or a YAML file that mentions a domain; the rows may
then be spread over domains, and only the reading can tell which.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from linksync.model import LinkSpec
from linksync.sources import CSV_SUFFIXES, EXCEL_SUFFIXES
from linksync.sources.folders import list_folder
from linksync.sources.options import YAML_SUFFIXES
from linksync.sources.sniff import looks_like

#: A CSV file is counted this many bytes at a time (never held whole).
CHUNK = 1 << 20
#: Up to this size a CSV file's lines are counted without numpy (``_line_ends``).
SMALL_CSV = 16 * CHUNK
#: Bytes looked at for a NUL (a binary file of no known signature given as text).
HEAD = 8192
#: A link's ``url:`` key in YAML (block or flow style, quoted or not).
_URL_KEY = re.compile(rb"""(?<![\w-])["']?url["']?\s*:""")


@dataclass(frozen=True, slots=True)
class Look:
    """What ``look_at`` saw: ``rows`` (None: not counted), ``names_domain``,
    ``refusable`` (see the module docstring)."""

    rows: int | None = 0
    names_domain: bool = False
    refusable: bool = False

    def __add__(self, other: Look) -> Look:
        rows = None if self.rows is None or other.rows is None else self.rows + other.rows
        return Look(
            rows,
            self.names_domain or other.names_domain,
            self.refusable or other.refusable,
        )


REFUSABLE = Look(None, True, True)


def look_at(sources: Iterable[str | os.PathLike[str] | LinkSpec]) -> Look:
    """The sources looked at (see the module docstring); no source at all is
    ``refusable`` (a mirror refuses it)."""
    seen = Look(0)
    specs = 0
    any_source = False
    for source in sources:
        any_source = True
        if isinstance(source, LinkSpec):
            specs += 1
            seen += Look(0, source.domain is not None)
        else:
            seen += _look_at_path(Path(source))
    if not any_source:
        return REFUSABLE
    return seen + Look(specs)


def _look_at_path(path: Path) -> Look:
    try:
        if path.is_dir():
            return _look_at_folder(path)
        suffix = path.suffix.lower()
        if suffix in EXCEL_SUFFIXES:
            return Look(None, True, path.stat().st_size == 0)
        if suffix not in CSV_SUFFIXES and suffix not in YAML_SUFFIXES:
            return REFUSABLE
        if looks_like(path) is not None:  # a binary file under a text name
            return REFUSABLE
        if suffix in CSV_SUFFIXES:
            return _look_at_csv(path)
        return _look_at_yaml(path.read_bytes())
    except OSError:
        return REFUSABLE


def _look_at_csv(path: Path) -> Look:
    chunk = bytearray(CHUNK)
    with path.open("rb", buffering=0) as fh:
        size = fh.readinto(chunk)
        if not size or b"\0" in chunk[: min(size, HEAD)]:
            return REFUSABLE  # an empty file (EMPTY_SOURCE), or a binary one
        end = chunk.find(b"\n", 0, size)
        eol = 0x0A
        if end < 0 and chunk.find(b"\r", 0, size) >= 0:  # a classic Mac file: \r alone
            eol, end = 0x0D, chunk.find(b"\r", 0, size)
        big = os.fstat(fh.fileno()).st_size > SMALL_CSV
        feeds = _line_ends(chunk, eol, big=big)
        header, lines = bytes(chunk[: end if end >= 0 else size]), 0
        while size:
            lines += feeds(size)
            last = chunk[size - 1]
            size = fh.readinto(chunk)
    rows = lines + (0 if last == eol else 1) - 1
    if rows < 1:
        return REFUSABLE  # a header alone: EMPTY_SOURCE
    return Look(rows, b"domain" in header.lower())


def _line_ends(chunk: bytearray, eol: int, *, big: bool) -> Callable[[int], int]:
    """How the line ends (``eol``: a line feed, or a carriage return in a file without
    line feeds) of ``chunk[:size]`` are counted: by numpy for a big file (a third of
    the CPU of ``bytearray.count``), else by ``bytearray.count``. The look
    comes before the first request, and importing numpy takes longer than counting
    ``SMALL_CSV`` bytes: a small file's reading imports numpy in its worker thread,
    beside the first requests (``linksync.pipeline.overlap``)."""
    if not big:
        return lambda size: chunk.count(bytes((eol,)), 0, size)
    import numpy as np

    raw, feeds = np.frombuffer(chunk, dtype=np.uint8), np.empty(len(chunk), dtype=bool)
    return lambda size: int(np.count_nonzero(np.equal(raw[:size], eol, out=feeds[:size])))


def _look_at_yaml(data: bytes) -> Look:
    if not data.strip() or b"\0" in data[:HEAD]:
        return REFUSABLE
    rows = len(_URL_KEY.findall(data))
    return Look(rows, b"domain" in data.lower())


def _look_at_folder(root: Path) -> Look:
    listing = list_folder(root)
    if listing.not_read or not listing.yaml:
        return REFUSABLE
    seen = Look(0)
    for file in listing.yaml:
        try:
            seen += _look_at_yaml(file.read_bytes())
        except OSError:
            return REFUSABLE
    return seen
