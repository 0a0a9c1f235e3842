"""The executor: apply a Plan through the client, one result per row.

Scheduling: one pool (``sync.pool.run_pool``) of ``client.concurrency`` workers takes
the writes in plan order (creates, updates and replaces first, rows that failed in the
last run before the others; deletes and retires once those are done); the client's
shared limiter keeps the pool within the rate limit and retries transient failures, so
the run goes as fast as the limit allows and no faster.

Rules while running (docs/service.md), read from the error table (``ErrorDef.stops``):

- 409 SLUG_EXISTS on create: another writer got there; read the link and update it.
  For a row's stable slug (``linksync.sync.slugs``), a link with another URL is not
  the row's: the row moves to its next candidate (``RowCalls.adopt_stable``).
- 401 UNAUTHORIZED stops everything; 403 FORBIDDEN stops every write.
- 403 QUOTA_EXCEEDED on create stops further creates (and replaces); updates go on.
- A replace is a delete then a create.
- Rows not attempted are ``skipped`` with NOT_ATTEMPTED and the reason.
- Cancellation (Ctrl-C cancels the task; ``cancel`` is set from any thread): stop
  taking rows, wait for the requests in flight, and return the results with
  ``interrupted`` set (rows never started are skipped, stopped by INTERRUPTED).
- A create without slug, when another writer may be active (``recheck_urls``), first
  looks its URL up and adopts a link made meanwhile instead of creating a second one.

While it runs, the journal and the write count (``linksync.model.outcome.RemoteWrites``) are
subscribed to the client's call events, so every completed request is journaled and
every accepted write counted as it happens: the exit code can tell "nothing done" from
"stopped after writing". The results themselves are in ``sync.results``.

Each password a write sent is recorded in ``passwords`` (``sync.fingerprints``; the
caller saves it), so the next plan on this machine can tell a changed password.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

from linksync.api import CallEvent, LinkClient
from linksync.errors import ERRORS, ApiError, LinkNotFound, SlugExists, Stop, UnsafePlanError
from linksync.model import Action, LinkKey, RowResult, RunInfo, Status
from linksync.model.outcome import RemoteWrites
from linksync.model.results import CallFacts
from linksync.rules.timestamps import utc_now
from linksync.sync.calls import RowCalls
from linksync.sync.fingerprints import PasswordStore
from linksync.sync.history import LastRun, failed_first
from linksync.sync.journal import JOURNAL_FORMAT, Journal, WrittenLinks, new_run_id
from linksync.sync.plan import Change, Plan
from linksync.sync.pool import run_pool
from linksync.sync.results import CancelSignal, ProgressSink, Results, ok_result, static_result

INTERRUPTED = "INTERRUPTED"
CONFIRMED = (
    "the service's answer to the create was lost; reading it found the link with this "
    "URL, so it is counted as created (by this run, or by another run at the same moment)"
)


def count_writes(writes: RemoteWrites) -> Callable[[CallEvent], None]:
    """A call-event hook counting the writes the service accepted (and those of
    unknown outcome: sent, never answered)."""

    def on_call(event: CallEvent) -> None:
        if event.ok:
            writes.record(event.kind)
        elif event.outcome_unknown:
            writes.record(event.kind, answered=False)

    return on_call


class _Run:
    def __init__(
        self,
        plan: Plan,
        client: LinkClient,
        journal: Journal | None,
        progress: ProgressSink | None,
        on_result: Callable[[RowResult], None] | None,
        cancel: CancelSignal | None,
        *,
        recheck_urls: bool = False,
        passwords: PasswordStore | None = None,
    ) -> None:
        self.plan = plan
        self.passwords = passwords
        self.client = client
        self.calls = RowCalls(client)
        self.journal = journal
        self.progress = progress
        self.on_result = on_result
        self.cancel = cancel
        self.recheck_urls = recheck_urls
        self.results: dict[int, RowResult] = {}
        #: The link each write left, for the journal's before and after of each row.
        self.written = WrittenLinks()
        self._emitted = 0
        self.stopped_by: str | None = None
        self.creates_stopped: str | None = None
        self.interrupted = False

    @cached_property
    def planned(self) -> frozenset[LinkKey]:
        """The links the plan's rows name (a stable slug moving on avoids them): made
        when a stable slug first meets another writer's link, not for every run."""
        return frozenset(ch.key for ch in self.plan.changes if ch.key is not None)

    def stop(self, constant: str) -> None:
        if constant == INTERRUPTED:
            self.interrupted = True
        if self.stopped_by is None:
            self.stopped_by = constant

    def done(self, pos: int, result: RowResult) -> None:
        self.results[pos] = result
        if self.journal is not None:
            undo = self.written.undo_fields(self.plan.changes[pos], result)
            self.journal.write("result", **result.to_dict(), **undo)
        if self.progress is not None:
            self.progress.advance(result)
        self.emit_ready()

    def emit_ready(self) -> None:
        """Hand ``on_result`` every result whose earlier rows are all final: reports
        see the rows in plan order (source order: file, sheet, row; then deletes),
        whatever order the requests completed in."""
        while self._emitted in self.results:
            if self.on_result is not None:
                self.on_result(self.results[self._emitted])
            self._emitted += 1

    def not_attempted(self, ch: Change) -> RowResult | None:
        if self.cancel is not None and self.cancel.is_set():
            self.stop(INTERRUPTED)
        stop = self.stopped_by
        if stop is None and ch.action in (Action.CREATE, Action.REPLACE):
            stop = self.creates_stopped
        if stop is None:
            return None
        why = f"not attempted: {ERRORS[stop].stop_reason}"
        if stop == self.creates_stopped and stop != self.stopped_by:
            why += ": no more creates"
        return RowResult.from_change(ch, Status.SKIPPED, constant="NOT_ATTEMPTED", message=why)

    async def phase(self, items: Sequence[tuple[int, Change]]) -> None:
        async def one(item: tuple[int, Change]) -> None:
            pos, ch = item
            skipped = self.not_attempted(ch)
            result = skipped if skipped is not None else await self.apply_one(ch)
            if self.passwords is not None:
                remember_password(self.passwords, ch, result)
            self.done(pos, result)

        await run_pool(items, one, self.client.concurrency, queued=self.client.set_queued)

    async def apply_one(self, ch: Change) -> RowResult:
        try:
            if ch.action is Action.CREATE:
                return await self.create(ch)
            if ch.action in (Action.UPDATE, Action.RETIRE):
                assert ch.slug is not None
                _, event = await self.calls.call(
                    ch, self.client.update_link, ch.slug, dict(ch.payload), domain=ch.domain
                )
                return ok_result(ch, event)
            if ch.action is Action.DELETE:
                return await self.delete(ch)
            return await self.replace(ch)
        except ApiError as exc:
            self.react(exc, ch)
            return RowResult.from_change(ch, Status.FAILED, error=exc)

    def react(self, exc: ApiError, ch: Change) -> None:
        """What a failure stops for the rest of the run (the error table says)."""
        if exc.stops in (Stop.RUN, Stop.WRITES):
            self.stop(exc.constant)
        elif exc.stops is Stop.CREATES and ch.action in (Action.CREATE, Action.REPLACE):
            self.creates_stopped = exc.constant

    async def create(self, ch: Change) -> RowResult:
        if self.recheck_urls and ch.spec is not None and not ch.spec.slug:
            found = await self.calls.recheck(ch, self.plan.options)
            if found is not None:
                return found
        try:
            _, event = await self.calls.call(ch, self.client.create_link, dict(ch.payload))
        except SlugExists as exc:
            if not ch.slug or ch.spec is None:
                raise
            if not ch.spec.slug:  # the row's stable slug
                return await self.calls.adopt_stable(
                    ch, exc.attempts, self.plan.options, self.planned
                )
            return await self.calls.adopt(ch, exc.attempts, self.plan.options)
        done = ok_result(ch, event)
        if event.confirmed:
            # The answer was lost and a read found the link: this request made it, or (a
            # stable slug racing) another run's did at the same moment. Say so.
            done = done.saying(CONFIRMED)
        return done

    async def delete(self, ch: Change) -> RowResult:
        assert ch.slug is not None
        try:
            _, event = await self.calls.call(ch, self.client.delete_link, ch.slug, domain=ch.domain)
        except LinkNotFound as exc:
            facts = CallFacts(exc.status, exc.request_id, exc.attempts)
            done = RowResult.from_change(ch, Status.OK, call=facts)
            return done.saying("already deleted")
        return ok_result(ch, event, link=ch.remote)

    async def replace(self, ch: Change) -> RowResult:
        assert ch.slug is not None
        _, deleted = await self.calls.call(ch, self.client.delete_link, ch.slug, domain=ch.domain)
        try:
            _, event = await self.calls.call(ch, self.client.create_link, dict(ch.payload))
        except ApiError as exc:
            self.react(exc, ch)
            return RowResult.from_change(
                ch,
                Status.FAILED,
                error=exc,
                message=f"deleted, but re-creating failed: {exc.message}",
                call=CallFacts(attempts=deleted.attempts + exc.attempts),
            )
        return ok_result(ch, event, attempts=deleted.attempts + event.attempts)


