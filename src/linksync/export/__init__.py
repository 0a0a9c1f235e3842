"""Export a live workspace as link files, to bootstrap a links-as-code repository.

``export_links(client, out, format=..., domain=..., tag=..., split_by=...)`` lists the
workspace's links and writes them so that reading the files back (``read_sources``)
and planning against the same workspace gives no change:

- YAML (default): ``defaults.domain`` when a file holds one domain, links as a mapping
  keyed by slug (or a list sorted by domain and slug when a file mixes domains), the
  ``# yaml-language-server: $schema=...`` line, and a header that says passwords cannot
  be exported and names the links that have one. Every string YAML could read as
  something else (``no``, ``0123``, ``2025-12-31``) is quoted.
- CSV / xlsx: the column names the sources reader recognises (Domain, Slug,
  Destination URL, Description, Tags, Expires At, iOS URL, Android URL), plus an
  informational "Has Password" column the reader ignores.

A field the service holds empty is left out of the file, so it stays unmanaged (the
plan leaves the remote value alone). Passwords are write-only: never in the files, so
the plan never touches them. An expiry already in the past is left out too (the
service refuses to set a past expiry, so declaring it would make the row invalid);
``ExportInfo.warnings`` names those links.

``split_by="domain"`` writes one file per domain, ``split_by="tag"`` one per tag (a
link with several tags goes to the file of its first tag in sorted order, so no link
is declared twice); OUT is then a directory.

``qr=PATH.zip`` (``--qr``) also writes the QR code of each exported short link
(``linksync.report.qr``).

Files: an existing file is never overwritten unless ``force=True`` (``--force``); every
path is checked (``linksync.safe.outputs``) before anything is written, ``check_export``
does it before the links are even fetched; each file is written atomically.

The package: this module, ``export.formats`` (YAML, CSV and xlsx renderings) and
``export.schema`` (the JSON Schema of link files). It may import errors, model, rules,
safe and ``linksync.report`` (QR codes, the xlsx writer), never the pipeline or a front
end.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, Protocol

from linksync.errors import ConfigError
from linksync.export.formats import (
    DEFAULT_SCHEMA_REF,
    TABLE_COLUMNS,
    is_past,
    link_sort_key,
    render_csv,
    render_yaml,
    write_xlsx,
)
from linksync.export.schema import write_schemas_for
from linksync.model import RemoteLink
from linksync.report.cells import is_formula_like
from linksync.report.qr import links_of_remote, qr_output, write_qr_zip
from linksync.safe.leftovers import describe_removed, remove_leftovers
from linksync.safe.outputs import (
    Output,
    Protected,
    atomic_path,
    check_outputs,
    write_text_atomic,
)

__all__ = [
    "DEFAULT_SCHEMA_REF",
    "FORMATS",
    "TABLE_COLUMNS",
    "ExportInfo",
    "check_export",
    "export_links",
    "group_links",
    "render_csv",
    "render_yaml",
    "write_export",
    "write_xlsx",
]

ExportFormat = Literal["yaml", "csv", "xlsx"]
SplitBy = Literal["domain", "tag"]

FORMATS: tuple[str, ...] = ("yaml", "csv", "xlsx")
#: Extensions a single export file may have, by format (the first for a file it names).
FILE_SUFFIXES: dict[str, tuple[str, ...]] = {
    "yaml": (".yaml", ".yml"),
    "csv": (".csv",),
    "xlsx": (".xlsx",),
}

UNTAGGED = "untagged"


class LinkLister(Protocol):
    """What export needs of a client: ``LinkServiceClient.iter_links``."""

    def iter_links(
        self, search: str | None = None, tag: str | None = None, domain: str | None = None
    ) -> AsyncIterator[RemoteLink]: ...


@dataclass(frozen=True, slots=True)
class ExportInfo:
    """What an export wrote."""

    format: str
    files: tuple[Path, ...]
    links: int
    with_password: tuple[str, ...] = ()  # "domain/slug" of links whose password is not exported
    warnings: tuple[str, ...] = field(default_factory=tuple)
    schemas: tuple[Path, ...] = ()  # the JSON Schema files the YAML headers point at
    qr: Path | None = None  # the zip of QR codes (--qr)
    qr_codes: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "files": [str(p) for p in self.files],
            "links": self.links,
            "with_password": list(self.with_password),
            "warnings": list(self.warnings),
            "schemas": [str(p) for p in self.schemas],
            "qr": str(self.qr) if self.qr is not None else None,
            "qr_codes": self.qr_codes,
        }


# --- grouping -------------------------------------------------------------------------


def _group_name(link: RemoteLink, split_by: SplitBy | None, tag: str | None) -> str:
    if split_by == "domain":
        return link.domain.lower()
    if split_by == "tag":
        if tag is not None:
            return tag
        return sorted(link.tags)[0] if link.tags else UNTAGGED
    return ""


def _safe_stem(name: str) -> str:
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "links"
    return stem[:100]


def group_links(
    links: Iterable[RemoteLink], split_by: SplitBy | None, tag: str | None = None
) -> dict[str, list[RemoteLink]]:
    """Links by file stem (one group "" when not split), each sorted by domain and slug.

    Stems are filesystem-safe and unique even on case-insensitive filesystems.
    """
    groups: dict[str, list[RemoteLink]] = {}
    for link in links:
        groups.setdefault(_group_name(link, split_by, tag), []).append(link)
    out: dict[str, list[RemoteLink]] = {}
    taken: set[str] = set()
    for name in sorted(groups, key=lambda n: (n.lower(), n)):
        stem = _safe_stem(name) if split_by else ""
        candidate, n = stem, 2
        while candidate.lower() in taken:
            candidate, n = f"{stem}-{n}", n + 1
        taken.add(candidate.lower())
        out[candidate] = sorted(groups[name], key=link_sort_key)
    return out


# --- writing --------------------------------------------------------------------------


def _warnings(links: Sequence[RemoteLink], fmt: str, now: datetime) -> list[str]:
    out: list[str] = []
    for ln in links:
        name = f"{ln.domain}/{ln.slug}"
        if ln.expires_at and is_past(ln.expires_at, now):
            out.append(f"{name}: expiresAt {ln.expires_at} is past; left out of the file")
        if fmt == "csv":
            cells = [ln.description or "", *ln.tags]
            if any(is_formula_like(c) for c in cells):
                out.append(
                    f"{name}: a value starts like a spreadsheet formula; open the CSV as "
                    "text, or export as yaml or xlsx"
                )
        if fmt != "yaml" and any(re.search(r"[,;|]", t) for t in ln.tags):
            out.append(
                f"{name}: a tag contains , ; or | and will be split when read back; "
                "export as yaml to keep it"
            )
    return out


def _is_folder(out: str | Path, split: bool) -> bool:
    return split or Path(out).is_dir() or str(out).endswith(("/", "\\"))


def _targets(out: Path, fmt: str, stems: Iterable[str], split: bool) -> dict[str, Path]:
    ext = FILE_SUFFIXES[fmt][0]
    if _is_folder(out, split):
        if out.exists() and not out.is_dir():
            raise ConfigError(f"{out} is a file; --split-by needs a directory")
        return {stem: out / f"{stem or 'links'}{ext}" for stem in stems}
    return {stem: out for stem in stems}


def check_export(
    out: str | Path,
    *,
    format: ExportFormat = "yaml",
    split_by: SplitBy | None = None,
    force: bool = False,
    protected: Sequence[Protected] = (),
    files: Sequence[Path] = (),
    qr: str | Path | None = None,
) -> None:
    """Raise ``ConfigError`` when the export cannot be written: a bad extension or
    folder, a file the run reads (``protected``), or an existing file without
    ``force``. ``files``: the files the export will write, once known. ``qr``: the
    zip of QR codes, checked with them."""
    if format not in FORMATS:
        raise ConfigError(f"unknown export format {format!r} (use yaml, csv or xlsx)")
    folder = _is_folder(out, split_by is not None)
    outputs = [Output(Path(out), "export", FILE_SUFFIXES[format], folder=folder)]
    outputs.extend(Output(f, "export") for f in files if f != Path(out))
    if qr is not None:
        outputs.append(qr_output(qr))
    check_outputs(outputs, protected)
    targets = list(files) or ([] if folder else [Path(out)])
    if qr is not None:
        targets.append(Path(qr))
    existing = [str(f) for f in targets if f.exists() or f.is_symlink()]
    if existing and not force:
        raise ConfigError(
            f"{', '.join(existing)} exist(s) already; use --force to overwrite "
            f"{'it' if len(existing) == 1 else 'them'}"
        )


def write_export(
    links: Iterable[RemoteLink],
    out: str | Path,
    *,
    format: ExportFormat = "yaml",
    split_by: SplitBy | None = None,
    tag: str | None = None,
    schema_ref: str | None = DEFAULT_SCHEMA_REF,
    now: datetime | None = None,
    force: bool = False,
    protected: Sequence[Protected] = (),
) -> ExportInfo:
    """Write ``links`` to ``out`` (a file, or a directory when split). Pure but for the
    files it writes; ``export_links`` fetches the links and calls this. Refuses
    (``ConfigError``, nothing written) an existing file unless ``force``, and any path
    ``check_export`` refuses."""
    if format not in FORMATS:
        raise ConfigError(f"unknown export format {format!r} (use yaml, csv or xlsx)")
    if split_by not in (None, "domain", "tag"):
        raise ConfigError(f"unknown --split-by {split_by!r} (use domain or tag)")
    now = now or datetime.now(UTC)
    all_links = sorted(links, key=link_sort_key)
    groups = group_links(all_links, split_by, tag) if all_links else {"": []}
    paths = _targets(Path(out), format, groups, split_by is not None)
    check_export(
        out,
        format=format,
        split_by=split_by,
        force=force,
        protected=protected,
        files=list(paths.values()),
    )
    removed = remove_leftovers(paths.values())  # what killed exports of this host left
    left = (describe_removed(removed),) if removed else ()
    written: list[Path] = []
    for stem, members in groups.items():
        path = paths[stem]
        if format == "yaml":
            write_text_atomic(path, render_yaml(members, schema_ref=schema_ref, now=now))
        elif format == "csv":
            write_text_atomic(path, render_csv(members, now=now), newline="")
        else:
            with atomic_path(path) as tmp:
                write_xlsx(members, tmp, now=now)
        written.append(path)
    schemas, schema_warnings = write_schemas_for(written, schema_ref if format == "yaml" else None)
    return ExportInfo(
        format=format,
        files=tuple(written),
        links=len(all_links),
        with_password=tuple(f"{ln.domain}/{ln.slug}" for ln in all_links if ln.has_password),
        warnings=(*left, *_warnings(all_links, format, now), *schema_warnings),
        schemas=schemas,
    )


async def export_links(
    client: LinkLister,
    out: str | Path,
    *,
    format: ExportFormat = "yaml",
    domain: str | None = None,
    tag: str | None = None,
    split_by: SplitBy | None = None,
    schema_ref: str | None = DEFAULT_SCHEMA_REF,
    force: bool = False,
    protected: Sequence[Protected] = (),
    qr: str | Path | None = None,
) -> ExportInfo:
    """List the workspace's links (filtered by domain and tag) and write them to ``out``
    (checked before the first request, see ``check_export``), and their QR codes to
    ``qr``."""
    check_export(out, format=format, split_by=split_by, force=force, protected=protected, qr=qr)
    links = [link async for link in client.iter_links(tag=tag, domain=domain)]
    info = write_export(
        links,
        out,
        format=format,
        split_by=split_by,
        tag=tag,
        schema_ref=schema_ref,
        force=force,
        protected=protected,
    )
    if qr is None:
        return info
    found, missing = links_of_remote(links)
    drawn = write_qr_zip(found, qr, left_out=missing)
    notes = tuple(f"no QR code for {why}" for why in drawn.left_out)
    return replace(info, qr=drawn.path, qr_codes=drawn.links, warnings=info.warnings + notes)
