"""Sources: CSV, Excel and YAML files -> desired links with provenance.

``read_sources(paths)`` reads every file (by extension; a directory is a YAML tree)
and returns a ``SourceBatch``: the desired links in source order, the problems found
while reading (file-level and cell-level, warnings included) and the unknown columns.
A file that cannot be read at all raises ``SourceError``.

The links are held as columns (``SpecFrame``) so a million-row CSV stays cheap;
``batch.specs`` builds the ``LinkSpec`` objects on first use, ``batch.iter_specs()``
streams them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from os import PathLike
from pathlib import Path

from linksync.errors import SourceError
from linksync.model import LinkSpec, Problem
from linksync.sources.columns import ALIASES, match_columns, normalize_header
from linksync.sources.csv_reader import read_csv_file
from linksync.sources.excel import EXCEL_SUFFIXES, read_excel_file
from linksync.sources.frame import ReadResult, SpecFrame, UnknownColumn
from linksync.sources.normalize import merge_utm, normalize_expiry, split_short_url, split_tags
from linksync.sources.yaml_reader import YAML_SUFFIXES, read_yaml_path

CSV_SUFFIXES: frozenset[str] = frozenset({".csv", ".tsv", ".txt"})

__all__ = [
    "ALIASES",
    "SourceBatch",
    "SpecFrame",
    "UnknownColumn",
    "match_columns",
    "merge_utm",
    "normalize_expiry",
    "normalize_header",
    "read_source",
    "read_sources",
    "split_short_url",
    "split_tags",
]


@dataclass(frozen=True)
class SourceBatch:
    """Everything read from the sources.

    ``frames``: one per sheet or YAML file, in the order read. ``problems``: findings
    of the readers (errors and warnings), in order. ``unknown_columns``: each unknown
    column once per sheet.
    """

    frames: tuple[SpecFrame, ...]
    problems: tuple[Problem, ...]
    unknown_columns: tuple[UnknownColumn, ...]

    def __len__(self) -> int:
        return sum(len(f) for f in self.frames)

    @cached_property
    def specs(self) -> tuple[LinkSpec, ...]:
        """Every desired link, in source order (built on first use)."""
        return tuple(self.iter_specs())

    def iter_specs(self) -> Iterator[LinkSpec]:
        for frame in self.frames:
            yield from frame.iter_specs()


def read_source(
    path: str | PathLike[str],
    *,
    sheets: Sequence[str] | None = None,
    mapping: Mapping[str, str] | None = None,
) -> ReadResult:
    """Read one file or YAML directory; dispatch on the extension."""
    display = str(path)
    p = Path(path)
    if not p.exists():
        raise SourceError(f"{display}: no such file or directory", path=display)
    suffix = p.suffix.lower()
    columns = dict(mapping) if mapping else None
    if p.is_dir() or suffix in YAML_SUFFIXES:
        return read_yaml_path(p, display)
    if suffix in EXCEL_SUFFIXES:
        return read_excel_file(p, display, sheets=sheets, mapping=columns)
    if suffix in CSV_SUFFIXES:
        return read_csv_file(p, display, mapping=columns)
    raise SourceError(
        f"{display}: unknown source type {suffix or '(no extension)'!r}; expected .csv, "
        ".xlsx/.xlsm/.xls/.ods, .yaml/.yml or a directory of YAML files",
        path=display,
    )


def read_sources(
    paths: Iterable[str | PathLike[str]],
    *,
    sheets: Sequence[str] | None = None,
    mapping: Mapping[str, str] | None = None,
) -> SourceBatch:
    """Read every source (see module docstring). ``sheets`` limits Excel workbooks to
    the named sheets; ``mapping`` is a profile's ``columns:`` block {header: field}
    that overrides the alias guesses."""
    frames: list[SpecFrame] = []
    problems: list[Problem] = []
    unknown: list[UnknownColumn] = []
    for path in paths:
        res = read_source(path, sheets=sheets, mapping=mapping)
        frames.extend(res.frames)
        problems.extend(res.problems)
        unknown.extend(res.unknown)
    return SourceBatch(tuple(frames), tuple(problems), tuple(unknown))
