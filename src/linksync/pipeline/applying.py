"""One apply, start to end: what ``linksync.apply`` (and ``linksync apply``) does.

1. Every output path is checked before the first request (``preflight``): reports,
   annotated copies, the QR zip, the journal, the lock and its holder record, against
   every file the run reads. A problem is a ``ConfigError``: nothing was done.
   Temporary files that killed runs of this host left beside those outputs are then
   removed, with a warning naming them (``linksync.safe.leftovers``).
2. A saved plan is checked before any request: its sources, the options given
   (``linksync.pipeline.saved``). The sources are read and validated; an error that
   belongs to no row refuses the run (``FileProblems``) unless a saved plan is applied
   (its sources are read for their passwords only). A mirror refuses first
   (``MirrorRefused``, exit 2) a source that was not read or declared nothing
   (``refuse_undeclared``), ``force`` or not. Meanwhile (``linksync.pipeline.overlap``:
   not for a saved plan, nor sources a quick look finds refusable) the identity is read,
   the lock tried, and once held the calls the plan will make are sent.
3. The run lock is taken (by default keyed on the workspace the service reports, read
   once: ``linksync.config.identity``), unless held since step 2; then the reports are
   opened and the last run against the target is read from the journals.
4. The plan (fresh, or the saved one checked against its workspace and refreshed:
   stale rows blocked) is shown (``RunEvents.planned``), refused above the safety
   thresholds without force, and confirmed (``RunEvents.confirm``) when it has writes.
5. The executor applies it: rows that failed last time first, the journal and the
   write count fed from the client's call events, the reports streamed in source order,
   the progress sink told of each row, the cancel signal watched.
6. The reports are closed, the annotated copies and the QR zip written.
7. The alert is sent when the run meets a condition picked (``pipeline.notify``), also
   when an error stopped it.

An error after something was written never claims nothing was done: it is raised as
``StoppedAfterWrites`` (``InterruptedAfterWrites`` for a second Ctrl-C), saying what was
written and where the journal is.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from linksync.api import LinkClient
from linksync.config import Settings
from linksync.config.identity import WorkspaceIdentity, workspace_identity
from linksync.errors import (
    InterruptedAfterWrites,
    LinksyncError,
    StoppedAfterWrites,
    UnsafePlanError,
    describe,
)
from linksync.logs import log_plan_counts, log_row_failed, log_run_end, log_run_start
from linksync.model import RowResult, RunInfo
from linksync.model.outcome import RemoteWrites
from linksync.pipeline.changed import Changed, RunReading, read_run, saved_sources
from linksync.pipeline.collector import fewer_collections
from linksync.pipeline.events import RunEvents
from linksync.pipeline.inputs import (
    SourceReading,
    Sources,
    keep_secrets,
    source_paths,
    source_secrets,
)
from linksync.pipeline.lock import LockHolder, acquire_lock
from linksync.pipeline.notify import Alerts, RunEnd, alert_run, end_stopped
from linksync.pipeline.overlap import Ahead, identity_of, lock_first, reads_while
from linksync.pipeline.passwords import load_passwords, password_store, save_passwords
from linksync.pipeline.planning import plan_to_apply
from linksync.pipeline.preflight import (
    Checks,
    PathArg,
    RunPaths,
    clear_leftovers,
    run_checks,
    run_paths,
)
from linksync.pipeline.request import Hooks, Outputs
from linksync.pipeline.saved import SavedAsks, check_saved
from linksync.pipeline.stopped import after_writes
from linksync.report import ReportOptions, ReportSet
from linksync.report.annotate import annotation_pairs, write_copies
from linksync.safe.leftovers import describe_removed
from linksync.safe.secrets import Secrets
from linksync.sources.named import shown_names
from linksync.sync.execute import Sinks, execute
from linksync.sync.fingerprints import PasswordStore
from linksync.sync.history import LastRun, last_run, repeats
from linksync.sync.journal import DEFAULT_RUNS_DIR, Journal, new_run_id
from linksync.sync.options import SyncOptions
from linksync.sync.plan import Plan
from linksync.sync.results import Results
from linksync.sync.stale import read_saved_plan


@dataclass(frozen=True)
class ApplyRequest:
    """Everything one apply is asked, made ready for it (``linksync.pipeline.entry``):
    the engine's options, how the sources are read, the AI tools asked for, the
    outputs, the alerts, and what was given beside a saved plan."""

    settings: Settings
    options: SyncOptions
    sources: Sources = ()
    saved: Plan | None = None
    saved_path: PathArg | None = None
    reading: SourceReading = field(default_factory=SourceReading)
    ai_slug: bool = False
    ai_og: bool = False
    outputs: Outputs = field(default_factory=Outputs)
    alerts: Alerts = field(default_factory=Alerts)
    #: What was given to apply a saved plan (``linksync.pipeline.saved``).
    asks: SavedAsks = field(default_factory=SavedAsks)


class ApplyRun:
    """One apply (see module docstring): ``await ApplyRun(...).go()``. ``writes`` and
    ``journal`` are readable while it goes and after it fails."""

    def __init__(self, request: ApplyRequest, hooks: Hooks | None = None) -> None:
        hooks = hooks or Hooks()
        self.request = request
        self.events = hooks.events or RunEvents()
        self.on_progress = hooks.on_progress
        self.cancel = hooks.cancel
        self.log = hooks.logger or logging.getLogger("linksync")
        self.secrets = Secrets(
            [
                *request.settings.target.secrets(),
                request.reading.workbook_password,
                *request.alerts.secrets(),
            ]
        )
        self.writes = RemoteWrites()
        self.run_id = new_run_id()
        self.journal: Path | None = None
        self.warnings: list[str] = []
        #: The options the run goes by (a saved plan's, once checked: ``_bind``).
        self.options = request.options
        self.plan_name = str(request.saved_path or "(a Plan object)")
        #: The workspace the target reaches, read at the start of the run (or given).
        self.identity: WorkspaceIdentity | None = None
        #: What a run since a git ref read (``linksync.pipeline.changed``).
        self.changed: Changed | None = None
        #: The calls sent while the sources were read (``linksync.pipeline.overlap``).
        self._ahead: Ahead | None = None

    @property
    def label(self) -> str:
        return self.request.settings.target.label

    async def go(self) -> Results:
        """The run, then its alert (``linksync.pipeline.notify``): when it ends, or
        stops with an error (raised again once the alert is sent)."""
        started = time.monotonic()
        with fewer_collections():
            try:
                results = await self._go()
            except (LinksyncError, OSError, asyncio.CancelledError) as exc:
                mode = self.options.mode.value
                info = RunInfo(self.label, mode, duration_s=time.monotonic() - started)
                told, logged = (self.secrets, self.events), (self.log, self.run_id, self.writes)
                await end_stopped(self.request.alerts, exc, info, told, logged)
                raise
        if not results.confirmed:
            return results
        end = RunEnd.of_rows(
            "apply", results.info, results.rows, changes=len(results.plan.writes),
            reports=results.files, stopped=results.stop_sentence if results.stopped_by else None,
        )  # fmt: skip
        warning = await alert_run(self.request.alerts, end, self.secrets, self.events)
        if warning is not None:
            self.warnings.append(warning)
            results = replace(results, warnings=tuple(self.warnings))
        return results

    async def _go(self) -> Results:
        req = self.request
        paths = self._preflight()
        self.journal = paths.journal
        saved = req.saved
        if saved is None and req.saved_path is not None:
            saved = read_saved_plan(req.saved_path)
        if saved is not None:
            self._bind(saved)
        log_run_start(
            self.log,
            target=self.label,
            mode=self.options.mode.value,
            dry_run=False,
            sources=[str(s) for s in source_paths(req.sources)] or [str(req.saved_path or "")],
            run_id=self.run_id,
        )
        sources = saved_sources(req.sources, saved) if saved else req.sources
        gate = lock_first(paths, self.label, req.settings.target, self.identity)
        early = reads_while(req, sources, self.options, gate) if saved is None else nullcontext()
        async with early as ahead:  # read-only calls sent while reading (pipeline.overlap)
            self._ahead = ahead
            validation = await self._read_sources(sources, saved, beside=ahead is not None)
            if paths.lock is None and paths.lock_is_default:
                self.identity = self.identity or await identity_of(ahead, req.settings)
                paths = paths.identified(self.identity)
            try:
                results = await self._locked(paths, validation, saved)
            except (LinksyncError, OSError) as exc:
                if not self.writes.any or isinstance(exc, StoppedAfterWrites):
                    raise
                lead = f"{describe(exc)}. Before this error the run wrote to the workspace"
                raise after_writes(StoppedAfterWrites, lead, self.writes, paths.journal) from exc
        log_run_end(
            self.log,
            counts=results.counts,
            duration_s=results.duration_s,
            exit_code=results.exit_code,
            requests=results.info.requests,
            run_id=results.run_id,
            error_constant=results.stopped_by,  # a 403, a 401, an interruption mid-run
        )
        return results

    async def _read_sources(self, sources: Sources, saved: Plan | None, *, beside: bool) -> Any:
        """The sources read, validated and refused as step 2 says (``read_run``), in a
        worker thread ``beside`` the calls started meanwhile."""
        if not sources:
            return None
        req = self.request
        reading = replace(req.reading, progress=self.events.checking)
        validation, self.changed = await read_run(
            sources, reading, RunReading(self.options, req.settings.config_path, saved is not None),
            self.events, beside=beside,
        )  # fmt: skip
        keep_secrets(source_secrets(validation), self.secrets, self.log)
        return validation

    def _bind(self, saved: Plan) -> None:
        """Check a saved plan before any request (``linksync.pipeline.saved``): the
        options it runs with, and warnings for what it does not take."""
        req = self.request
        rebound = check_saved(saved, req.asks, req.settings, req.sources, plan_name=self.plan_name)
        self.options = rebound.options
        for note in rebound.notes:
            self.warn(note)

    def paths(self) -> RunPaths:
        """Where this run writes (reports, copies, QR zip, journal, lock)."""
        req, out = self.request, self.request.outputs
        pairs = annotation_pairs(source_paths(req.sources), out.annotate)
        return run_paths(
            req.settings,
            reports=out.reports,
            annotate=pairs,
            journal=out.journal,
            lock=out.lock,
            run_id=self.run_id,
            qr=out.qr,
        )

    def checks(self, paths: RunPaths | None = None) -> Checks:
        """What the preflight checks: this run's outputs, and the files it reads."""
        req = self.request
        reads = [*source_paths(req.sources), *req.outputs.reads]
        return run_checks(req.settings, reads, paths or self.paths(), saved_plan=req.saved_path)

    def _preflight(self) -> RunPaths:
        paths = self.paths()
        self.checks(paths).check()
        self.request.alerts.check()
        removed = clear_leftovers(paths)
        if removed:
            self.warn(describe_removed(removed))
        return paths

    def _lock(self, paths: RunPaths) -> AbstractContextManager[LockHolder | None]:
        if paths.lock is None or (self._ahead is not None and self._ahead.locked == paths.lock):
            return nullcontext()  # none, or held since the reading (``lock_first``)
        wait = self.request.outputs.lock_wait

        def waiting(holder: LockHolder | None) -> None:
            self.events.lock_wait(holder, wait)

        return acquire_lock(paths.lock, target=self.label, wait=wait, on_wait=waiting)

    async def _locked(self, paths: RunPaths, validation: Any, saved: Plan | None) -> Results:
        """Steps 3 to 6 (see module docstring). The reports are opened once the lock
        is held (nothing is left behind when another run holds it), and the last run
        is read then (it may have just ended)."""
        options = ReportOptions(secrets=tuple(self.secrets))
        with self._lock(paths), ReportSet(paths.reports, options) as reports:
            runs_dir = paths.journal.parent if paths.journal is not None else DEFAULT_RUNS_DIR
            last = last_run(self.label, runs_dir)
            on_result = self._reporter(reports, last)
            results = await self._apply(paths, validation, saved, last, on_result)
            if not results.confirmed:
                return results  # nothing applied, no report written
            files = reports.close(results.info)
        names = shown_names(self.request.sources)
        files += write_copies(paths.annotate, paths.qr, results.rows, self.warn, names)
        again = tuple(repeats(results.rows, last))
        return replace(
            results,
            files=tuple(files),
            repeats=again,
            last_run_id=last.run_id if last is not None else None,
            warnings=tuple(self.warnings),
        )

    def _reporter(self, reports: ReportSet, last: LastRun | None) -> Callable[[RowResult], None]:
        """What each row's result goes to: the reports, and the log when it failed."""

        def on_result(row: RowResult) -> None:
            reports.write(row)
            if row.failed:
                repeat = last is not None and last.is_repeat(row)
                log_row_failed(self.log, row, repeat=repeat)

        return on_result

    async def _apply(
        self,
        paths: RunPaths,
        validation: Any,
        saved: Plan | None,
        last: LastRun | None,
        on_result: Callable[[RowResult], None],
    ) -> Results:
        req = self.request
        ahead = self._ahead
        opened = nullcontext(ahead.client) if ahead else req.settings.open_client()
        async with opened as client:
            target = req.settings.target
            self.identity = self.identity or await (
                ahead.workspace(target) if ahead else workspace_identity(client, target)
            )
            passwords = password_store(self.identity)
            plan = await self._plan(ahead.early if ahead else client, validation, saved, passwords)
            if ahead is not None:
                await ahead.stop()  # nothing more is read early once the plan is made
            log_plan_counts(self.log, plan.counts)
            self.events.planned(plan)
            if plan.refused:
                raise UnsafePlanError(f"plan refused: {plan.safety.reason}; pass --force to apply")
            if plan.has_changes and not self.events.confirm(plan):
                info = RunInfo(self.label, run_id=self.run_id)
                return Results(rows=(), plan=plan, info=info, confirmed=False)
            journal = Journal(paths.journal, self.run_id) if paths.journal is not None else None
            try:
                progress = self.on_progress if plan.has_changes else None
                results = await execute(
                    plan,
                    client,
                    sinks=Sinks(journal, progress, on_result, self.writes, passwords),
                    run_id=self.run_id,
                    last=last,
                    recheck_urls=saved is not None or not paths.lock_is_default,
                    cancel=self.cancel,
                )
            finally:
                save_passwords(passwords, self.warn)
                if journal is not None:
                    journal.close()
        return replace(results, info=replace(results.info, target=self.label))

    async def _plan(
        self, client: LinkClient, validation: Any, saved: Plan | None, passwords: PasswordStore
    ) -> Plan:
        """The plan this run applies (``plan_to_apply``; an undo makes its own)."""
        req = self.request
        return await plan_to_apply(
            client,
            self.options,
            validation=validation,
            settings=req.settings,
            saved=saved,
            target=self.label,
            plan_name=self.plan_name,
            ai_slug=req.ai_slug,
            ai_og=req.ai_og,
            passwords=load_passwords(passwords, self.warn) if saved is None else None,
            changed=self.changed,
        )

    def warn(self, text: str) -> None:
        self.warnings.append(text)
        self.events.warning(text)


def run_apply(run: ApplyRun) -> Results:
    """Run ``run`` in a new event loop (``linksync.apply``). A Ctrl-C while the requests
    in flight finish, after the run wrote, is ``InterruptedAfterWrites``."""
    try:
        return asyncio.run(run.go())
    except KeyboardInterrupt:
        if not run.writes.any:
            raise
        lead = "Interrupted after writing to the workspace"
        raise after_writes(InterruptedAfterWrites, lead, run.writes, run.journal) from None
