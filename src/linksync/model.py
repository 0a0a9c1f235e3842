"""Plain values passed between stages: desired links, remote links, per-row results.

Stages: sources -> LinkSpec (with Provenance) -> validate -> remote state (RemoteLink)
-> Plan -> executor -> RowResult -> report writers.

Field names are snake_case in Python and camelCase on the wire; ``API_NAMES`` maps one
to the other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

#: Every input field of a link, in the interface's order (Python names).
LINK_FIELDS: tuple[str, ...] = (
    "url",
    "slug",
    "domain",
    "description",
    "tags",
    "password",
    "expires_at",
    "apple",
    "google",
)

#: Fields PATCH can change (the interface's list). expiresAt, slug and domain cannot.
PATCHABLE_FIELDS: frozenset[str] = frozenset(
    {"url", "description", "tags", "apple", "google", "password"}
)

#: Python name -> wire name.
API_NAMES: dict[str, str] = {
    "url": "url",
    "slug": "slug",
    "domain": "domain",
    "description": "description",
    "tags": "tags",
    "password": "password",
    "expires_at": "expiresAt",
    "apple": "apple",
    "google": "google",
}
FIELD_FROM_API: dict[str, str] = {v: k for k, v in API_NAMES.items()}


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where a desired link came from, as the user sees it.

    ``row`` is 1-based as shown by a spreadsheet program (the header is usually row 1,
    so the first data row is 2); for YAML it is the line of the entry. ``columns`` maps
    a field name to the column header (or YAML key) its value came from.
    """

    source: str
    sheet: str | None = None
    row: int | None = None
    columns: Mapping[str, str] = field(default_factory=dict)

    def column_of(self, field_name: str) -> str | None:
        return self.columns.get(field_name)

    def where(self, field_name: str | None = None) -> str:
        """'campaign.xlsx, sheet Spring, row 7, column "Destination URL"'."""
        parts = [self.source]
        if self.sheet:
            parts.append(f"sheet {self.sheet}")
        if self.row is not None:
            parts.append(f"row {self.row}")
        if field_name:
            col = self.columns.get(field_name, field_name)
            parts.append(f'column "{col}"')
        return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class LinkSpec:
    """A desired link as declared in a source.

    ``managed`` names the fields the source sets. A field not in ``managed`` is left
    alone on the remote (an empty spreadsheet cell); a field in ``managed`` whose value
    is None (or an empty tags tuple) clears the remote value (YAML ``null`` / ``[]``).
    """

    url: str | None
    slug: str | None = None
    domain: str | None = None
    description: str | None = None
    tags: tuple[str, ...] | None = None
    password: str | None = None
    expires_at: str | None = None
    apple: str | None = None
    google: str | None = None
    managed: frozenset[str] = frozenset()
    provenance: Provenance | None = None

    def value(self, field_name: str) -> Any:
        return getattr(self, field_name)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in LINK_FIELDS:
            if name in self.managed or name in ("url", "slug", "domain"):
                v = getattr(self, name)
                if name == "password" and v is not None:
                    v = "***"
                out[name] = list(v) if isinstance(v, tuple) else v
        if self.provenance is not None:
            out["source"] = self.provenance.source
            out["sheet"] = self.provenance.sheet
            out["row"] = self.provenance.row
        return out


