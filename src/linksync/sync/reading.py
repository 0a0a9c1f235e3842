"""Reading the sources of a plan or apply: the options (flags over the profile), and
the refusal of sources with an error that belongs to no row."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from os import PathLike
from typing import TYPE_CHECKING, Any

from linksync.config import Settings
from linksync.errors import ConfigError, SourceError
from linksync.model import LinkSpec, Severity

if TYPE_CHECKING:
    from linksync.validate import Validation

Sources = Sequence[str | PathLike[str]] | Sequence[LinkSpec]


def load_specs(
    sources: Sources,
    *,
    sheets: Sequence[str] | None = None,
    mapping: Mapping[str, str] | None = None,
    fix_invisible: bool = False,
    default_domain: str | None = None,
    encoding: str | None = None,
    date_format: str | None = None,
    empty_values: Iterable[str] = (),
    strict: bool = False,
) -> Validation:
    """Read (paths) or take (LinkSpec objects) the desired links and validate them.

    ``encoding``, ``date_format``, ``empty_values`` and ``strict`` are the options of
    ``--encoding``, ``--date-format``, ``--empty-value`` and ``--strict``."""
    # Imported here: the readers and validation bring pandas, which a command's --help
    # (and ``import linksync``) need not load.
    from linksync.sources import ReadOptions, read_sources
    from linksync.validate import validate

    items = list(sources)
    if items and all(isinstance(s, LinkSpec) for s in items):
        specs = [s for s in items if isinstance(s, LinkSpec)]
        return validate(
            specs, fix_invisible=fix_invisible, default_domain=default_domain, strict=strict
        )
    if any(isinstance(s, LinkSpec) for s in items):
        raise ConfigError("give either source paths or LinkSpec objects, not both")
    paths = [p for p in items if not isinstance(p, LinkSpec)]
    options = ReadOptions.build(
        sheets=sheets,
        mapping=mapping,
        encoding=encoding,
        date_format=date_format,
        empty_values=empty_values,
    )
    batch = read_sources(paths, options=options)
    return validate(
        batch, fix_invisible=fix_invisible, default_domain=default_domain, strict=strict
    )


def source_options(
    settings: Settings,
    *,
    mapping: Mapping[str, str] | None = None,
    encoding: str | None = None,
    date_format: str | None = None,
    empty_values: Iterable[str] = (),
    strict: bool | None = None,
) -> dict[str, Any]:
    """The reading options of ``load_specs``: the given ones over the profile's
    (``columns``, ``encoding``, ``date_format``, ``empty_values``, ``strict``)."""
    prof = settings.profile
    columns = {**(column_mapping(settings) or {}), **dict(mapping or {})}
    return {
        "mapping": columns or None,
        "encoding": encoding or prof.encoding,
        "date_format": date_format or prof.date_format,
        "empty_values": tuple(empty_values) or prof.empty_values,
        "strict": prof.strict if strict is None else strict,
    }


def refuse_file_errors(validation: Validation) -> None:
    """Raise SourceError when the sources have an error that belongs to no row."""
    first = next((p for p in validation.file_problems if p.severity is Severity.ERROR), None)
    if first is not None:
        raise SourceError(
            f"{first.where()}: {first.message} (the sources have file-level errors; "
            "nothing applied)",
            path=first.provenance.source if first.provenance else None,
        )


def column_mapping(settings: Settings) -> dict[str, str] | None:
    cols = settings.columns
    return {str(k): str(v) for k, v in cols.items()} if cols else None
