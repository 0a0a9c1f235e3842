"""``linksync.plan`` and ``linksync.apply``: the run as one library call.

Both take the sources (file paths, or ``LinkSpec`` objects) and keyword-only
parameters, each with its default and a line in the function's ``Args:``
(``linksync.pipeline.keywords``): a resolved target (``settings``; default: the
environment or ``./linksync.yaml``; the built-in sandbox only when asked for, with
``linksync.config.resolve(sandbox=True)`` or ``LINKSYNC_SANDBOX=1``), the reading options of the
command line (``sheets``, ``mapping``, ``encoding``, ``date_format``,
``empty_values``, ``strict``, ``fix_invisible``) and ``SyncOptions`` fields
(``mode="mirror"``, ``owner_tag=...``, ``force=True``...), over the profile's. The
``*_async`` forms run in the caller's event loop; the plain forms start one. Each call
is one run with its own client, secrets and write count: two calls may run at once (in
threads, or as tasks), for one target or several.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import replace
from os import PathLike
from pathlib import Path
from typing import Any, ParamSpec

from linksync.config import Settings, resolve
from linksync.config.identity import workspace_identity
from linksync.errors import ConfigError, LinksyncError, describe
from linksync.logs import log_plan_counts, log_row_failed, log_run_end, log_run_start
from linksync.model import RunInfo
from linksync.pipeline.applying import ApplyRequest, ApplyRun, run_apply
from linksync.pipeline.collector import fewer_collections
from linksync.pipeline.events import RunEvents
from linksync.pipeline.inputs import Reading, Sources, load_specs, options_from, source_paths
from linksync.pipeline.keywords import documented, variant
from linksync.pipeline.notify import Alerts, RunEnd, alert_run
from linksync.pipeline.passwords import load_passwords, password_store
from linksync.pipeline.planning import Planned, make_plan, plan_exit_code
from linksync.pipeline.preflight import PathArg, clear_leftovers, run_checks, run_paths
from linksync.pipeline.saved import saved_asks, workspace_here
from linksync.report.plans import plan_rows
from linksync.report.summary import Counts
from linksync.safe.leftovers import describe_removed
from linksync.safe.outputs import write_text_atomic
from linksync.safe.secrets import Secrets
from linksync.sync.binding import digest_sources
from linksync.sync.options import Mode, SyncOptions
from linksync.sync.plan import Plan
from linksync.sync.results import CancelSignal, ProgressSink, Results

P = ParamSpec("P")
_SYNC_FIELDS = frozenset(SyncOptions.__dataclass_fields__)
_READING_FIELDS = frozenset(Reading.__dataclass_fields__)


def _reading(kw: Mapping[str, Any], settings: Settings) -> Reading:
    """The reading keywords (``Reading`` fields) over the profile's."""
    return Reading(**{k: v for k, v in kw.items() if k in _READING_FIELDS}).over(settings)


def _alerts(settings: Settings, kw: Mapping[str, Any]) -> Alerts:
    """The keywords ``notify`` and ``notify_on`` over the profile's."""
    prof = settings.profile
    notify, notify_on = kw.get("notify"), kw.get("notify_on")
    return Alerts.of(prof.notify, prof.notify_on, notify, notify_on, name=prof.name)


def _option_values(kw: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in kw.items() if k in _SYNC_FIELDS}


@documented()
async def plan_async(
    sources: Sources,
    *,
    settings: Settings | None = None,
    options: SyncOptions | None = None,
    out: PathArg | None = None,
    detailed_exitcode: bool = False,
    sheets: Sequence[str] | None = None,
    mapping: Mapping[str, str] | None = None,
    encoding: str | None = None,
    date_format: str | None = None,
    timezone: str | None = None,
    empty_values: Iterable[str] = (),
    workbook_password_file: str | PathLike[str] | None = None,
    include_hidden: bool | None = None,
    strict: bool | None = None,
    fix_invisible: bool = False,
    fix_utm_case: bool = False,
    check_destinations: bool | None = None,
    ai_slug: bool = False,
    ai_og: bool = False,
    mode: Mode | str | None = None,
    default_domain: str | None = None,
    system_domain: str | None = None,
    scope_domains: Sequence[str] | None = None,
    owner_tag: str | None = None,
    allow_replace: bool | None = None,
    allow_takeover: bool | None = None,
    reset_passwords: bool | None = None,
    max_deletes: int | None = None,
    max_change_ratio: float | None = None,
    min_existing: int | None = None,
    force: bool | None = None,
    slugless: str | None = None,
    notify: Sequence[str] | None = None,
    notify_on: Sequence[str] | str | None = None,
    events: RunEvents | None = None,
    logger: logging.Logger | None = None,
) -> Planned:
    """``plan`` in the caller's event loop.

    Read, validate, fetch and diff: what ``apply`` would do (nothing is written to the
    workspace). Returns ``Planned`` (``exit_code``: what ``linksync plan`` would exit
    with). A keyword left None leaves the profile's setting (or ``options``) as it is."""
    kw = dict(locals())
    with fewer_collections():
        return await _plan(sources, kw)


