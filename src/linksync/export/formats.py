"""The file formats of ``linksync export``: YAML (nothing a reader could take for
another type), CSV and xlsx with the column names the sources reader recognises. Pure
renderers; ``linksync.export`` decides the files and writes them."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from linksync._version import __version__
from linksync.model import RemoteLink
from linksync.report.xlsx_stream import StreamingWorkbook
from linksync.report.xlsx_xml import CellStyle
from linksync.rules.timestamps import parse_iso

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


def link_sort_key(link: RemoteLink) -> tuple[str, str, str]:
    return (link.domain.lower(), link.slug.lower(), link.slug)


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


def is_past(expires_at: str, now: datetime) -> bool:
    """Whether an expiry is not after ``now`` (an unreadable one is not past)."""
    when = parse_iso(expires_at.strip(), assume_utc=True)
    return when is not None and when <= now


def _link_fields(link: RemoteLink, *, now: datetime) -> dict[str, Any]:
    """The wire-named fields of a link worth declaring (empty ones left out)."""
    out: dict[str, Any] = {"url": link.url}
    if link.description:
        out["description"] = link.description
    if link.tags:
        out["tags"] = sorted(link.tags, key=lambda t: (t.lower(), t))
    if link.expires_at and not is_past(link.expires_at, now):
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
        lines.append("# it alone (add `password: {env: NAME}` to a link to manage it, kept")
        lines.append("# out of git: the password is read from the variable NAME at run time):")
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
    ordered = sorted(links, key=link_sort_key)
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
    for link in sorted(links, key=link_sort_key):
        writer.writerow(_table_row(link, now=now))
    return buf.getvalue()


def write_xlsx(links: Sequence[RemoteLink], path: Path, *, now: datetime | None = None) -> None:
    """One sheet "Links", every cell a string cell (never a formula, URL or number),
    written by the reports' own streaming writer."""
    now = now or datetime.now(UTC)
    workbook = StreamingWorkbook()
    bold = workbook.add_style(CellStyle(bold=True))
    sheet = workbook.add_sheet("Links")
    try:
        sheet.append([header for header, _ in TABLE_COLUMNS], bold)
        for link in sorted(links, key=link_sort_key):
            sheet.append(_table_row(link, now=now))
        sheet.widths = {col: min(n, 60) + 2 for col, n in enumerate(sheet.max_chars)}
        sheet.freeze_rows = 1
        sheet.autofilter = (1, 0, max(sheet.rows, 2), len(TABLE_COLUMNS) - 1)
        workbook.save(path)
    finally:
        workbook.close()
