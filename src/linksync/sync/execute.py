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
- A create without slug, when another writer may be active (``recheck_urls``), first
  looks its URL up and adopts a link made meanwhile instead of creating a second one.

Every completed call is appended to the journal as it completes, and every accepted
write is counted (``linksync.outcome.RemoteWrites``), so the exit code can tell "nothing
done" from "stopped after writing". The results themselves are in ``sync.results``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any

from linksync.errors import ApiError, UnsafePlanError
from linksync.model import Action, RowResult, Status
from linksync.outcome import RemoteWrites
from linksync.sync.calls import RowCalls
from linksync.sync.history import LastRun, failed_first
from linksync.sync.journal import Journal, new_run_id, utc_now
from linksync.sync.plan import Change, Plan
from linksync.sync.remote import LinkClient, gather_or_cancel
from linksync.sync.results import (
    ProgressSink,
    Results,
    ok_result,
    row_result,
    static_result,
    with_changes,
)

__all__ = ["ProgressSink", "Results", "execute", "static_result"]


class _Run:
    def __init__(
        self,
        plan: Plan,
        client: LinkClient,
        journal: Journal | None,
        progress: ProgressSink | None,
        on_result: Callable[[RowResult], None] | None = None,
        *,
        writes: RemoteWrites | None = None,
        recheck_urls: bool = False,
    ) -> None:
        self.plan = plan
        self.on_result = on_result
        self.client = client
        self.writes = writes if writes is not None else RemoteWrites()
        self.calls = RowCalls(client, journal, self.writes)
        self.journal = journal
        self.progress = progress
        self.recheck_urls = recheck_urls
        self.results: dict[int, RowResult] = {}
        self._emitted = 0
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
        if self.stopped_by is not None:
            why = self.stop_reason or self.stopped_by
            return row_result(ch, Status.SKIPPED, constant="NOT_ATTEMPTED", message=why)
        if self.creates_stopped and ch.action in (Action.CREATE, Action.REPLACE):
            return row_result(
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
                return ok_result(ch, link, meta)
            if ch.action is Action.DELETE:
                return await self.delete(ch)
            return await self.replace(ch)
        except ApiError as exc:
            self.react(exc, ch)
            return row_result(ch, Status.FAILED, exc=exc, attempts=exc.attempts)

    def react(self, exc: ApiError, ch: Change) -> None:
        if exc.constant == "UNAUTHORIZED":
            self.stop("UNAUTHORIZED", "not attempted: UNAUTHORIZED stopped the run")
        elif exc.constant == "FORBIDDEN":
            self.stop("FORBIDDEN", "not attempted: FORBIDDEN (key lacks write permission)")
        elif exc.constant == "QUOTA_EXCEEDED" and ch.action in (Action.CREATE, Action.REPLACE):
            self.creates_stopped = True

    async def create(self, ch: Change) -> RowResult:
        if self.recheck_urls and not ch.slug and ch.spec is not None:
            found = await self.calls.recheck(ch, self.plan.options)
            if found is not None:
                return found
        try:
            link, meta = await self.calls.call(
                ch, "POST /links", self.client.create_link, dict(ch.payload)
            )
        except ApiError as exc:
            if exc.constant != "SLUG_EXISTS" or not ch.slug or ch.spec is None:
                raise
            return await self.calls.adopt(ch, exc.attempts, self.plan.options)
        return ok_result(ch, link, meta)

    async def delete(self, ch: Change) -> RowResult:
        assert ch.slug is not None
        try:
            _, meta = await self.calls.call(
                ch, "DELETE /links/:slug", self.client.delete_link, ch.slug, domain=ch.domain
            )
        except ApiError as exc:
            if exc.constant != "LINK_NOT_FOUND":
                raise
            done = row_result(ch, Status.OK, exc=exc, attempts=exc.attempts)
            return with_changes(
                done, error_constant=None, error_code=None, message="already deleted"
            )
        return ok_result(ch, ch.remote, meta)

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
            return row_result(
                ch,
                Status.FAILED,
                exc=exc,
                message=f"deleted, but re-creating failed: {exc.message}",
                attempts=dmeta.attempts + exc.attempts,
            )
        done = ok_result(ch, link, meta)
        return with_changes(done, attempts=dmeta.attempts + meta.attempts)


async def execute(
    plan: Plan,
    client: LinkClient,
    *,
    journal: Journal | None = None,
    progress: ProgressSink | None = None,
    run_id: str | None = None,
    on_result: Callable[[RowResult], None] | None = None,
    last: LastRun | None = None,
    writes: RemoteWrites | None = None,
    recheck_urls: bool = False,
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
    Cancelling the task running this coroutine stops it taking rows; it then waits for
    the requests in flight and returns the results with ``interrupted`` set.
    """
    if plan.refused:
        raise UnsafePlanError(f"plan refused: {plan.safety.reason}; use --force to apply it")
    run_id = run_id or (journal.run_id if journal is not None else new_run_id())
    started_at, t0 = utc_now(), time.monotonic()
    run = _Run(plan, client, journal, progress, on_result, writes=writes, recheck_urls=recheck_urls)
    todo: list[tuple[int, Change]] = []
    deletes: list[tuple[int, Change]] = []
    for pos, ch in enumerate(plan.changes):
        static = static_result(ch)
        if static is not None:
            run.results[pos] = static
        elif ch.action is Action.DELETE:
            deletes.append((pos, ch))
        else:
            todo.append((pos, ch))
    if journal is not None:
        journal.write(
            "start",
            target=plan.target,
            mode=plan.options.mode.value,
            counts=plan.counts,
            writes=len(todo) + len(deletes),
        )
        for pos in sorted(run.results):
            journal.write("result", **run.results[pos].to_dict())
    run.emit_ready()
    if progress is not None:
        progress.start(len(todo) + len(deletes))

    todo = failed_first(todo, last)

    async def phases() -> None:
        await run.phase(todo)
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
        for pos, ch in enumerate(plan.changes):
            if pos not in run.results:
                run.done(
                    pos,
                    row_result(
                        ch,
                        Status.SKIPPED,
                        constant="NOT_ATTEMPTED",
                        message="not attempted: the run was interrupted",
                    ),
                )
    finally:
        if progress is not None:
            progress.finish()
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
        writes=run.writes,
    )
    if journal is not None:
        journal.write(
            "end",
            counts=results.counts,
            duration_s=round(results.duration_s, 3),
            interrupted=interrupted,
            stopped_by=stopped,
            writes=run.writes.to_dict(),
        )
        journal.sync()
    return results


def _stats(client: Any) -> dict[str, Any]:
    stats = getattr(client, "stats", None)
    to_dict = getattr(stats, "to_dict", None)
    return dict(to_dict()) if callable(to_dict) else {}