async def _plan(sources: Sources, kw: Mapping[str, Any]) -> Planned:
    """The plan; its alert (``linksync.pipeline.notify``) when it ends, or stops."""
    settings = kw["settings"] or resolve()
    events = kw["events"] or RunEvents()
    alerts = _alerts(settings, kw)
    secrets = Secrets([*settings.target.secrets(), *alerts.secrets()])
    started = time.monotonic()

    def info() -> RunInfo:
        return RunInfo(settings.target.label, dry_run=True, duration_s=time.monotonic() - started)

    try:
        alerts.check()
        planned = await _planning(sources, kw, settings, events)
    except (LinksyncError, OSError) as exc:
        mode = kw["mode"] or (kw["options"] or SyncOptions()).mode
        mode = str(getattr(mode, "value", mode))
        end = RunEnd("plan", replace(info(), mode=mode), Counts(), stopped=describe(exc))
        await alert_run(alerts, end, secrets, events)
        raise
    made = planned.plan
    shown = (planned.saved_to,) if planned.saved_to is not None else ()
    end = RunEnd.of_rows(
        "plan", replace(info(), mode=made.options.mode.value), plan_rows(made),
        changes=len(made.writes), reports=shown,
    )  # fmt: skip
    await alert_run(alerts, end, secrets, events)
    return planned


async def _planning(
    sources: Sources, kw: Mapping[str, Any], settings: Settings, events: RunEvents
) -> Planned:
    log = kw["logger"] or logging.getLogger("linksync")
    opts = options_from(settings, kw["options"], **_option_values(kw))
    out = kw["out"]
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
    reading = replace(_reading(kw, settings), destination_progress=events.checking)
    digests = digest_sources(sources)  # before reading: a file edited meanwhile is seen
    validation = load_specs(sources, reading, default_domain=opts.default_domain)
    events.problems(validation.file_problems)
    for note in validation.notes:
        events.note(note)
    async with settings.open_client() as client:
        identity = await workspace_identity(client, settings.target)
        passwords = load_passwords(password_store(identity), events.warning)
        made = await make_plan(
            client,
            validation,
            opts,
            ai_slug=kw["ai_slug"],
            ai_og=kw["ai_og"],
            target=label,
            passwords=passwords,
        )
        # What an apply of this plan checks: the workspace, the sources (sync.binding).
        made = replace(made, workspace=await workspace_here(client, settings), sources=digests)
    log_plan_counts(log, made.counts)
    saved_json = None
    if out is not None:
        saved_json = made.to_json()
        write_text_atomic(out, saved_json + "\n")
    code = plan_exit_code(made, validation.file_problems, detailed=kw["detailed_exitcode"])
    for row in plan_rows(made):
        if row.failed:
            log_row_failed(log, row)
    log_run_end(log, counts=made.counts, duration_s=time.monotonic() - started, exit_code=code)
    saved_to = Path(out) if out is not None else None
    return Planned(made, validation.file_problems, code, saved_to, saved_json)


def _in_new_loop(fn: Callable[P, Coroutine[Any, Any, Planned]]) -> Callable[P, Planned]:
    def run(*args: P.args, **kwargs: P.kwargs) -> Planned:
        return asyncio.run(fn(*args, **kwargs))

    return run


plan = variant(
    _in_new_loop(plan_async),
    plan_async,
    "plan",
    """Read, validate, fetch and diff: what ``apply`` would do (nothing is written to
the workspace); ``out`` saves the plan as JSON (checked before the first request,
written atomically) for ``apply(plan=...)``.""",
)


