"""``linksync.plan`` and ``linksync.apply``: the run as one library call.

Both take the sources (file paths, or ``LinkSpec`` objects) and keywords
(``PlanOptions`` / ``ApplyOptions``): a resolved target (``settings``; default: the
environment, ``./linksync.yaml`` or the built-in sandbox), the reading options of the
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
from collections.abc import Iterable, Mapping, Sequence
from os import PathLike
from pathlib import Path
from typing import Any, TypedDict, Unpack

from linksync.collection import fewer_collections
from linksync.config import Settings, resolve
from linksync.errors import ConfigError
from linksync.logs import log_plan_counts, log_row_failed, log_run_end, log_run_start
from linksync.pipeline.applying import ApplyRequest, ApplyRun, PathArg, run_apply
from linksync.pipeline.events import RunEvents
from linksync.pipeline.inputs import Reading, Sources, load_specs, options_from, source_paths
from linksync.pipeline.planning import Planned, make_plan, plan_exit_code
from linksync.pipeline.preflight import clear_leftovers, preflight, run_paths
from linksync.report.plans import plan_rows
from linksync.safe.leftovers import describe_removed
from linksync.safe.outputs import write_text_atomic
from linksync.sync.options import Mode, SyncOptions
from linksync.sync.plan import Plan
from linksync.sync.results import CancelSignal, ProgressSink, Results


class SharedOptions(TypedDict, total=False):
    """How sources are read and synced: keywords of ``plan``, ``apply`` and of the runs
    over several targets (``plan_all``, ``apply_all``), every one optional."""

    sheets: Sequence[str] | None  # --sheet
    mapping: Mapping[str, str] | None  # --map HEADER=FIELD
    encoding: str | None  # --encoding
    date_format: str | None  # --date-format
    timezone: str | None  # --timezone
    empty_values: Iterable[str]  # --empty-value
    workbook_password_file: str | PathLike[str] | None  # --workbook-password-file
    strict: bool | None  # --strict
    fix_invisible: bool  # --fix-invisible
    ai_slug: bool  # --ai-slug
    ai_og: bool  # --ai-og
    logger: logging.Logger  # the run's structured events (default: "linksync")
    # SyncOptions fields, over the profile's (or ``options``'s); None: not given
    mode: Mode | str | None
    default_domain: str | None
    system_domain: str | None
    scope_domains: Sequence[str] | None
    owner_tag: str | None
    allow_replace: bool | None
    allow_takeover: bool | None
    reset_passwords: bool | None
    max_deletes: int | None
    max_change_ratio: float | None
    min_existing: int | None
    force: bool | None
    slugless: str | None  # --slugless stable|random


class RunOptions(SharedOptions, total=False):
    """The keywords ``plan`` and ``apply`` share (every one optional)."""

    settings: Settings  # the target and profile (linksync.config.resolve)
    options: SyncOptions  # instead of the profile's defaults
    events: RunEvents  # what a front end is told; the confirmation


class PlanOptions(RunOptions, total=False):
    """``plan``'s keywords: ``RunOptions``, and where to save the plan."""

    out: PathArg | None  # save the plan as JSON (checked before the first request)
    detailed_exitcode: bool  # exit code 3 when the plan has changes


class ApplyOptions(RunOptions, total=False):
    """``apply``'s keywords: ``RunOptions``, and what the run writes and watches."""

    plan: Plan | PathArg | None  # a saved plan (a Plan, or the file plan(out=...) wrote)
    reports: Sequence[PathArg]  # .csv .xlsx .json .jsonl .md .xml
    annotate: Sequence[PathArg]  # a copy of each spreadsheet source, annotated
    qr: PathArg | None  # a zip of QR codes of the short links
    lock: PathArg | bool | None  # None: the target's own lock; a path; False: none
    lock_wait: float  # seconds to wait for another run's lock
    journal: PathArg | bool | None  # None: .linksync/runs/<run-id>.jsonl; a path; False
    reads: Sequence[PathArg]  # more files the run must never write (uploads)
    on_progress: ProgressSink | None  # told of each row, and the rate limiter's wait
    cancel: CancelSignal | None  # set from any thread: stop sending, keep the reports


_SYNC_FIELDS = frozenset(SyncOptions.__dataclass_fields__)


def _reading(kw: SharedOptions, settings: Settings) -> Reading:
    given = Reading(
        sheets=kw.get("sheets"),
        mapping=kw.get("mapping"),
        encoding=kw.get("encoding"),
        date_format=kw.get("date_format"),
        timezone=kw.get("timezone"),
        empty_values=kw.get("empty_values", ()),
        strict=kw.get("strict"),
        fix_invisible=kw.get("fix_invisible", False),
        workbook_password_file=kw.get("workbook_password_file"),
    )
    return given.over(settings)


def _option_values(kw: SharedOptions) -> dict[str, Any]:
    return {k: v for k, v in kw.items() if k in _SYNC_FIELDS}


