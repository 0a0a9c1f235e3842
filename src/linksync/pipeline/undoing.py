"""``linksync.undo``: the reverse of a run, as a run of its own.

A run's journal holds what each link it wrote held before (``linksync.sync.journal``).
``undo`` finds the run (its id as the summary prints it, a journal's path, or the latest
run against the target: ``linksync.sync.history.find_run``), refuses a journal of
another target or of a linksync that did not record before-values (``ConfigError``:
exit 2, nothing done), then runs as ``linksync.apply`` does (``ApplyRun``: every output
checked first, the target's lock, reports, its own journal, the exit code), with the
reverse plan (``linksync.sync.undo.reverse_plan``) in place of a plan of sources: the
run's journal is read again under the lock, the links it wrote are read from the
workspace, and the plan is shown and confirmed (``RunEvents``) before anything is sent.
A link changed since the run is left as it is and named, and makes the exit code 1
(``Results.not_undone``: a rollback job must not read 0 as fully undone); an undo's
journal can be undone in turn. A run that wrote nothing has nothing to undo: nothing is read or sent
(``RunEvents.notice`` says so; the result has no rows, exit code 0).

``plan_undo`` is the reverse plan alone (it reads the workspace, writes nothing): what
the page shows before its "Undo this run" is confirmed.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from linksync.api import LinkClient
from linksync.config import Settings, resolve
from linksync.errors import ConfigError
from linksync.model import LinkSpec, RunInfo
from linksync.pipeline.applying import ApplyRequest, ApplyRun, run_apply
from linksync.pipeline.events import RunEvents
from linksync.pipeline.notify import alerts_for
from linksync.pipeline.preflight import PathArg, RunPaths
from linksync.pipeline.request import Hooks, Notify, Outputs
from linksync.sync.fingerprints import PasswordStore
from linksync.sync.history import PastRun, find_run, read_run
from linksync.sync.journal import DEFAULT_RUNS_DIR
from linksync.sync.options import SyncOptions
from linksync.sync.plan import Plan
from linksync.sync.remote import fetch_remote
from linksync.sync.results import UNDO_MODE, Results
from linksync.sync.undo import reverse_plan


def undone_run(path: Path, run_id: str | None, label: str) -> PastRun:
    """The run of the journal at ``path`` to undo, checked: against this target
    (``label``), and journalled with what its links held before."""
    past = read_run(path, run_id)
    if past.target != label:
        raise ConfigError(
            f"run {past.run_id} ({path}) was a run against {past.target}, not {label}: "
            "undo it with the target it ran against (nothing done)"
        )
    if not past.undoable and past.done:
        raise ConfigError(
            f"run {past.run_id} ({path}) was journalled by an earlier linksync, which did not "
            "record what its links held before: it cannot be undone (nothing done)"
        )
    return past


def undoing(past: PastRun) -> str:
    """'Undo of run ... (its journal): 3 links it wrote, read from the workspace.'"""
    n = len(past.written)
    return f"Undo of run {past.run_id} ({past.path}): {n} link{'' if n == 1 else 's'} it wrote"


def unrecorded(past: PastRun) -> str | None:
    """The warning naming the links a killed run wrote without recording them."""
    if not past.unrecorded:
        return None
    n, shown = len(past.unrecorded), ", ".join(past.unrecorded[:10])
    more = f" and {n - 10} more" if n > 10 else ""
    return (
        f"{n} link{'' if n == 1 else 's'} the run wrote {'has' if n == 1 else 'have'} no "
        f"result in its journal (the run was stopped before recording it): not undone, "
        f"check by hand: {shown}{more}"
    )


def said(past: PastRun, events: RunEvents) -> None:
    """Tell the front end which run is undone, and what of it cannot be."""
    events.note(undoing(past))
    warning = unrecorded(past)
    if warning is not None:
        events.warning(warning)


def nothing_to_undo(past: PastRun, events: RunEvents) -> None:
    """Tell the front end that the run recorded no write to undo."""
    what = "recorded no write" if past.unrecorded else "wrote nothing to the workspace"
    events.notice(f"Nothing to undo: run {past.run_id} ({past.path}) {what}.")
    warning = unrecorded(past)
    if warning is not None:
        events.warning(warning)


async def reverse_of(client: LinkClient, past: PastRun, options: SyncOptions, target: str) -> Plan:
    """The reverse plan of ``past``: the links it wrote read from the workspace."""
    specs = [LinkSpec(url=None, slug=w.slug, domain=w.domain) for w in past.written]
    remote = await fetch_remote(client, specs, options)
    plan = reverse_plan(past.written, remote, now=datetime.now(UTC), options=options, target=target)
    return replace(plan, undoes=past.run_id or None)


class UndoRun(ApplyRun):
    """One undo (see module docstring): an apply whose plan is the reverse of ``past``."""

    def __init__(
        self, request: ApplyRequest, hooks: Hooks | None, journal: Path, run_id: str | None
    ) -> None:
        super().__init__(request, hooks)
        self.undone = (journal, run_id)

    def _read(self) -> PastRun:
        return undone_run(*self.undone, self.label)

    async def _go(self) -> Results:
        past = self._read()
        if not past.written:
            nothing_to_undo(past, self.events)
            info = RunInfo(self.label, UNDO_MODE, run_id=self.run_id)
            return Results(rows=(), plan=Plan((), self.options, target=self.label), info=info)
        return await super()._go()

    async def _plan(
        self, client: LinkClient, validation: Any, saved: Plan | None, passwords: PasswordStore
    ) -> Plan:
        # Read again under the lock: a run of the journal still going has ended now.
        past = self._read()
        said(past, self.events)
        return await reverse_of(client, past, self.options, self.label)

    async def _apply(self, paths: RunPaths, *args: Any) -> Results:
        results = await super()._apply(paths, *args)
        return replace(results, info=replace(results.info, mode=UNDO_MODE))


def _located(
    run: str | PathArg | None, settings: Settings, runs_dir: PathArg | None
) -> tuple[Path, str | None]:
    return find_run(run, settings.target.label, Path(runs_dir or DEFAULT_RUNS_DIR))


def _options(settings: Settings) -> SyncOptions:
    return SyncOptions(allow_replace=True, system_domain=settings.system_domain)


def undo(
    run: str | PathArg | None = None,
    settings: Settings | None = None,
    *,
    runs_dir: PathArg | None = None,
    notify: Notify | None = None,
    outputs: Outputs | None = None,
    hooks: Hooks | None = None,
) -> Results:
    """Undo what a run wrote, as ``linksync undo`` does (see module docstring).

    Returns ``Results`` (``exit_code``: what ``linksync undo`` exits with; no rows when
    the run wrote nothing). Raises ``ConfigError`` for a run not found, a journal of
    another target or of an earlier linksync, a bad output path (nothing done), and
    the errors ``linksync.apply`` raises.

    Args:
        run: the run's id (as its summary printed it), or its journal's path; None: the
            latest run against this target in ``runs_dir``.
        settings: the target and profile (``linksync.config.resolve``); default: the
            environment or ./linksync.yaml, else ConfigError.
        runs_dir: the folder of the journals (default ``.linksync/runs``).
        notify: the alert at the run's end (``Notify``).
        outputs: reports, the undo's own journal and the lock (``Outputs``).
        hooks: the front end's ``events`` (the plan shown and confirmed),
            ``on_progress``, ``cancel`` and ``logger`` (``Hooks``).
    """
    settings = settings or resolve()
    journal, run_id = _located(run, settings, runs_dir)
    outputs = outputs or Outputs()
    request = ApplyRequest(
        settings=settings,
        options=_options(settings),
        outputs=replace(outputs, reads=(*outputs.reads, journal)),
        alerts=alerts_for(notify, settings.profile),
    )
    return run_apply(UndoRun(request, hooks, journal, run_id))


def plan_undo(
    run: str | PathArg | None = None,
    settings: Settings | None = None,
    *,
    runs_dir: PathArg | None = None,
    events: RunEvents | None = None,
) -> Plan:
    """The reverse plan of a run (``undo``'s ``run`` and ``runs_dir``), without writing:
    it reads the journal and the workspace. An empty plan: the run wrote nothing
    (``events`` is told so)."""
    settings = settings or resolve()
    journal, run_id = _located(run, settings, runs_dir)
    past = undone_run(journal, run_id, settings.target.label)
    options, label = _options(settings), settings.target.label
    events = events or RunEvents()
    if not past.written:
        nothing_to_undo(past, events)
        return Plan((), options, target=label)
    said(past, events)

    async def go() -> Plan:
        async with settings.open_client() as client:
            return await reverse_of(client, past, options, label)

    return asyncio.run(go())
