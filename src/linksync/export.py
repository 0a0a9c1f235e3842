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
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, Protocol

import xlsxwriter  # type: ignore[import-untyped]
import yaml

from linksync import __version__
from linksync.errors import ConfigError
from linksync.model import RemoteLink
from linksync.report.cells import is_formula_like
from linksync.schema import write_schemas_for

ExportFormat = Literal["yaml", "csv", "xlsx"]
SplitBy = Literal["domain", "tag"]

FORMATS: tuple[str, ...] = ("yaml", "csv", "xlsx")
EXTENSIONS: dict[str, str] = {"yaml": ".yaml", "csv": ".csv", "xlsx": ".xlsx"}
DEFAULT_SCHEMA_REF = "links.schema.json"

#: Spreadsheet columns, as the sources reader's aliases name them: (header, field).
TABLE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("Domain", "domain"),
    ("Slug", "slug"),
    ("Destination URL", "url"),
    ("Description", "description"),
    ("Tags", "tags"),
    ("Expires At", "expires_at"),
    ("iOS URL", "apple"),
    ("Android URL", "google"),
    ("Has Password", "has_password"),
)
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

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "files": [str(p) for p in self.files],
            "links": self.links,
            "with_password": list(self.with_password),
            "warnings": list(self.warnings),
            "schemas": [str(p) for p in self.schemas],
        }


# --- grouping -------------------------------------------------------------------------


def _sort_key(link: RemoteLink) -> tuple[str, str, str]:
    return (link.domain.lower(), link.slug.lower(), link.slug)


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
        out[candidate] = sorted(groups[name], key=_sort_key)
    return out


# --- YAML -----------------------------------------------------------------------------

_NUMBER_LIKE = re.compile(r"[-+.]?[0-9][0-9A-Za-z_.:+-]*|[-+]?\.(?:inf|nan)", re.IGNORECASE)
_SPECIAL_WORDS = frozenset(
    {"", "~", "null", "true", "false", "yes", "no", "y", "n", "on", "off", "=", "<<"}
)


def _needs_quotes(text: str) -> bool:
    """Whether a plain scalar could be read as anything but this string by some YAML
    reader (1.1 or 1.2): booleans, nulls, numbers, dates, times. PyYAML's serializer
    quotes what its own 1.1 resolver would misread; this also covers 1.2 readers such
    as an editor's (``0o17``) and keeps anything number-like quoted."""
    return text.lower() in _SPECIAL_WORDS or _NUMBER_LIKE.fullmatch(text) is not None


