"""``linksync.plan`` and ``linksync.apply``: the run as one library call.

Both take the sources (file paths, or ``LinkSpec`` objects), the target's ``settings``
(default: ``linksync.config.resolve()``, from the environment or ``./linksync.yaml``;
the built-in sandbox only when asked for, with ``resolve(sandbox=True)`` or
``LINKSYNC_SANDBOX=1``) and the values of the run request
(``linksync.pipeline.request``): ``reading`` (a ``Reading``), ``sync`` (a
``SyncPolicy``), ``notify`` (a ``Notify``), ``outputs`` (``PlanOutputs`` or
``Outputs``) and ``hooks`` (a ``Hooks``); a value left out, or a field of it left None,
is the profile's setting. The ``*_async`` forms run in the caller's event loop; the
plain forms start one; ``prepare_apply`` is the apply not started (``await
run.go()``), as a front end that keeps hold of the run uses it. Each call is one run
with its own client, secrets and write count: two calls may run at once (in threads,
or as tasks), for one target or several.
"""

from __future__ import annotations

import asyncio
import logging
import time
from contextlib import AsyncExitStack
from dataclasses import replace
from pathlib import Path

from linksync.api import LinkClient
from linksync.config import Settings, resolve
from linksync.config.identity import local_identity, workspace_identity
from linksync.errors import ConfigError, LinksyncError
from linksync.logs import log_plan_counts, log_row_failed, log_run_end, log_run_start
from linksync.model import RunInfo
from linksync.model.outcome import RemoteWrites
from linksync.pipeline.applying import ApplyRequest, ApplyRun, run_apply
from linksync.pipeline.changed import read_declared
from linksync.pipeline.collector import fewer_collections
from linksync.pipeline.events import RunEvents
from linksync.pipeline.inputs import (
    SourceReading,
    Sources,
    keep_secrets,
    source_paths,
    source_secrets,
    sync_options,
)
from linksync.pipeline.notify import RunEnd, alert_run, alerts_for, end_stopped
from linksync.pipeline.overlap import Plans, early_look, read_beside, reads_ahead
from linksync.pipeline.passwords import load_passwords, password_store
from linksync.pipeline.planning import Planned, make_plan, plan_exit_code
from linksync.pipeline.preflight import PathArg, clear_leftovers, run_checks, run_paths
from linksync.pipeline.request import Hooks, Notify, Outputs, PlanOutputs, Reading, SyncPolicy
from linksync.pipeline.saved import config_of, saved_asks, workspace_here
from linksync.report.summary import Counts
from linksync.safe.leftovers import describe_removed
from linksync.safe.outputs import write_text_atomic
from linksync.safe.secrets import Secrets
from linksync.sync.binding import digest_sources
from linksync.sync.options import SyncOptions
from linksync.sync.plan import Plan
from linksync.sync.results import Results


def plan(
    sources: Sources,
    settings: Settings | None = None,
    *,
    reading: Reading | None = None,
    sync: SyncPolicy | None = None,
    notify: Notify | None = None,
    outputs: PlanOutputs | None = None,
    hooks: Hooks | None = None,
) -> Planned:
    """Read, validate, fetch and diff: what ``apply`` would do (nothing is written to
    the workspace). Returns ``Planned`` (``exit_code``: what ``linksync plan`` would
    exit with).

    Args:
        sources: file paths (CSV, Excel, YAML; a folder) or LinkSpec objects.
        settings: the target and profile (``linksync.config.resolve``); default: the
            environment or ./linksync.yaml, else ConfigError.
        reading: how the sources are read and checked (``Reading``).
        sync: what the plan may do to the workspace (``SyncPolicy``).
        notify: the alert at the plan's end (``Notify``).
        outputs: ``PlanOutputs``: ``out`` saves the plan as JSON (checked before the
            first request, written atomically) for ``apply(plan=...)``;
            ``detailed_exitcode``.
        hooks: ``Hooks``: the front end's ``events`` and the ``logger``.
    """
    return asyncio.run(
        plan_async(
            sources,
            settings,
            reading=reading,
            sync=sync,
            notify=notify,
            outputs=outputs,
            hooks=hooks,
        )
    )


