"""Plain values passed between stages: desired links, remote links, per-row results.

Stages: sources -> LinkSpec (with Provenance) -> validate -> remote state (RemoteLink)
-> Plan -> executor -> RowResult -> report writers.

Field names are snake_case in Python and camelCase on the wire; ``API_NAMES`` maps one
to the other. A link's identity is a ``LinkKey`` (domain and slug, folded to lower
case); a row's origin is its ``Provenance`` (``place``: source, sheet, row). Each value
has one ``to_dict`` (plain JSON types) and one ``from_dict`` that reads it back; a
desired link's password is written as ``"***"``, never in clear.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple, Protocol

from linksync.errors import ApiError, code_of
from linksync.secrets import REDACTED

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


class LinkKey(NamedTuple):
    """A link's identity on the service: (domain, slug), both folded to lower case.
    The empty domain stands for the service's own domain when it has no name yet."""

    domain: str
    slug: str

    @classmethod
    def of(cls, domain: str | None, slug: str) -> LinkKey:
        return cls((domain or "").strip().lower(), slug.lower())


#: Where a row came from, as (source, sheet, row): ``Provenance.place``.
Place = tuple[str, str | None, int | None]


def plain(value: Any) -> Any:
    """JSON types: tuples and sets as lists (sets sorted), mappings with text keys."""
    if isinstance(value, tuple | list | frozenset | set):
        items = [plain(v) for v in value]
        return sorted(items) if isinstance(value, frozenset | set) else items
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    return value


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

    @property
    def place(self) -> Place:
        """(source, sheet, row): what tells one source row from another."""
        return (self.source, self.sheet, self.row)

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

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "sheet": self.sheet, "row": self.row,
                "columns": dict(self.columns)}  # fmt: skip

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Provenance:
        return cls(
            source=str(d["source"]),
            sheet=d.get("sheet"),
            row=d.get("row"),
            columns=dict(d.get("columns") or {}),
        )


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
        """Every field (the password as ``"***"``), ``managed`` and the provenance."""
        return {
            "url": self.url,
            "slug": self.slug,
            "domain": self.domain,
            "description": self.description,
            "tags": list(self.tags) if self.tags is not None else None,
            "password": REDACTED if self.password is not None else None,
            "expires_at": self.expires_at,
            "apple": self.apple,
            "google": self.google,
            "managed": sorted(self.managed),
            "provenance": self.provenance.to_dict() if self.provenance else None,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> LinkSpec:
        tags = d.get("tags")
        return cls(
            url=d.get("url"),
            slug=d.get("slug"),
            domain=d.get("domain"),
            description=d.get("description"),
            tags=tuple(tags) if tags is not None else None,
            password=d.get("password"),
            expires_at=d.get("expires_at"),
            apple=d.get("apple"),
            google=d.get("google"),
            managed=frozenset(d.get("managed") or ()),
            provenance=Provenance.from_dict(d["provenance"]) if d.get("provenance") else None,
        )


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
    def key(self) -> LinkKey:
        return LinkKey.of(self.domain, self.slug)

    def to_dict(self) -> dict[str, Any]:
        """The record in wire names, with the fields this version does not know."""
        return {
            **plain(self.extra),
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

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RemoteLink:
        return cls(
            domain=str(d["domain"]),
            slug=str(d["slug"]),
            url=str(d.get("url") or ""),
            id=d.get("id"),
            short_url=d.get("shortUrl"),
            description=d.get("description"),
            tags=tuple(d.get("tags") or ()),
            apple=d.get("apple"),
            google=d.get("google"),
            has_password=bool(d.get("hasPassword", False)),
            expires_at=d.get("expiresAt"),
            created_at=d.get("createdAt"),
            updated_at=d.get("updatedAt"),
            extra={k: v for k, v in d.items() if k not in _REMOTE_KEYS},
        )


_REMOTE_KEYS = frozenset(
    {"id", "domain", "slug", "shortUrl", "url", "description", "tags", "apple", "google",
     "hasPassword", "expiresAt", "createdAt", "updatedAt"}
)  # fmt: skip


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
        """Where (source, sheet, row, and the column as the user sees it) for readers,
        plus the field and the whole provenance for ``from_dict``."""
        p = self.provenance
        return {
            "severity": self.severity.value,
            "constant": self.constant,
            "message": self.message,
            "source": p.source if p else None,
            "sheet": p.sheet if p else None,
            "row": p.row if p else None,
            "column": self.column_name,
            "field": self.field,
            "provenance": p.to_dict() if p else None,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Problem:
        prov = d.get("provenance")
        provenance = Provenance.from_dict(prov) if prov else None
        field_name = d.get("field")
        shown = d.get("column")
        # ``column`` holds the column as shown; it is the problem's own column only
        # when the field's does not already give that name.
        by_field = None
        if field_name is not None:
            by_field = (provenance.column_of(field_name) if provenance else None) or field_name
        return cls(
            constant=str(d["constant"]),
            message=str(d.get("message") or ""),
            provenance=provenance,
            field=field_name,
            severity=Severity(d.get("severity", "error")),
            column=shown if shown is not None and shown != by_field else None,
        )


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

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RowResult:
        """A report row (or a journal ``result`` record) read back."""
        changed = d.get("changed_fields") or ""
        row = d.get("row")
        return cls(
            action=Action(d["action"]),
            status=Status(d["status"]),
            source=d.get("source"),
            sheet=d.get("sheet"),
            row=int(row) if row is not None and str(row).strip() != "" else None,
            domain=d.get("domain"),
            slug=d.get("slug"),
            short_url=d.get("short_url"),
            url=d.get("url"),
            changed_fields=tuple(f for f in str(changed).split(",") if f),
            http_status=d.get("http_status"),
            error_constant=d.get("error_constant"),
            error_code=d.get("error_code"),
            message=d.get("message"),
            request_id=d.get("request_id"),
            attempts=int(d.get("attempts") or 0),
        )

    @classmethod
    def from_change(
        cls,
        change: PlannedRow,
        status: Status,
        *,
        action: Action | None = None,
        link: RemoteLink | None = None,
        constant: str | None = None,
        message: str | None = None,
        error: ApiError | None = None,
        http_status: int | None = None,
        request_id: str | None = None,
        attempts: int = 0,
        field_name: str | None = None,
        column: str | None = None,
        field_changes: tuple[tuple[str, Any, Any], ...] = (),
    ) -> RowResult:
        """The report row of one plan change (``linksync.sync.plan.Change``): planned,
        applied or failed. ``link`` is the record the service returned (else the one
        the change was planned against); ``error`` a service error (its constant,
        message, status and requestId unless given). A problem's message names its
        column (``field_name``, the field the constant is about, or ``column``)."""
        spec, prov = change.spec, change.spec.provenance if change.spec else None
        if error is not None:
            constant = constant or error.constant
            message = message or error.message
            http_status, request_id = error.status, error.request_id
            field_name = field_name or error_field(constant, spec)
        shown = link if link is not None else change.remote
        url = spec.url.strip() if spec is not None and spec.url else None
        return cls(
            action=action or change.action,
            status=status,
            source=prov.source if prov else None,
            sheet=prov.sheet if prov else None,
            row=prov.row if prov else None,
            domain=link.domain if link is not None else change.domain,
            slug=link.slug if link is not None else change.slug,
            short_url=shown.short_url if shown is not None else None,
            url=url or (shown.url if shown is not None else None),
            changed_fields=change.changed_fields,
            http_status=http_status,
            error_constant=constant,
            error_code=(error.code if error is not None else None)
            or (code_of(constant) if constant else None),
            message=in_column(message, field_name, prov, column),
            request_id=request_id,
            attempts=attempts,
            field_changes=field_changes,
        )

    @property
    def failed(self) -> bool:
        return self.status in (Status.FAILED, Status.INVALID)

    @property
    def not_attempted(self) -> bool:
        """A row the run never sent (it was stopped or interrupted first)."""
        return self.status is Status.SKIPPED and self.error_constant == "NOT_ATTEMPTED"


class PlannedRow(Protocol):
    """What ``RowResult.from_change`` reads of a plan change."""

    @property
    def action(self) -> Action: ...

    @property
    def domain(self) -> str: ...

    @property
    def slug(self) -> str | None: ...

    @property
    def spec(self) -> LinkSpec | None: ...

    @property
    def remote(self) -> RemoteLink | None: ...

    @property
    def changed_fields(self) -> tuple[str, ...]: ...


#: The field a service error is about, so the row can name its column as validate does.
ERROR_FIELDS: dict[str, str] = {
    "INVALID_URL": "url",
    "INVALID_SLUG": "slug",
    "RESERVED_SLUG": "slug",
    "SLUG_EXISTS": "slug",
    "INVALID_EXPIRY": "expires_at",
}


def error_field(constant: str | None, spec: LinkSpec | None) -> str | None:
    """The field a service error constant names, when it can only be that one (an
    INVALID_URL of a row that also sets iOS/Android URLs could be any of them)."""
    name = ERROR_FIELDS.get(constant or "")
    if name == "url" and spec is not None and {"apple", "google"} & set(spec.managed):
        return None
    return name


def in_column(
    message: str | None,
    field_name: str | None,
    prov: Provenance | None,
    column: str | None = None,
) -> str | None:
    """``message`` prefixed with the column it is about: 'column "Destination URL": ...'
    (``column``: a column no field names, e.g. a value beyond the header)."""
    if not message or not (field_name or column) or prov is None:
        return message
    name = column or prov.column_of(field_name or "") or field_name
    prefix = f'column "{name}": '
    return message if message.startswith(prefix) else prefix + message


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

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RunInfo:
        return cls(
            target=str(d["target"]),
            mode=str(d.get("mode") or "upsert"),
            dry_run=bool(d.get("dry_run", False)),
            started_at=d.get("started_at"),
            duration_s=float(d.get("duration_s") or 0.0),
            requests=int(d.get("requests") or 0),
            requests_by_kind=dict(d.get("requests_by_kind") or {}),
            rate_limit_waits=int(d.get("rate_limit_waits") or 0),
            run_id=d.get("run_id"),
        )