class _ExportDumper(yaml.SafeDumper):
    """Safe dumper that quotes ambiguous strings and indents lists under their key."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    style = "'" if _needs_quotes(data) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_ExportDumper.add_representer(str, _represent_str)


def _is_past(expires_at: str, now: datetime) -> bool:
    try:
        when = datetime.fromisoformat(expires_at.replace("Z", "+00:00"))
    except ValueError:
        return False
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when <= now


def _link_fields(link: RemoteLink, *, now: datetime) -> dict[str, Any]:
    """The wire-named fields of a link worth declaring (empty ones left out)."""
    out: dict[str, Any] = {"url": link.url}
    if link.description:
        out["description"] = link.description
    if link.tags:
        out["tags"] = sorted(link.tags, key=lambda t: (t.lower(), t))
    if link.expires_at and not _is_past(link.expires_at, now):
        out["expiresAt"] = link.expires_at
    if link.apple:
        out["apple"] = link.apple
    if link.google:
        out["google"] = link.google
    return out


def _yaml_header(links: Sequence[RemoteLink], schema_ref: str | None) -> str:
    lines = []
    if schema_ref:
        lines.append(f"# yaml-language-server: $schema={schema_ref}")
    lines.append(f"# Exported by linksync {__version__}: {len(links)} link(s).")
    lines.append("# Passwords cannot be exported: the service never returns them (write-only).")
    protected = [f"{ln.domain}/{ln.slug}" for ln in links if ln.has_password]
    if protected:
        lines.append("# These links have a password that this file does not set; plan leaves")
        lines.append("# it alone (add `password:` to a link to manage it):")
        lines.extend(f"#   {name}" for name in protected)
    else:
        lines.append("# None of these links has a password.")
    return "\n".join(lines) + "\n"


def render_yaml(
    links: Sequence[RemoteLink],
    *,
    schema_ref: str | None = DEFAULT_SCHEMA_REF,
    now: datetime | None = None,
) -> str:
    """One YAML link file holding ``links`` (sorted by the caller or not: sorted here)."""
    now = now or datetime.now(UTC)
    ordered = sorted(links, key=_sort_key)
    domains = {ln.domain.lower() for ln in ordered}
    doc: dict[str, Any] = {}
    if len(domains) == 1:
        doc["defaults"] = {"domain": ordered[0].domain}
        doc["links"] = {ln.slug: _link_fields(ln, now=now) for ln in ordered}
    else:
        doc["links"] = [
            {"slug": ln.slug, "domain": ln.domain, **_link_fields(ln, now=now)} for ln in ordered
        ]
    body = yaml.dump(
        doc,
        Dumper=_ExportDumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=1000,
    )
    return _yaml_header(ordered, schema_ref) + body


# --- CSV and xlsx ---------------------------------------------------------------------


def _table_row(link: RemoteLink, *, now: datetime) -> list[str]:
    fields = _link_fields(link, now=now)
    values = {
        "domain": link.domain,
        "slug": link.slug,
        "url": link.url,
        "description": fields.get("description", ""),
        "tags": ", ".join(fields.get("tags", [])),
        "expires_at": fields.get("expiresAt", ""),
        "apple": fields.get("apple", ""),
        "google": fields.get("google", ""),
        "has_password": "yes" if link.has_password else "",
    }
    return [values[name] for _, name in TABLE_COLUMNS]


def render_csv(links: Sequence[RemoteLink], *, now: datetime | None = None) -> str:
    now = now or datetime.now(UTC)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([header for header, _ in TABLE_COLUMNS])
    for link in sorted(links, key=_sort_key):
        writer.writerow(_table_row(link, now=now))
    return buf.getvalue()


def write_xlsx(links: Sequence[RemoteLink], path: Path, *, now: datetime | None = None) -> None:
    """One sheet "Links", every cell a string cell (never a formula, URL or number)."""
    now = now or datetime.now(UTC)
    workbook = xlsxwriter.Workbook(
        str(path), {"strings_to_urls": False, "strings_to_numbers": False}
    )
    try:
        sheet = workbook.add_worksheet("Links")
        bold = workbook.add_format({"bold": True})
        for col, (header, _) in enumerate(TABLE_COLUMNS):
            sheet.write_string(0, col, header, bold)
        rows = [_table_row(ln, now=now) for ln in sorted(links, key=_sort_key)]
        for r, row in enumerate(rows, start=1):
            for col, value in enumerate(row):
                if value:
                    sheet.write_string(r, col, value)
        widths = [len(h) for h, _ in TABLE_COLUMNS]
        for row in rows:
            widths = [max(w, min(len(v), 60)) for w, v in zip(widths, row, strict=True)]
        for col, width in enumerate(widths):
            sheet.set_column(col, col, width + 2)
        sheet.freeze_panes(1, 0)
        sheet.autofilter(0, 0, max(len(rows), 1), len(TABLE_COLUMNS) - 1)
    finally:
        workbook.close()


# --- writing --------------------------------------------------------------------------


def _warnings(links: Sequence[RemoteLink], fmt: str, now: datetime) -> list[str]:
    out: list[str] = []
    for ln in links:
        name = f"{ln.domain}/{ln.slug}"
        if ln.expires_at and _is_past(ln.expires_at, now):
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


def _targets(out: Path, fmt: str, stems: Iterable[str], split: bool) -> dict[str, Path]:
    ext = EXTENSIONS[fmt]
    if split or out.is_dir() or str(out).endswith(("/", "\\")):
        if out.exists() and not out.is_dir():
            raise ConfigError(f"{out} is a file; --split-by needs a directory")
        return {stem: out / f"{stem or 'links'}{ext}" for stem in stems}
    return {stem: out for stem in stems}


def write_export(
    links: Iterable[RemoteLink],
    out: str | Path,
    *,
    format: ExportFormat = "yaml",
    split_by: SplitBy | None = None,
    tag: str | None = None,
    schema_ref: str | None = DEFAULT_SCHEMA_REF,
    now: datetime | None = None,
) -> ExportInfo:
    """Write ``links`` to ``out`` (a file, or a directory when split). Pure but for the
    files it writes; ``export_links`` fetches the links and calls this."""
    if format not in FORMATS:
        raise ConfigError(f"unknown export format {format!r} (use yaml, csv or xlsx)")
    if split_by not in (None, "domain", "tag"):
        raise ConfigError(f"unknown --split-by {split_by!r} (use domain or tag)")
    now = now or datetime.now(UTC)
    all_links = sorted(links, key=_sort_key)
    groups = group_links(all_links, split_by, tag) if all_links else {"": []}
    paths = _targets(Path(out), format, groups, split_by is not None)
    written: list[Path] = []
    for stem, members in groups.items():
        path = paths[stem]
        path.parent.mkdir(parents=True, exist_ok=True)
        if format == "yaml":
            path.write_text(render_yaml(members, schema_ref=schema_ref, now=now), "utf-8")
        elif format == "csv":
            path.write_text(render_csv(members, now=now), encoding="utf-8", newline="")
        else:
            write_xlsx(members, path, now=now)
        written.append(path)
    schemas, schema_warnings = write_schemas_for(written, schema_ref if format == "yaml" else None)
    return ExportInfo(
        format=format,
        files=tuple(written),
        links=len(all_links),
        with_password=tuple(f"{ln.domain}/{ln.slug}" for ln in all_links if ln.has_password),
        warnings=(*_warnings(all_links, format, now), *schema_warnings),
        schemas=schemas,
    )


async def fetch_links(
    client: LinkLister, *, domain: str | None = None, tag: str | None = None
) -> list[RemoteLink]:
    """Every link of the workspace (or of one domain / tag), sorted by domain and slug."""
    links = [link async for link in client.iter_links(tag=tag, domain=domain)]
    return sorted(links, key=_sort_key)


async def export_links(
    client: LinkLister,
    out: str | Path,
    *,
    format: ExportFormat = "yaml",
    domain: str | None = None,
    tag: str | None = None,
    split_by: SplitBy | None = None,
    schema_ref: str | None = DEFAULT_SCHEMA_REF,
) -> ExportInfo:
    """List the workspace's links (filtered by domain and tag) and write them to ``out``."""
    if format not in FORMATS:
        raise ConfigError(f"unknown export format {format!r} (use yaml, csv or xlsx)")
    links = await fetch_links(client, domain=domain, tag=tag)
    return write_export(
        links, out, format=format, split_by=split_by, tag=tag, schema_ref=schema_ref
    )