async def plan_async(
    sources: Sources,
    settings: Settings | None = None,
    *,
    reading: Reading | None = None,
    sync: SyncPolicy | None = None,
    notify: Notify | None = None,
    outputs: PlanOutputs | None = None,
    hooks: Hooks | None = None,
) -> Planned:
    """``plan`` in the caller's event loop (the same parameters, the same result)."""
    settings = settings or resolve()
    hooks = hooks or Hooks()
    policy = sync or SyncPolicy()
    events = hooks.events or RunEvents()
    alerts = alerts_for(notify, settings.profile)
    secrets = Secrets([*settings.target.secrets(), *alerts.secrets()])
    started, label = time.monotonic(), settings.target.label

    def info(mode: str) -> RunInfo:
        return RunInfo(label, mode, dry_run=True, duration_s=time.monotonic() - started)

    with fewer_collections():
        try:
            alerts.check()
            planned, counts = await _planning(
                sources, settings, reading or Reading(), policy, outputs or PlanOutputs(),
                (events, hooks.logger or logging.getLogger("linksync"), secrets),
            )  # fmt: skip
        except (LinksyncError, OSError) as exc:
            mode = policy.mode or SyncOptions().mode
            logged = (hooks.logger or logging.getLogger("linksync"), None, RemoteWrites())
            told = (secrets, events)
            await end_stopped(alerts, exc, info(str(getattr(mode, "value", mode))), told, logged)
            raise
        made = planned.plan
        shown = (planned.saved_to,) if planned.saved_to is not None else ()
        end = RunEnd(
            "plan", info(made.options.mode.value), counts, changes=len(made.writes), reports=shown
        )
        await alert_run(alerts, end, secrets, events)
    return planned


async def _planning(
    sources: Sources,
    settings: Settings,
    reading: Reading,
    policy: SyncPolicy,
    outputs: PlanOutputs,
    told: tuple[RunEvents, logging.Logger, Secrets],
) -> tuple[Planned, Counts]:
    """The plan, and the counts its alert tells (``report.plans.plan_counts``: a report
    row is made only as the example of an error constant); the passwords the sources
    refer to join the run's ``Secrets`` (``told``: the events, the log, the secrets)."""
    from linksync.report.plans import failed_rows, plan_counts  # a plan's rows; no apply's

    events, log, secrets = told
    opts = sync_options(policy, settings)
    out = outputs.out
    if out is not None:
        paths = run_paths(settings, journal=False, lock=False, plan_out=out)
        run_checks(settings, source_paths(sources), paths).check()
        removed = clear_leftovers(paths)
        if removed:
            events.warning(describe_removed(removed))
    label = settings.target.label
    shown = [str(s) for s in source_paths(sources)]
    log_run_start(log, target=label, mode=opts.mode.value, dry_run=True, sources=shown)
    started = time.monotonic()
    read = SourceReading.for_target(reading, settings, progress=events.checking)
    digests = digest_sources(sources)  # before reading: a file edited meanwhile is seen
    look = early_look(sources, read.reading)
    async with AsyncExitStack() as stack:
        ahead = None
        if look is not None:  # the service asked meanwhile (pipeline.overlap)
            orgs = 2 if local_identity(settings.target) is not None else 3
            asked = Plans(opts, look, organizations=orgs)
            ahead = await stack.enter_async_context(reads_ahead(settings.open_client, asked))
        validation, changed = await read_beside(  # only what changed since a git ref, when asked
            ahead is not None, read_declared, sources, read,
            default_domain=opts.default_domain, config=settings.config_path, note=events.note,
        )  # fmt: skip
        keep_secrets(source_secrets(validation), secrets, log)
        events.problems(validation.file_problems)
        for note in validation.notes:
            events.note(note)
        if ahead is None:
            client: LinkClient = await stack.enter_async_context(settings.open_client())
        else:
            client = ahead.early
        identity = await workspace_identity(client, settings.target)
        passwords = load_passwords(password_store(identity), events.warning)
        made = await make_plan(
            client,
            validation,
            opts,
            ai_slug=policy.ai_slug,
            ai_og=policy.ai_og,
            target=label,
            passwords=passwords,
            changed=changed,
        )
        # What an apply of this plan checks: the workspace, the sources (sync.binding).
        here = await workspace_here(client, settings)
        made = replace(made, workspace=here, sources=digests, config=config_of(settings))
    log_plan_counts(log, made.counts)
    saved_json = None
    if out is not None:
        saved_json = made.to_json()
        write_text_atomic(out, saved_json + "\n")
    code = plan_exit_code(made, validation.file_problems, detailed=outputs.detailed_exitcode)
    for row in failed_rows(made):
        log_row_failed(log, row)
    log_run_end(log, counts=made.counts, duration_s=time.monotonic() - started, exit_code=code)
    saved_to = Path(out) if out is not None else None
    planned = Planned(made, validation.file_problems, code, saved_to, saved_json)
    return planned, plan_counts(made)


