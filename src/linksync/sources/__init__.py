"""Sources: CSV, Excel and YAML files -> desired links with provenance.

``read_sources(paths)`` reads every file (by extension; a directory is a YAML tree)
and returns a ``SourceBatch``: the desired links in source order, the problems found
while reading (file-level and cell-level, warnings included) and the unknown columns.
A file that cannot be read at all raises ``SourceError``, and so does a binary file
under a text name (a workbook or an image named ``.csv``: ``linksync.sources.sniff``).
In a folder, each file that is not read is an error naming it
(``linksync.sources.folders``).

The links are held as columns (``SpecFrame``) so a million-row CSV stays cheap;
``batch.specs`` builds the ``LinkSpec`` objects on first use, ``batch.iter_specs()``
streams them.

Layer: beside ``api`` and ``sandbox``. It may import errors, model, rules and safe, never
validation, the client or anything above.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from linksync.errors import SourceError
from linksync.model import LinkSpec, Problem, Provenance
from linksync.sources.folders import list_folder
from linksync.sources.named import shown_name
from linksync.sources.options import YAML_SUFFIXES, ReadOptions
from linksync.sources.sniff import refuse_binary

if TYPE_CHECKING:  # the frames (numpy) load when a source is read, not with the suffixes
    from linksync.sources.frame import ReadResult, SpecFrame, UnknownColumn

CSV_SUFFIXES: frozenset[str] = frozenset({".csv", ".tsv", ".txt"})
EXCEL_SUFFIXES: frozenset[str] = frozenset({".xlsx", ".xlsm", ".xlsb", ".xls", ".ods"})

__all__ = [
    "ReadOptions",
    "SourceBatch",
    "SpecFrame",
    "UnknownColumn",
    "read_source",
    "read_sources",
]


def __getattr__(name: str) -> Any:
    """``SpecFrame`` and ``UnknownColumn``, loaded (with numpy) when first asked for."""
    if name in ("SpecFrame", "UnknownColumn"):
        from linksync.sources import frame

        return getattr(frame, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    path: str | PathLike[str], *, options: ReadOptions, display: str | None = None
) -> ReadResult:
    """Read one file or YAML directory; dispatch on the extension. ``display``: the
    name its problems give (default: ``path``)."""
    display = str(path) if display is None else display
    p = Path(path)
    if not p.exists():
        raise SourceError(f"{display}: no such file or directory", path=display)
    suffix = p.suffix.lower()
    if p.is_dir():
        return _read_dir(p, display, options)
    if suffix in YAML_SUFFIXES:
        from linksync.sources.yaml_reader import read_yaml_path  # a YAML file's reader

        return read_yaml_path(p, display, options)
    # The Excel reader brings pandas (and calamine): imported when a workbook is read.
    # The CSV reader loads pandas only for a big file with quoted values.
    if suffix in EXCEL_SUFFIXES:
        from linksync.sources.excel import read_excel_file

        return read_excel_file(p, display, options=options)
    if suffix in CSV_SUFFIXES:
        refuse_binary(p, display, "CSV")
        from linksync.sources.csv_reader import read_csv_file

        result = read_csv_file(p, display, options=options)
        if result.frames and not any(len(f) for f in result.frames):
            result.problems.append(
                Problem(
                    "EMPTY_SOURCE",
                    "nothing to read: the file has a header but no rows under it",
                    Provenance(display),
                )
            )
        return result
    raise SourceError(
        f"{display}: unknown source type {suffix or '(no extension)'!r}; expected .csv, "
        ".xlsx/.xlsm/.xls/.ods, .yaml/.yml or a directory of YAML files",
        path=display,
    )


def _read_dir(path: Path, display: str, opts: ReadOptions) -> ReadResult:
    """A directory is a YAML tree; every other file in it is named, not skipped
    (``linksync.sources.folders``)."""
    from linksync.sources.frame import ReadResult
    from linksync.sources.yaml_reader import read_yaml_path  # a YAML file's reader

    listing = list_folder(path)
    result = ReadResult()
    for file in listing.yaml:
        result.add(read_yaml_path(file, str(Path(display) / file.relative_to(path)), opts))
    for file, why in listing.not_read:
        shown = str(Path(display) / file.relative_to(path)) if file != path else display
        result.problems.append(Problem("EMPTY_SOURCE", why, Provenance(shown)))
    if not listing.yaml:
        result.problems.append(
            Problem(
                "EMPTY_SOURCE",
                "nothing to read: the directory holds no .yaml or .yml file",
                Provenance(display),
            )
        )
    return result


def read_sources(
    paths: Iterable[str | PathLike[str]],
    *,
    sheets: Sequence[str] | None = None,
    mapping: Mapping[str, str] | None = None,
    encoding: str | None = None,
    date_format: str | None = None,
    empty_values: Iterable[str] = (),
    timezone: str | None = None,
    options: ReadOptions | None = None,
) -> SourceBatch:
    """Read every source (see module docstring). ``sheets`` limits Excel workbooks to
    the named sheets; ``mapping`` is a profile's ``columns:`` block {header: field}
    that overrides the alias guesses; ``encoding``, ``date_format``, ``empty_values``
    and ``timezone`` are the ``--encoding``, ``--date-format``, ``--empty-value`` and
    ``--timezone`` options (``linksync.sources.options``), or give them all as
    ``options``."""
    opts = options or ReadOptions.build(
        sheets=sheets,
        mapping=mapping,
        encoding=encoding,
        date_format=date_format,
        empty_values=empty_values,
        timezone=timezone,
    )
    from linksync.sources.frame import ReadResult

    read = ReadResult()
    for path in paths:  # a ``NamedSource`` is read under its own name
        read.add(read_source(path, options=opts, display=shown_name(path)))
    return SourceBatch(tuple(read.frames), tuple(read.problems), tuple(read.unknown))