def plan(sources: Sources, **kw: Unpack[PlanOptions]) -> Planned:
    """Read, validate, fetch and diff: what ``apply`` would do (nothing is written to
    the workspace). ``out`` saves the plan as JSON (checked before the first request,
    written atomically) for ``apply(plan=...)``; ``detailed_exitcode`` makes
    ``Planned.exit_code`` 3 when the plan has changes."""
    return asyncio.run(plan_async(sources, **kw))


async def plan_async(sources: Sources, **kw: Unpack[PlanOptions]) -> Planned:
    """``plan`` in the caller's event loop."""
    with fewer_collections():
        return await _plan(sources, **kw)


async def _plan(sources: Sources, **kw: Unpack[PlanOptions]) -> Planned:
    settings = kw.get("settings") or resolve()
    events = kw.get("events") or RunEvents()
    log = kw.get("logger") or logging.getLogger("linksync")
    opts = options_from(settings, kw.get("options"), **_option_values(kw))
    out = kw.get("out")
    if out is not None:
        paths = run_paths(settings, journal=False, lock=False, plan_out=out)
        preflight(settings, source_paths(sources), paths)
        removed = clear_leftovers(paths)
        if removed:
            events.warning(describe_removed(removed))
    label = settings.target.label
    shown = [str(s) for s in source_paths(sources)]
    log_run_start(log, target=label, mode=opts.mode.value, dry_run=True, sources=shown)
    started = time.monotonic()
    validation = load_specs(sources, _reading(kw, settings), default_domain=opts.default_domain)
    events.problems(validation.file_problems)
    async with settings.open_client() as client:
        made = await make_plan(
            client,
            validation,
            opts,
            ai_slug=kw.get("ai_slug", False),
            ai_og=kw.get("ai_og", False),
            target=label,
        )
    log_plan_counts(log, made.counts)
    saved_json = None
    if out is not None:
        saved_json = made.to_json()
        write_text_atomic(out, saved_json + "\n")
    detailed = kw.get("detailed_exitcode", False)
    code = plan_exit_code(made, validation.file_problems, detailed=detailed)
    for row in plan_rows(made):
        if row.failed:
            log_row_failed(log, row)
    log_run_end(log, counts=made.counts, duration_s=time.monotonic() - started, exit_code=code)
    saved_to = Path(out) if out is not None else None
    return Planned(made, validation.file_problems, code, saved_to, saved_json)


def apply(sources: Sources = (), **kw: Unpack[ApplyOptions]) -> Results:
    """Plan and apply the sources (or a saved ``plan``: a ``Plan``, or the file
    ``plan(out=...)`` wrote; rows changed since are refused with STALE_PLAN): every
    step of ``linksync apply`` (``linksync.pipeline.applying``): outputs checked before
    the first request, the run lock, failed rows of the last run first, the journal,
    reports streamed in source order, annotated copies, QR codes.

    Returns ``Results`` (``exit_code``: what ``linksync apply`` would exit with).
    Raises ``ConfigError`` for a bad output path or option (nothing done),
    ``LockError`` when another run holds the lock, ``FileProblems`` for sources with
    errors that belong to no row, ``UnsafePlanError`` above the safety thresholds
    without ``force=True``, ``StoppedAfterWrites`` for an error after writing.
    """
    return run_apply(prepare_apply(sources, **kw))


async def apply_async(sources: Sources = (), **kw: Unpack[ApplyOptions]) -> Results:
    """``apply`` in the caller's event loop (cancelling the task is a Ctrl-C)."""
    return await prepare_apply(sources, **kw).go()


def prepare_apply(sources: Sources = (), **kw: Unpack[ApplyOptions]) -> ApplyRun:
    """The run ``apply`` would do, not started (``await run.go()``)."""
    settings = kw.get("settings") or resolve()
    given = kw.get("plan")
    if not sources and given is None:
        raise ConfigError("give sources to plan from, or a saved plan")
    saved = given if isinstance(given, Plan) else None
    saved_path = given if not isinstance(given, Plan) else None
    options = kw.get("options")
    base = options if options is not None or saved is None else saved.options
    request = ApplyRequest(
        settings=settings,
        options=options_from(settings, base, **_option_values(kw)),
        sources=tuple(sources),
        saved=saved,
        saved_path=saved_path,
        reading=_reading(kw, settings),
        ai_slug=kw.get("ai_slug", False),
        ai_og=kw.get("ai_og", False),
        reports=tuple(kw.get("reports", ())),
        annotate=tuple(kw.get("annotate", ())),
        qr=kw.get("qr"),
        lock=kw.get("lock"),
        lock_wait=kw.get("lock_wait", 0.0),
        journal=kw.get("journal"),
        reads=tuple(kw.get("reads", ())),
    )
    return ApplyRun(
        request,
        events=kw.get("events"),
        on_progress=kw.get("on_progress"),
        cancel=kw.get("cancel"),
        logger=kw.get("logger"),
    )