@documented(sources="file paths or LinkSpec objects to plan from (or give ``plan``).")
def prepare_apply(
    sources: Sources = (),
    *,
    settings: Settings | None = None,
    options: SyncOptions | None = None,
    plan: Plan | PathArg | None = None,
    reports: Sequence[PathArg] = (),
    annotate: Sequence[PathArg] = (),
    qr: PathArg | None = None,
    lock: PathArg | bool | None = None,
    lock_wait: float = 0.0,
    journal: PathArg | bool | None = None,
    reads: Sequence[PathArg] = (),
    sheets: Sequence[str] | None = None,
    mapping: Mapping[str, str] | None = None,
    encoding: str | None = None,
    date_format: str | None = None,
    timezone: str | None = None,
    empty_values: Iterable[str] = (),
    workbook_password_file: str | PathLike[str] | None = None,
    include_hidden: bool | None = None,
    strict: bool | None = None,
    fix_invisible: bool = False,
    fix_utm_case: bool = False,
    check_destinations: bool | None = None,
    ai_slug: bool = False,
    ai_og: bool = False,
    mode: Mode | str | None = None,
    default_domain: str | None = None,
    system_domain: str | None = None,
    scope_domains: Sequence[str] | None = None,
    owner_tag: str | None = None,
    allow_replace: bool | None = None,
    allow_takeover: bool | None = None,
    reset_passwords: bool | None = None,
    max_deletes: int | None = None,
    max_change_ratio: float | None = None,
    min_existing: int | None = None,
    force: bool | None = None,
    slugless: str | None = None,
    notify: Sequence[str] | None = None,
    notify_on: Sequence[str] | str | None = None,
    events: RunEvents | None = None,
    on_progress: ProgressSink | None = None,
    cancel: CancelSignal | None = None,
    logger: logging.Logger | None = None,
) -> ApplyRun:
    """The run ``apply`` would do, not started (``await run.go()``).

    Every step of ``linksync apply`` (``linksync.pipeline.applying``): outputs checked
    before the first request, the run lock, failed rows of the last run first, the
    journal, reports streamed in source order, annotated copies, QR codes. A keyword
    left None leaves the profile's setting (or ``options``) as it is. A saved ``plan``
    runs with its own options: the keywords given may only tighten its limits or
    narrow its mode, and the sources given must be its own, unchanged
    (``linksync.pipeline.saved``; else ``SavedPlanMismatch``, nothing done).

    ``apply`` returns ``Results`` (``exit_code``: what ``linksync apply`` would exit
    with). Raises ``ConfigError`` for a bad output path or option (nothing done),
    ``LockError`` when another run holds the lock, ``FileProblems`` for sources with
    errors that belong to no row, ``UnsafePlanError`` above the safety thresholds
    without ``force=True``, ``StoppedAfterWrites`` for an error after writing."""
    kw = dict(locals())
    settings = settings or resolve()
    if not sources and plan is None:
        raise ConfigError("give sources to plan from, or a saved plan")
    saved = plan if isinstance(plan, Plan) else None
    saved_path = plan if not isinstance(plan, Plan) else None
    if plan is None:
        run_options = options_from(settings, options, **_option_values(kw))
    else:  # a saved plan runs with its own options, checked against these (pipeline.saved)
        run_options = saved.options if saved is not None else options or SyncOptions()
    request = ApplyRequest(
        settings=settings,
        options=run_options,
        sources=tuple(sources),
        saved=saved,
        saved_path=saved_path,
        reading=_reading(kw, settings),
        ai_slug=ai_slug,
        ai_og=ai_og,
        reports=tuple(reports),
        annotate=tuple(annotate),
        qr=qr,
        lock=lock,
        lock_wait=lock_wait,
        journal=journal,
        reads=tuple(reads),
        alerts=_alerts(settings, kw),
        asks=saved_asks(kw, options, sources=bool(sources)),
    )
    return ApplyRun(request, events=events, on_progress=on_progress, cancel=cancel, logger=logger)


def _now(fn: Callable[P, ApplyRun]) -> Callable[P, Results]:
    def run(*args: P.args, **kwargs: P.kwargs) -> Results:
        return run_apply(fn(*args, **kwargs))

    return run


def _in_loop(fn: Callable[P, ApplyRun]) -> Callable[P, Coroutine[Any, Any, Results]]:
    async def run(*args: P.args, **kwargs: P.kwargs) -> Results:
        return await fn(*args, **kwargs).go()

    return run


apply = variant(
    _now(prepare_apply),
    prepare_apply,
    "apply",
    """Plan and apply the sources (or a saved ``plan``: a ``Plan``, or the file
``plan(out=...)`` wrote; rows changed since are refused with STALE_PLAN).""",
)
apply_async = variant(
    _in_loop(prepare_apply),
    prepare_apply,
    "apply_async",
    "``apply`` in the caller's event loop (cancelling the task is a Ctrl-C).",
)