def remember_password(store: PasswordStore, ch: Change, result: RowResult) -> None:
    """Record in ``store`` the password a write that succeeded sent to its link (the
    result names the link: a generated slug, a stable slug moved on); forget the link's
    when the write left it none (deleted, re-created or created without, or removed).
    A row that met another writer's link (its result's action differs) is left out."""
    if result.status is not Status.OK or result.action is not ch.action or not result.slug:
        return
    key = LinkKey.of(result.domain, result.slug)
    if ch.action is Action.DELETE:
        store.forget(key)
    elif ch.action is Action.UPDATE and "password" not in ch.payload:
        return
    elif ch.action in (Action.CREATE, Action.REPLACE, Action.UPDATE):
        password = ch.payload.get("password")
        if isinstance(password, str) and password:
            store.sent(key, password)
        else:
            store.forget(key)


@dataclass(frozen=True, slots=True)
class Sinks:
    """Where an apply's results and facts go as they happen (``execute``): the
    ``journal``, the ``progress`` sink, ``on_result`` (once per row, in plan order), the
    run's count of ``writes`` (owned by the caller), the ``passwords`` store."""

    journal: Journal | None = None
    progress: ProgressSink | None = None
    on_result: Callable[[RowResult], None] | None = None
    writes: RemoteWrites | None = None
    passwords: PasswordStore | None = None


