"""The executor: apply a Plan through the client, one result per row.

Scheduling: a pool of ``client.concurrency`` workers takes the writes in plan order
(creates, updates and replaces first, deletes once those are done); the client's shared
limiter keeps the pool within the rate limit and retries transient failures, so the run
goes as fast as the limit allows and no faster.

Rules while running (DESIGN.md):

- 409 SLUG_EXISTS on create: another writer got there; read the link and update it.
- 401 UNAUTHORIZED stops everything; 403 FORBIDDEN stops every write.
- 403 QUOTA_EXCEEDED on create stops further creates (and replaces); updates go on.
- A replace is a delete then a create.
- Rows not attempted are ``skipped`` with NOT_ATTEMPTED and the reason.
- Cancellation (Ctrl-C): stop taking rows, wait for the requests in flight, and return
  the results with ``interrupted`` set (rows never started are skipped).

Every completed call is appended to the journal as it completes.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from linksync.api.types import CallMeta
from linksync.errors import ApiError, UnsafePlanError, code_of
from linksync.model import Action, RemoteLink, RowResult, Status
from linksync.sync.diff import compare
from linksync.sync.history import LastRun, failed_first
from linksync.sync.journal import Journal, new_run_id, utc_now
from linksync.sync.plan import REDACTED, Change, Plan
from linksync.sync.remote import LinkClient, gather_or_cancel


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

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "started_at": self.started_at,
            "duration_s": round(self.duration_s, 3),
            "journal": self.journal,
            "interrupted": self.interrupted,
            "stopped_by": self.stopped_by,
            "counts": self.counts,
            "plan_counts": self.plan.counts,
            "stats": self.stats,
            "rows": [r.to_dict() for r in self.rows],
        }


def static_result(ch: Change) -> RowResult | None:
    """The result of a change that sends nothing (unchanged, invalid, skip, blocked)."""
    if ch.blocked_by is not None:
        problem = next((p for p in ch.problems if p.constant == ch.blocked_by), None)
        return _result(ch, Status.FAILED, constant=ch.blocked_by, message=_msg(problem))
    if ch.action is Action.UNCHANGED:
        return _result(ch, Status.OK, link=ch.remote)
    if ch.action is Action.INVALID:
        err = ch.error
        return _result(
            ch,
            Status.INVALID,
            constant=err.constant if err else None,
            message=err.message if err else None,
            link=ch.remote,
        )
    if ch.action is Action.SKIP:
        return _result(ch, Status.SKIPPED, message=ch.reason, link=ch.remote)
    if ch.payload.get("password") == REDACTED:
        return _result(
            ch,
            Status.FAILED,
            constant="INVALID_FIELD",
            message="the saved plan does not hold link passwords; give the sources to "
            "apply --plan so they can be read from there",
        )
    return None


def _msg(problem: Any) -> str | None:
    return problem.message if problem is not None else None


def _result(
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
) -> RowResult:
    prov = ch.provenance
    if exc is not None:
        constant = constant or exc.constant
        message = message or exc.message
        http_status = exc.status
        request_id = exc.request_id
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


class _Calls:
    """The client calls of one row, each journaled as it completes."""

    def __init__(self, client: LinkClient, journal: Journal | None) -> None:
        self.client = client
        self.journal = journal

    def _log(self, ch: Change, op: str, meta: Any, exc: ApiError | None, link: Any) -> None:
        if self.journal is None:
            return
        prov = ch.provenance
        self.journal.write(
            "request",
            op=op,
            action=ch.action.value,
            domain=ch.domain,
            slug=getattr(link, "slug", None) or ch.slug,
            source=prov.source if prov else None,
            sheet=prov.sheet if prov else None,
            row=prov.row if prov else None,
            status=exc.status if exc is not None else meta.status,
            constant=exc.constant if exc is not None else None,
            request_id=exc.request_id if exc is not None else meta.request_id,
            attempts=exc.attempts if exc is not None else meta.attempts,
            short_url=getattr(link, "short_url", None),
        )

    async def call(self, ch: Change, op: str, fn: Any, *args: Any, **kw: Any) -> tuple[Any, Any]:
        meta = CallMeta()
        try:
            out = await fn(*args, meta=meta, **kw)
        except ApiError as exc:
            self._log(ch, op, meta, exc, None)
            raise
        self._log(ch, op, meta, None, out)
        return out, meta


class _Run:
    def __init__(
        self,
        plan: Plan,
        client: LinkClient,
        journal: Journal | None,
        progress: ProgressSink | None,
        on_result: Callable[[RowResult], None] | None = None,
    ) -> None:
        self.plan = plan
        self.on_result = on_result
        self.client = client
        self.calls = _Calls(client, journal)
        self.journal = journal
        self.progress = progress
        self.results: dict[int, RowResult] = {}
        self.stopped_by: str | None = None
        self.stop_reason: str | None = None
        self.creates_stopped = False

    def stop(self, constant: str, reason: str) -> None:
        if self.stopped_by is None:
            self.stopped_by, self.stop_reason = constant, reason

    def done(self, pos: int, result: RowResult) -> None:
        self.results[pos] = result
        if self.journal is not None:
            self.journal.write("result", **result.to_dict())
        if self.on_result is not None:
            self.on_result(result)
        if self.progress is not None:
            self.progress.advance(result)

    def not_attempted(self, ch: Change) -> RowResult | None:
        if self.stopped_by is not None:
            why = self.stop_reason or self.stopped_by
            return _result(ch, Status.SKIPPED, constant="NOT_ATTEMPTED", message=why)
        if self.creates_stopped and ch.action in (Action.CREATE, Action.REPLACE):
            return _result(
                ch,
                Status.SKIPPED,
                constant="NOT_ATTEMPTED",
                message="not attempted: QUOTA_EXCEEDED stopped further creates",
            )
        return None

    async def phase(self, items: Sequence[tuple[int, Change]]) -> None:
        queue = list(reversed(items))
        hint = getattr(self.client, "set_queued", None)  # pacing: what is still to come

        async def worker() -> None:
            while queue:
                pos, ch = queue.pop()
                if hint is not None:
                    hint(len(queue))
                skipped = self.not_attempted(ch)
                if skipped is not None:
                    self.done(pos, skipped)
                    continue
                self.done(pos, await self.apply_one(ch))

        size = max(1, min(len(queue), int(getattr(self.client, "concurrency", 8))))
        try:
            await gather_or_cancel([worker() for _ in range(size)])
        finally:
            if hint is not None:
                hint(0)

    async def apply_one(self, ch: Change) -> RowResult:
        try:
            if ch.action is Action.CREATE:
                return await self.create(ch)
            if ch.action is Action.UPDATE:
                link, meta = await self.calls.call(
                    ch,
                    "PATCH /links",
                    self.client.update_link,
                    ch.slug,
                    dict(ch.payload),
                    domain=ch.domain,
                )
                return _ok(ch, link, meta)
            if ch.action is Action.DELETE:
                return await self.delete(ch)
            return await self.replace(ch)
        except ApiError as exc:
            self.react(exc, ch)
            return _result(ch, Status.FAILED, exc=exc, attempts=exc.attempts)

    def react(self, exc: ApiError, ch: Change) -> None:
        if exc.constant == "UNAUTHORIZED":
            self.stop("UNAUTHORIZED", "not attempted: UNAUTHORIZED stopped the run")
        elif exc.constant == "FORBIDDEN":
            self.stop("FORBIDDEN", "not attempted: FORBIDDEN (key lacks write permission)")
        elif exc.constant == "QUOTA_EXCEEDED" and ch.action in (Action.CREATE, Action.REPLACE):
            self.creates_stopped = True

    async def create(self, ch: Change) -> RowResult:
        try:
            link, meta = await self.calls.call(
                ch, "POST /links", self.client.create_link, dict(ch.payload)
            )
        except ApiError as exc:
            if exc.constant != "SLUG_EXISTS" or not ch.slug or ch.spec is None:
                raise
            return await self.adopt(ch, exc.attempts)
        return _ok(ch, link, meta)

    async def adopt(self, ch: Change, spent: int) -> RowResult:
        """409 on create: someone created the slug meanwhile. Read it and update it."""
        assert ch.slug is not None and ch.spec is not None
        link, meta = await self.calls.call(
            ch, "GET /links/:slug", self.client.get_link, ch.slug, domain=ch.domain
        )
        spent += meta.attempts
        cmp = compare(ch.spec, link, self.plan.options)
        note = "the slug was created by another writer meanwhile"
        if cmp.needs_replace:
            return _result(
                ch,
                Status.FAILED,
                action=Action.UPDATE,
                link=link,
                constant="REPLACE_REQUIRED",
                message=f"{note}, with a different expiry (PATCH cannot set expiresAt)",
                http_status=409,
                attempts=spent,
            )
        fields = tuple(f.field for f in cmp.fields)
        if cmp.same:
            done = _ok(ch, link, meta, action=Action.UNCHANGED, attempts=spent)
            return _with(done, changed_fields=(), message=f"{note}; it already matches")
        updated, umeta = await self.calls.call(
            ch,
            "PATCH /links",
            self.client.update_link,
            link.slug,
            dict(cmp.patch),
            domain=ch.domain,
        )
        done = _ok(ch, updated, umeta, action=Action.UPDATE, attempts=spent + umeta.attempts)
        return _with(done, changed_fields=fields, message=f"{note}; updated it")

    async def delete(self, ch: Change) -> RowResult:
        assert ch.slug is not None
        try:
            _, meta = await self.calls.call(
                ch, "DELETE /links/:slug", self.client.delete_link, ch.slug, domain=ch.domain
            )
        except ApiError as exc:
            if exc.constant != "LINK_NOT_FOUND":
                raise
            done = _result(ch, Status.OK, exc=exc, attempts=exc.attempts)
            return _with(done, error_constant=None, error_code=None, message="already deleted")
        return _ok(ch, ch.remote, meta)

    async def replace(self, ch: Change) -> RowResult:
        assert ch.slug is not None
        _, dmeta = await self.calls.call(
            ch, "DELETE /links/:slug", self.client.delete_link, ch.slug, domain=ch.domain
        )
        try:
            link, meta = await self.calls.call(
                ch, "POST /links", self.client.create_link, dict(ch.payload)
            )
        except ApiError as exc:
            self.react(exc, ch)
            return _result(
                ch,
                Status.FAILED,
                exc=exc,
                message=f"deleted, but re-creating failed: {exc.message}",
                attempts=dmeta.attempts + exc.attempts,
            )
        done = _ok(ch, link, meta)
        return _with(done, attempts=dmeta.attempts + meta.attempts)


def _ok(
    ch: Change,
    link: RemoteLink | None,
    meta: Any,
    *,
    action: Action | None = None,
    attempts: int | None = None,
) -> RowResult:
    return _result(
        ch,
        Status.OK,
        action=action,
        link=link if isinstance(link, RemoteLink) else ch.remote,
        http_status=meta.status,
        request_id=meta.request_id,
        attempts=meta.attempts if attempts is None else attempts,
    )


def _with(result: RowResult, **changes: Any) -> RowResult:
    return replace(result, **changes)


async def execute(
    plan: Plan,
    client: LinkClient,
    *,
    journal: Journal | None = None,
    progress: ProgressSink | None = None,
    run_id: str | None = None,
    on_result: Callable[[RowResult], None] | None = None,
    last: LastRun | None = None,
) -> Results:
    """Apply ``plan``; one result per change, in plan order.

    Rows that failed in ``last`` (the previous run) are sent first.

    ``on_result`` is called once per row as soon as its result is final (rows that send
    nothing first, then each write as it completes), so reports can stream.

    Raises ``UnsafePlanError`` when the plan crosses a safety threshold without force.
    Cancelling the task running this coroutine stops it taking rows; it then waits for
    the requests in flight and returns the results with ``interrupted`` set.
    """
    if plan.refused:
        raise UnsafePlanError(f"plan refused: {plan.safety.reason}; use --force to apply it")
    run_id = run_id or (journal.run_id if journal is not None else new_run_id())
    started_at, t0 = utc_now(), time.monotonic()
    run = _Run(plan, client, journal, progress, on_result)
    writes: list[tuple[int, Change]] = []
    deletes: list[tuple[int, Change]] = []
    for pos, ch in enumerate(plan.changes):
        static = static_result(ch)
        if static is not None:
            run.results[pos] = static
        elif ch.action is Action.DELETE:
            deletes.append((pos, ch))
        else:
            writes.append((pos, ch))
    if journal is not None:
        journal.write(
            "start",
            target=plan.target,
            mode=plan.options.mode.value,
            counts=plan.counts,
            writes=len(writes) + len(deletes),
        )
        for pos in sorted(run.results):
            journal.write("result", **run.results[pos].to_dict())
    if on_result is not None:
        for pos in sorted(run.results):
            on_result(run.results[pos])
    if progress is not None:
        progress.start(len(writes) + len(deletes))

    writes = failed_first(writes, last)

    async def phases() -> None:
        await run.phase(writes)
        await run.phase(deletes)

    interrupted = False
    work = asyncio.ensure_future(phases())
    try:
        try:
            await asyncio.shield(work)
        except asyncio.CancelledError:
            interrupted = True
            run.stop("INTERRUPTED", "not attempted: the run was interrupted")
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
            await work
    finally:
        if progress is not None:
            progress.finish()
    for pos, ch in enumerate(plan.changes):
        if pos not in run.results:
            run.done(
                pos,
                _result(
                    ch,
                    Status.SKIPPED,
                    constant="NOT_ATTEMPTED",
                    message="not attempted: the run was interrupted",
                ),
            )
    stopped = run.stopped_by
    results = Results(
        rows=tuple(run.results[pos] for pos in range(len(plan.changes))),
        plan=plan,
        run_id=run_id,
        started_at=started_at,
        duration_s=time.monotonic() - t0,
        journal=str(journal.path) if journal is not None else None,
        interrupted=interrupted,
        stopped_by=stopped,
        stats=_stats(client),
    )
    if journal is not None:
        journal.write(
            "end",
            counts=results.counts,
            duration_s=round(results.duration_s, 3),
            interrupted=interrupted,
            stopped_by=stopped,
        )
        journal.sync()
    return results


def _stats(client: Any) -> dict[str, Any]:
    stats = getattr(client, "stats", None)
    to_dict = getattr(stats, "to_dict", None)
    return dict(to_dict()) if callable(to_dict) else {}
