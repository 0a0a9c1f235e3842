"""What a run does and did: ``Action`` and ``Status``, one ``RowResult`` per row (the
reports' columns), which column an error constant points at, and ``RunInfo``, the facts
of a whole run (see ``linksync.model``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Protocol

from linksync.errors import ApiError, code_of
from linksync.model.links import (
    LinkSpec,
    Problem,
    Provenance,
    RemoteLink,
    Severity,
)
from linksync.rules.timestamps import show_expiry


class Action(StrEnum):
    CREATE = "create"
    UPDATE = "update"
    REPLACE = "replace"
    DELETE = "delete"
    #: A mirror's delete done as an update (``--retire-to URL``): the link points at
    #: the fallback URL and is tagged ``retired``.
    RETIRE = "retire"
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
class CallFacts:
    """What the service said of a row's request when it succeeded: the HTTP status,
    the requestId and the attempts it took (``RowResult.from_change``)."""

    http_status: int | None = None
    request_id: str | None = None
    attempts: int = 0


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
    #: The row's expiry with its zone (``2027-03-31 23:59 America/New_York =
    #: 2027-04-01T03:59:00.000Z``) when known, for the annotated copy; not a report
    #: column (the message says it on a row without another message).
    expires: str | None = None
    #: ``warning CONSTANT: message`` of each warning on a row without an error of its
    #: own (``DEST_NOT_FOUND``, ``URL_PARAM_REPLACED``...); the message lists them, this
    #: keeps them apart for the annotated copy; not a report column.
    warnings: tuple[str, ...] = ()
    #: The plan's notes on the row (a password changed since the last run from this
    #: machine; fields its empty cells leave as on the service), listed in the message
    #: before its warnings; not a report column.
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Report row: the RESULT_COLUMNS in their order, plain JSON types (written out:
        a third of the time of a loop over the names, for a row journaled and reported)."""
        return {
            "source": self.source,
            "sheet": self.sheet,
            "row": self.row,
            "domain": self.domain,
            "slug": self.slug,
            "short_url": self.short_url,
            "url": self.url,
            "action": str(self.action),  # a StrEnum's str is its value, as plain text
            "status": str(self.status),
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
        values: dict[str, Any] = {name: d.get(name) for name in RESULT_COLUMNS}
        changed = values["changed_fields"] or ""
        row = values["row"]
        values["action"] = Action(d["action"])
        values["status"] = Status(d["status"])
        values["row"] = int(row) if row is not None and str(row).strip() != "" else None
        values["changed_fields"] = tuple(f for f in str(changed).split(",") if f)
        values["attempts"] = int(d.get("attempts") or 0)
        return cls(**values)

    @classmethod
    def from_change(
        cls,
        change: PlannedRow,
        status: Status,
        *,
        action: Action | None = None,
        link: RemoteLink | None = None,
        problem: Problem | None = None,
        constant: str | None = None,
        message: str | None = None,
        error: ApiError | None = None,
        call: CallFacts | None = None,
        field_changes: tuple[tuple[str, Any, Any], ...] = (),
    ) -> RowResult:
        """The report row of one plan change (``linksync.sync.plan.Change``): planned,
        applied or failed. ``link`` is the record the service returned (else the one
        the change was planned against); ``problem`` the row's own finding (its
        constant, message, field and column unless ``constant`` or ``message`` is
        given); ``error`` a service error (its constant, message, status and requestId
        unless given); ``call`` what the service said of the request when no error did.
        A problem's message names its column. A row without an error of its own lists
        the plan's notes and its warnings after the message, then its expiry when there
        is no other message: 'warning DEST_NOT_FOUND: ...; expires ...'."""
        spec, prov = change.spec, change.spec.provenance if change.spec else None
        facts = call or CallFacts()
        http_status, request_id, attempts = facts.http_status, facts.request_id, facts.attempts
        field_name = column = None
        if problem is not None:
            constant = constant or problem.constant
            message = problem.message if message is None else message
            field_name, column = problem.field, problem.column
        if error is not None:
            constant = constant or error.constant
            message = message or error.message
            http_status, request_id = error.status, error.request_id
            attempts = error.attempts if call is None else attempts
            field_name = field_name or error_field(constant, spec)
        shown = link if link is not None else change.remote
        url = spec.url.strip() if spec is not None and spec.url else None
        expires = expiry_shown(spec)
        warnings = warning_notes(change.problems) if constant is None and change.problems else ()
        notes = tuple(change.notes) if constant is None else ()
        said = in_column(message, field_name, prov, column)
        if message is None and constant is None and expires is not None:
            said = "; ".join((*notes, *warnings, f"expires {expires}"))
        elif warnings or notes:
            said = "; ".join((said, *notes, *warnings) if said else (*notes, *warnings))
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
            message=said,
            request_id=request_id,
            attempts=attempts,
            field_changes=field_changes,
            expires=expires,
            warnings=warnings,
            notes=notes,
        )

    def saying(self, message: str) -> RowResult:
        """This row with ``message`` in place of its own, its notes and warnings still
        listed."""
        return replace(self, message="; ".join((message, *self.notes, *self.warnings)))

    @property
    def failed(self) -> bool:
        return self.status in (Status.FAILED, Status.INVALID)

    @property
    def not_attempted(self) -> bool:
        """A row the run never sent (it was stopped or interrupted first)."""
        return self.status is Status.SKIPPED and self.error_constant == "NOT_ATTEMPTED"


def expiry_shown(spec: LinkSpec | None) -> str | None:
    """``2027-03-31 23:59 America/New_York = 2027-04-01T03:59:00.000Z``: a row's expiry
    as a wall-clock time in the zone its source was read in (UTC when none was given)
    and the instant sent; None for a row without one."""
    if spec is None or not spec.expires_at:
        return None
    zone = spec.provenance.timezone if spec.provenance is not None else None
    return show_expiry(spec.expires_at, zone)


def warning_notes(problems: Iterable[Problem]) -> tuple[str, ...]:
    """``warning CONSTANT: column "Name": message`` of each warning among a row's
    ``problems`` (the column when the warning names one, as ``validate`` does)."""
    return tuple(
        f"warning {p.constant}: {in_column(p.message, p.field, p.provenance, p.column)}"
        for p in problems
        if p.severity is Severity.WARNING
    )


def expiry_note(spec: LinkSpec | None) -> str | None:
    """``expires 2027-03-31 23:59 America/New_York = ...`` (``expiry_shown``), or None."""
    shown = expiry_shown(spec)
    return f"expires {shown}" if shown is not None else None


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

    @property
    def problems(self) -> tuple[Problem, ...]: ...

    @property
    def notes(self) -> tuple[str, ...]: ...


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
    if prov.is_yaml and column:
        return message  # a YAML message about a key of its own names it, and its line
    prefix = f'key "{name}": ' if prov.is_yaml else f'column "{name}": '
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