async def execute(
    plan: Plan,
    client: LinkClient,
    *,
    sinks: Sinks | None = None,
    run_id: str | None = None,
    last: LastRun | None = None,
    recheck_urls: bool = False,
    cancel: CancelSignal | None = None,
) -> Results:
    """Apply ``plan``; one result per change, in plan order.

    Rows that failed in ``last`` (the previous run) are sent first.

    ``on_result`` is called once per row, in plan order, as soon as the row and every
    row before it are final, so reports can stream in source order. The journal and
    ``progress`` see each row the moment it is final.

    ``writes`` (one per run, owned by the caller) counts the writes the service accepted
    as they happen, so a caller that sees this coroutine fail still knows whether the
    workspace changed. ``recheck_urls``: another writer may be active (a saved plan, a
    lock not keyed on the target), so each create without slug first looks its URL up.

    Raises ``UnsafePlanError`` when the plan crosses a safety threshold without force.
    Cancelling the task running this coroutine, or setting ``cancel``, stops it taking
    rows; it then waits for the requests in flight and returns the results with
    ``interrupted`` set.

    ``passwords``: where each password sent is recorded (``remember_password``; the
    caller saves it once the run ends).
    """
    if plan.refused:
        raise UnsafePlanError(f"plan refused: {plan.safety.reason}; use --force to apply it")
    sinks = sinks or Sinks()
    journal, progress, on_result = sinks.journal, sinks.progress, sinks.on_result
    writes, passwords = sinks.writes, sinks.passwords
    run_id = run_id or (journal.run_id if journal is not None else new_run_id())
    writes = writes if writes is not None else RemoteWrites()
    started_at, t0 = utc_now(), time.monotonic()
    run = _Run(
        plan, client, journal, progress, on_result, cancel,
        recheck_urls=recheck_urls, passwords=passwords,
    )  # fmt: skip
    todo: list[tuple[int, Change]] = []
    deletes: list[tuple[int, Change]] = []
    for pos, ch in enumerate(plan.changes):
        static = static_result(ch)
        if static is not None:
            run.results[pos] = static
        elif ch.action in (Action.DELETE, Action.RETIRE):
            deletes.append((pos, ch))
        else:
            todo.append((pos, ch))
    hooks = [client.subscribe(count_writes(writes))]
    if journal is not None:
        hooks.append(client.subscribe(journal.on_call))
        hooks.append(client.subscribe(run.written.on_call))
        journal.write(
            "start",
            format=JOURNAL_FORMAT,
            target=plan.target,
            mode=plan.options.mode.value,
            counts=plan.counts,
            writes=len(todo) + len(deletes),
            **({"undoes": plan.undoes} if plan.undoes else {}),
        )
        for pos in sorted(run.results):
            journal.write("result", **run.results[pos].to_dict())
    try:
        run.emit_ready()
        if progress is not None:
            progress.start(len(todo) + len(deletes), client.rate_limit_wait)
        await _phases(run, failed_first(todo, last), deletes)
    finally:
        for unsubscribe in hooks:
            unsubscribe()
        if progress is not None:
            progress.finish()
    stats = client.stats
    results = Results(
        rows=tuple(run.results[pos] for pos in range(len(plan.changes))),
        plan=plan,
        info=RunInfo(
            target=plan.target or "",
            mode=plan.options.mode.value,
            started_at=started_at,
            duration_s=time.monotonic() - t0,
            requests=stats.requests,
            requests_by_kind=dict(stats.requests_by_kind),
            rate_limit_waits=stats.rate_limited,
            run_id=run_id,
        ),
        journal=journal.path if journal is not None else None,
        interrupted=run.interrupted,
        stopped_by=run.stopped_by,
        writes=writes,
    )
    if journal is not None:
        journal.write(
            "end",
            counts=results.counts,
            duration_s=round(results.duration_s, 3),
            interrupted=results.interrupted,
            stopped_by=results.stopped_by,
            writes=writes.to_dict(),
        )
        journal.sync()
    return results


async def _phases(
    run: _Run, todo: Sequence[tuple[int, Change]], deletes: Sequence[tuple[int, Change]]
) -> None:
    """The writes, then the deletes; on cancellation of this task (Ctrl-C), the rows
    in flight finish and the others are not attempted."""

    async def phases() -> None:
        await run.phase(todo)
        await run.phase(deletes)

    work = asyncio.ensure_future(phases())
    try:
        await asyncio.shield(work)
    except asyncio.CancelledError:
        run.stop(INTERRUPTED)
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
        await work
    for pos, ch in enumerate(run.plan.changes):
        if pos not in run.results:  # only an interrupted run leaves rows behind
            run.stop(INTERRUPTED)
            skipped = run.not_attempted(ch)
            if skipped is not None:
                run.done(pos, skipped)
