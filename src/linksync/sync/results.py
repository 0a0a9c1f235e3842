"""What an apply returns: one ``RowResult`` per plan change, and the ``Results`` of the
run; how each kind of change turns into a result (``static_result`` for the changes
that send nothing, ``row_result`` for the others)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from linksync.errors import ApiError, code_of
from linksync.model import (
    Action,
    LinkSpec,
    Provenance,
    RemoteLink,
    RowResult,
    RunInfo,
    Status,
)
from linksync.outcome import RemoteWrites
from linksync.sync.plan import REDACTED, Change, Plan


class ProgressSink(Protocol):
    """Told about the run as it goes (see ``sync.progress``)."""

    def start(self, total: int) -> None: ...

    def advance(self, result: RowResult) -> None: ...

    def finish(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Results:
    """What an apply did: one RowResult per plan change, in plan order."""

    rows: tuple[RowResult, ...]
    plan: Plan
    run_id: str
    started_at: str
    duration_s: float
    journal: str | None = None
    interrupted: bool = False
    stopped_by: str | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    writes: RemoteWrites = field(default_factory=RemoteWrites)

    @property
    def counts(self) -> dict[str, int]:
        c = Counter(r.status.value for r in self.rows)
        return {s.value: c.get(s.value, 0) for s in Status if s is not Status.PLANNED}

    @property
    def failed(self) -> tuple[RowResult, ...]:
        return tuple(r for r in self.rows if r.failed)

    @property
    def ok(self) -> bool:
        return not self.failed and not self.interrupted

    @property
    def not_attempted(self) -> int:
        """Rows the run never sent (it was stopped or interrupted first)."""
        return sum(1 for r in self.rows if r.error_constant == "NOT_ATTEMPTED")

    def run_info(self, target: str) -> RunInfo:
        """The run facts the reports and the summary show."""
        stats = self.stats
        return RunInfo(
            target=target,
            mode=self.plan.options.mode.value,
            started_at=self.started_at,
            duration_s=self.duration_s,
            requests=int(stats.get("requests", 0)),
            requests_by_kind=dict(stats.get("requests_by_kind", {})),
            rate_limit_waits=int(stats.get("rate_limited", 0)),
            run_id=self.run_id,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "started_at": self.started_at,
            "duration_s": round(self.duration_s, 3),
            "journal": self.journal,
            "interrupted": self.interrupted,
            "stopped_by": self.stopped_by,
            "writes": self.writes.to_dict(),
            "counts": self.counts,
            "plan_counts": self.plan.counts,
            "stats": self.stats,
            "rows": [r.to_dict() for r in self.rows],
        }


#: The field a service error is about, so the row can name its column as validate does.
ERROR_FIELDS: dict[str, str] = {
    "INVALID_URL": "url",
    "INVALID_SLUG": "slug",
    "RESERVED_SLUG": "slug",
    "SLUG_EXISTS": "slug",
    "INVALID_EXPIRY": "expires_at",
}


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


def error_field(constant: str | None, spec: LinkSpec | None) -> str | None:
    """The field a service error constant names, when it can only be that one (an
    INVALID_URL of a row that also sets iOS/Android URLs could be any of them)."""
    name = ERROR_FIELDS.get(constant or "")
    if name == "url" and spec is not None and {"apple", "google"} & set(spec.managed):
        return None
    return name


def static_result(ch: Change) -> RowResult | None:
    """The result of a change that sends nothing (unchanged, invalid, skip, blocked)."""
    if ch.blocked_by is not None:
        problem = next((p for p in ch.problems if p.constant == ch.blocked_by), None)
        return row_result(
            ch,
            Status.FAILED,
            constant=ch.blocked_by,
            message=_msg(problem),
            field_name=problem.field if problem is not None else None,
        )
    if ch.action is Action.UNCHANGED:
        return row_result(ch, Status.OK, link=ch.remote)
    if ch.action is Action.INVALID:
        err = ch.error
        return row_result(
            ch,
            Status.INVALID,
            constant=err.constant if err else None,
            message=err.message if err else None,
            field_name=err.field if err else None,
            column=err.column if err else None,
            link=ch.remote,
        )
    if ch.action is Action.SKIP:
        return row_result(ch, Status.SKIPPED, message=ch.reason, link=ch.remote)
    if ch.payload.get("password") == REDACTED:
        return row_result(
            ch,
            Status.FAILED,
            constant="INVALID_FIELD",
            message="the saved plan does not hold link passwords; give the sources to "
            "apply --plan so they can be read from there",
        )
    return None


def _msg(problem: Any) -> str | None:
    return problem.message if problem is not None else None


def row_result(
    ch: Change,
    status: Status,
    *,
    action: Action | None = None,
    link: RemoteLink | None = None,
    constant: str | None = None,
    message: str | None = None,
    exc: ApiError | None = None,
    http_status: int | None = None,
    request_id: str | None = None,
    attempts: int = 0,
    field_name: str | None = None,
    column: str | None = None,
) -> RowResult:
    """The result of change ``ch``; a problem's message names its column (``field_name``,
    or the field the error constant is about)."""
    prov = ch.provenance
    if exc is not None:
        constant = constant or exc.constant
        message = message or exc.message
        http_status = exc.status
        request_id = exc.request_id
        field_name = field_name or error_field(constant, ch.spec)
    message = in_column(message, field_name, prov, column)
    url = None
    if ch.spec is not None and ch.spec.url:
        url = ch.spec.url.strip()
    elif link is not None:
        url = link.url
    elif ch.remote is not None:
        url = ch.remote.url
    return RowResult(
        action=action or ch.action,
        status=status,
        source=prov.source if prov else None,
        sheet=prov.sheet if prov else None,
        row=prov.row if prov else None,
        domain=link.domain if link is not None else ch.domain,
        slug=link.slug if link is not None else ch.slug,
        short_url=link.short_url if link is not None else None,
        url=url,
        changed_fields=ch.changed_fields,
        http_status=http_status,
        error_constant=constant,
        error_code=(exc.code if exc is not None else None)
        or (code_of(constant) if constant else None),
        message=message,
        request_id=request_id,
        attempts=attempts,
    )


def ok_result(
    ch: Change,
    link: RemoteLink | None,
    meta: Any,
    *,
    action: Action | None = None,
    attempts: int | None = None,
) -> RowResult:
    return row_result(
        ch,
        Status.OK,
        action=action,
        link=link if isinstance(link, RemoteLink) else ch.remote,
        http_status=meta.status,
        request_id=meta.request_id,
        attempts=meta.attempts if attempts is None else attempts,
    )


def with_changes(result: RowResult, **changes: Any) -> RowResult:
    return replace(result, **changes)