@dataclass(frozen=True, slots=True)
class RemoteLink:
    """A link as the service holds it. The password is never returned, only whether
    one is set. Unknown extra fields of the record are kept in ``extra``."""

    domain: str
    slug: str
    url: str
    id: str | None = None
    short_url: str | None = None
    description: str | None = None
    tags: tuple[str, ...] = ()
    apple: str | None = None
    google: str | None = None
    has_password: bool = False
    expires_at: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str]:
        return (self.domain.lower(), self.slug.lower())

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "domain": self.domain,
            "slug": self.slug,
            "shortUrl": self.short_url,
            "url": self.url,
            "description": self.description,
            "tags": list(self.tags),
            "apple": self.apple,
            "google": self.google,
            "hasPassword": self.has_password,
            "expiresAt": self.expires_at,
            "createdAt": self.created_at,
            "updatedAt": self.updated_at,
        }


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Problem:
    """One finding about one row (or one file), named with a constant of errors.py.

    Warnings (e.g. an invisible character stripped by --fix-invisible) do not make
    the row invalid; errors do. ``column`` names the column (or YAML key) when it is
    not the one of ``field`` (an extra value beyond the header, an unknown key).
    """

    constant: str
    message: str
    provenance: Provenance | None = None
    field: str | None = None
    severity: Severity = Severity.ERROR
    column: str | None = None

    @property
    def column_name(self) -> str | None:
        """The column as the user sees it (header or YAML key), if any."""
        if self.column is not None:
            return self.column
        if self.field is None:
            return None
        p = self.provenance
        return (p.column_of(self.field) if p else None) or self.field

    def where(self) -> str:
        if self.provenance is None:
            return "(no source)"
        if self.column is not None:
            return f'{self.provenance.where()}, column "{self.column}"'
        return self.provenance.where(self.field)

    def to_dict(self) -> dict[str, Any]:
        p = self.provenance
        return {
            "severity": self.severity.value,
            "constant": self.constant,
            "message": self.message,
            "source": p.source if p else None,
            "sheet": p.sheet if p else None,
            "row": p.row if p else None,
            "column": self.column_name,
        }


class Action(StrEnum):
    CREATE = "create"
    UPDATE = "update"
    REPLACE = "replace"
    DELETE = "delete"
    UNCHANGED = "unchanged"
    INVALID = "invalid"
    SKIP = "skip"


class Status(StrEnum):
    PLANNED = "planned"  # in a plan, not applied
    OK = "ok"
    FAILED = "failed"
    SKIPPED = "skipped"
    INVALID = "invalid"


#: Report columns, in order. Every report format writes these.
RESULT_COLUMNS: tuple[str, ...] = (
    "source",
    "sheet",
    "row",
    "domain",
    "slug",
    "short_url",
    "url",
    "action",
    "status",
    "changed_fields",
    "http_status",
    "error_constant",
    "error_code",
    "message",
    "request_id",
    "attempts",
)


@dataclass(frozen=True, slots=True)
class RowResult:
    """What happened to one source row (or one delete). One per report row."""

    action: Action
    status: Status
    source: str | None = None
    sheet: str | None = None
    row: int | None = None
    domain: str | None = None
    slug: str | None = None
    short_url: str | None = None
    url: str | None = None
    changed_fields: tuple[str, ...] = ()
    http_status: int | None = None
    error_constant: str | None = None
    error_code: int | None = None
    message: str | None = None
    request_id: str | None = None
    attempts: int = 0
    #: (field, old, new) of each changed field when known (a plan's rows), for readers
    #: such as the markdown plan; not a report column.
    field_changes: tuple[tuple[str, Any, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Report row: the RESULT_COLUMNS, plain JSON types."""
        return {
            "source": self.source,
            "sheet": self.sheet,
            "row": self.row,
            "domain": self.domain,
            "slug": self.slug,
            "short_url": self.short_url,
            "url": self.url,
            "action": self.action.value,
            "status": self.status.value,
            "changed_fields": ",".join(self.changed_fields),
            "http_status": self.http_status,
            "error_constant": self.error_constant,
            "error_code": self.error_code,
            "message": self.message,
            "request_id": self.request_id,
            "attempts": self.attempts,
        }

    @property
    def failed(self) -> bool:
        return self.status in (Status.FAILED, Status.INVALID)


@dataclass(frozen=True, slots=True)
class RunInfo:
    """Facts about one run, for report summaries."""

    target: str
    mode: str = "upsert"
    dry_run: bool = False
    started_at: str | None = None
    duration_s: float = 0.0
    requests: int = 0
    requests_by_kind: Mapping[str, int] = field(default_factory=dict)
    rate_limit_waits: int = 0
    run_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "mode": self.mode,
            "dry_run": self.dry_run,
            "started_at": self.started_at,
            "duration_s": round(self.duration_s, 3),
            "requests": self.requests,
            "requests_by_kind": dict(sorted(self.requests_by_kind.items())),
            "rate_limit_waits": self.rate_limit_waits,
            "run_id": self.run_id,
        }