def prepare_apply(
    sources: Sources = (),
    settings: Settings | None = None,
    *,
    plan: Plan | PathArg | None = None,
    reading: Reading | None = None,
    sync: SyncPolicy | None = None,
    notify: Notify | None = None,
    outputs: Outputs | None = None,
    hooks: Hooks | None = None,
) -> ApplyRun:
    """The run ``apply`` would do, not started (``await run.go()``); the parameters are
    ``apply``'s. Raises ``ConfigError`` at once for neither sources nor a plan, or a
    bad option."""
    settings = settings or resolve()
    if not sources and plan is None:
        raise ConfigError("give sources to plan from, or a saved plan")
    reading, policy = reading or Reading(), sync or SyncPolicy()
    saved = plan if isinstance(plan, Plan) else None
    saved_path = plan if not isinstance(plan, Plan) else None
    if plan is None:
        run_options = sync_options(policy, settings)
    else:  # a saved plan runs with its own options, checked against these (pipeline.saved)
        run_options = saved.options if saved is not None else SyncOptions()
    request = ApplyRequest(
        settings=settings,
        options=run_options,
        sources=tuple(sources),
        saved=saved,
        saved_path=saved_path,
        reading=SourceReading.for_target(reading, settings),
        ai_slug=policy.ai_slug,
        ai_og=policy.ai_og,
        outputs=outputs or Outputs(),
        alerts=alerts_for(notify, settings.profile),
        asks=saved_asks(reading, policy, sources=bool(sources)),
    )
    return ApplyRun(request, hooks)


def apply(
    sources: Sources = (),
    settings: Settings | None = None,
    *,
    plan: Plan | PathArg | None = None,
    reading: Reading | None = None,
    sync: SyncPolicy | None = None,
    notify: Notify | None = None,
    outputs: Outputs | None = None,
    hooks: Hooks | None = None,
) -> Results:
    """Plan and apply the sources (or a saved ``plan``), as ``linksync apply`` does.

    Every step of the command (``linksync.pipeline.applying``): outputs checked before
    the first request, the run lock, failed rows of the last run first, the journal,
    reports streamed in source order, annotated copies, QR codes. Returns ``Results``
    (``exit_code``: what ``linksync apply`` would exit with). Raises ``ConfigError`` for
    a bad output path or option (nothing done), ``LockError`` when another run holds
    the lock, ``FileProblems`` for sources with errors that belong to no row,
    ``UnsafePlanError`` above the safety thresholds without ``force``,
    ``StoppedAfterWrites`` for an error after writing, ``InterruptedAfterWrites`` for a
    Ctrl-C after writing.

    Args:
        sources: file paths (CSV, Excel, YAML; a folder) or LinkSpec objects to plan
            from (or give ``plan``).
        settings: the target and profile (``linksync.config.resolve``); default: the
            environment or ./linksync.yaml, else ConfigError.
        plan: a saved plan, a ``Plan`` or the file ``plan(outputs=PlanOutputs(out=...))``
            wrote, applied only to the workspace it was made for, beside its own
            unchanged sources; rows changed since are refused with STALE_PLAN, and
            ``sync`` may only tighten its limits or narrow its mode.
        reading: how the sources are read and checked (``Reading``).
        sync: what the run may do to the workspace (``SyncPolicy``).
        notify: the alert at the run's end (``Notify``).
        outputs: reports, annotated copies, QR codes, the journal and the lock
            (``Outputs``).
        hooks: the front end's ``events``, ``on_progress``, ``cancel`` and ``logger``
            (``Hooks``).
    """
    return run_apply(
        prepare_apply(
            sources,
            settings,
            plan=plan,
            reading=reading,
            sync=sync,
            notify=notify,
            outputs=outputs,
            hooks=hooks,
        )
    )


async def apply_async(
    sources: Sources = (),
    settings: Settings | None = None,
    *,
    plan: Plan | PathArg | None = None,
    reading: Reading | None = None,
    sync: SyncPolicy | None = None,
    notify: Notify | None = None,
    outputs: Outputs | None = None,
    hooks: Hooks | None = None,
) -> Results:
    """``apply`` in the caller's event loop (the same parameters, the same result;
    cancelling the task is a Ctrl-C)."""
    run = prepare_apply(
        sources, settings, plan=plan, reading=reading, sync=sync, notify=notify,
        outputs=outputs, hooks=hooks,
    )  # fmt: skip
    return await run.go()
