"""``linksync apply``: check every output, take the run lock, plan, apply within the rate
limit, stream the reports, and exit with a code that says what happened (see
``linksync.outcome``). Options shared with ``plan`` live in ``cli.sync``."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from linksync.cli.common import (
    EXIT_INTERRUPTED,
    EXIT_MEANINGS,
    EXIT_OK,
    EXIT_ROWS_FAILED,
    EXIT_USAGE,
    describe,
    echo,
    err,
    fail,
    handle_errors,
)
from linksync.cli.options import TargetOptions, run_async, target_options
from linksync.cli.sync import _has_file_errors, _options, _start, _validation, sync_options
from linksync.config import Settings
from linksync.errors import ConfigError, LinksyncError, UnsafePlanError
from linksync.lock import LockHolder, acquire_lock
from linksync.logs import json_active, log_plan_counts, log_row_failed, log_run_end, log_run_start
from linksync.model import RowResult, RunInfo
from linksync.outcome import RemoteWrites, exit_code_after_error, run_exit_code, stop_sentence
from linksync.report import ReportOptions, ReportSet, count_results, render_summary
from linksync.report.annotate import annotation_pairs, write_annotated
from linksync.report.qr import QrCodes, write_results_qr
from linksync.sync.execute import Results
from linksync.sync.history import LastRun, last_run, repeats
from linksync.sync.journal import new_run_id
from linksync.sync.options import SyncOptions
from linksync.sync.plan import Plan
from linksync.sync.preflight import preflight, run_paths
from linksync.sync.progress import progress_for
from linksync.sync.render import render_plan_text
from linksync.sync.run import apply_plan, plan_to_apply
from linksync.sync.stale import read_saved_plan

if TYPE_CHECKING:
    from linksync.validate import Validation


def _confirm(plan: Plan, yes: bool) -> None:
    if yes or not plan.has_changes:
        return
    if not sys.stdin.isatty():
        fail("no terminal to confirm on: pass --yes to apply without asking", EXIT_USAGE)
    if not click.confirm(f"Apply {len(plan.writes)} changes?", default=False, err=True):
        err("Nothing applied.")
        sys.exit(EXIT_OK)


def _where(row: RowResult) -> str:
    if row.slug:
        return f"{row.domain}/{row.slug}"
    return f"{row.source}, row {row.row}"


def _exit_code(results: Results) -> int:
    return run_exit_code(
        results.writes,
        failed=bool(results.failed),
        interrupted=results.interrupted,
        stopped_by=results.stopped_by,
    )


def _waiting(seconds: float) -> Callable[[LockHolder | None], None]:
    def say(holder: LockHolder | None) -> None:
        who = holder.describe() if holder else "another run"
        err(f"waiting up to {seconds:g} s for the lock held by {who}")

    return say


@click.command("apply")
@click.argument("sources", nargs=-1)
@click.option(
    "--plan",
    "plan_file",
    type=click.Path(dir_okay=False, exists=True),
    help="Apply this saved plan exactly (rows changed since are refused).",
)
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@click.option(
    "--report",
    "reports",
    multiple=True,
    type=click.Path(),
    help="Write a report (.csv .xlsx .json .jsonl .md .xml); repeatable.",
)
@click.option(
    "--annotate",
    "annotate",
    multiple=True,
    type=click.Path(),
    help="Write an annotated copy of the spreadsheet source here (same extension); "
    "repeat for the 2nd, 3rd... spreadsheet source.",
)
@click.option(
    "--qr",
    type=click.Path(dir_okay=False),
    help="Write a QR code (SVG and PNG) of each short link to this .zip, and add a QR "
    "code column to --annotate workbooks.",
)
@click.option(
    "--journal",
    type=click.Path(),
    help="Journal file, .jsonl (default .linksync/runs/<run-id>.jsonl).",
)
@click.option(
    "--lock",
    "lock_path",
    type=click.Path(),
    help="Lock file against overlapping runs (default: one per target, in the user's "
    "state folder; LINKSYNC_STATE_DIR moves it).",
)
@click.option(
    "--lock-wait",
    type=click.FloatRange(0),
    default=0,
    show_default=True,
    metavar="SECONDS",
    help="Wait this long for another run's lock instead of exiting 2 at once.",
)
@click.option("--no-progress", is_flag=True, help="No progress bar or lines.")
@sync_options
@target_options
@handle_errors
def apply_command(
    target: TargetOptions,
    sources: tuple[str, ...],
    plan_file: str | None,
    yes: bool,
    reports: tuple[str, ...],
    annotate: tuple[str, ...],
    qr: str | None,
    journal: str | None,
    lock_path: str | None,
    lock_wait: float,
    no_progress: bool,
    **kw: Any,
) -> None:  # fmt: skip
    """Make the workspace match SOURCE... (or a saved --plan), within the rate limit.

    Every output path is checked before the first request; exit 2 means nothing was
    written to the workspace.
    """
    if not sources and not plan_file:
        raise ConfigError("give SOURCE files, or --plan plan.json")
    settings, logger = _start(target, kw)
    opts = _options(settings, kw)
    run_id = new_run_id()
    pairs = annotation_pairs(sources, annotate)
    paths = run_paths(
        settings,
        reports=reports,
        annotate=pairs,
        journal=journal,
        lock=lock_path,
        run_id=run_id,
        qr=qr,
    )
    preflight(settings, sources, paths, saved_plan=plan_file)
    saved = read_saved_plan(plan_file) if plan_file else None
    log_run_start(
        logger,
        target=settings.target.label,
        mode=opts.mode.value,
        dry_run=False,
        sources=sources or (plan_file or "",),
        run_id=run_id,
    )
    validation = _validation(sources, settings, opts, kw) if sources else None
    if validation is not None and _has_file_errors(validation) and not plan_file:
        fail("the sources have file-level errors (see above); nothing applied", EXIT_ROWS_FAILED)
    assert paths.journal is not None and paths.lock is not None
    writes = RemoteWrites()
    options = ReportOptions(secrets=(settings.target.api_key,))
    lock = acquire_lock(
        paths.lock, target=settings.target.label, wait=lock_wait, on_wait=_waiting(lock_wait)
    )
    try:
        # The reports are opened once the lock is held (nothing is left behind when
        # another run holds it), and the last run is read then (it may have just ended).
        with lock, ReportSet(reports, options) as report_set:
            last = last_run(settings.target.label, paths.journal.parent)
            results = run_async(_apply(settings, opts, validation, saved, yes, paths.journal,
                                       not no_progress, _reporter(report_set, logger, last),
                                       logger, last, writes,
                                       recheck=saved is not None or not paths.lock_is_default,
                                       run_id=run_id, ai_slug=kw["ai_slug"],
                                       ai_og=kw["ai_og"]))  # fmt: skip
            info = results.run_info(settings.target.label)
            written = report_set.close(info)
        codes = QrCodes() if qr else None
        for source, copy in pairs:
            written.append(write_annotated(source, results.rows, copy, qr=codes))
        if qr:
            drawn = write_results_qr(results.rows, qr, codes=codes)
            written.append(drawn.path)
            for why in drawn.left_out:
                err(f"Warning: no QR code for {why}")
    except KeyboardInterrupt:
        if writes.any:
            err(f"Interrupted after writing to the workspace: {writes.describe()}; "
                f"the journal {paths.journal} holds every result")  # fmt: skip
            sys.exit(EXIT_INTERRUPTED)
        raise
    except (LinksyncError, OSError) as exc:
        if not writes.any:
            raise
        why = describe(exc) if isinstance(exc, LinksyncError) else f"{exc.strerror or exc}"
        fail(
            f"{why}. Before this error the run wrote to the workspace: {writes.describe()}; "
            f"the journal {paths.journal} holds every result",
            exit_code_after_error(EXIT_USAGE, writes),
        )
    _finish(results, info, written, logger, last)


def _reporter(
    report_set: ReportSet, logger: logging.Logger, last: LastRun | None
) -> Callable[[RowResult], None]:
    """What each row's result goes to: the reports, and the log when it failed."""

    def on_result(row: RowResult) -> None:
        report_set.write(row)
        if row.failed:
            log_row_failed(logger, row, repeat=last is not None and last.is_repeat(row))

    return on_result


def _finish(
    results: Results,
    info: RunInfo,
    written: list[Any],
    logger: logging.Logger,
    last: LastRun | None,
) -> None:
    code = _exit_code(results)
    log_run_end(
        logger,
        counts=results.counts,
        duration_s=results.duration_s,
        exit_code=code,
        requests=info.requests,
        run_id=results.run_id,
    )
    echo(render_summary(count_results(results.rows), info, written, code, EXIT_MEANINGS.get(code)))
    stopped = stop_sentence(
        results.writes, stopped_by=results.stopped_by, not_attempted=results.not_attempted
    )
    if stopped:
        echo(stopped)
    again = repeats(results.rows, last)
    if last is not None and again:
        echo(
            f"Repeats: {len(again)} of {len(results.failed)} failed rows also failed in the "
            f"last run ({last.run_id}), e.g. {_where(again[0])}: {again[0].error_constant}"
        )
    if results.journal:
        err(f"journal: {results.journal}")
    sys.exit(code)


async def _apply(
    settings: Settings,
    opts: SyncOptions,
    validation: Validation | None,
    saved: Plan | None,
    yes: bool,
    journal: Path,
    progress: bool,
    on_result: Callable[[RowResult], None],
    logger: logging.Logger,
    last: LastRun | None,
    writes: RemoteWrites,
    *,
    recheck: bool,
    run_id: str,
    ai_slug: bool = False,
    ai_og: bool = False,
) -> Results:
    async with settings.open_client() as client:
        plan = await plan_to_apply(
            client,
            settings,
            opts,
            validation=validation,
            saved=saved,
            ai_slug=ai_slug,
            ai_og=ai_og,
            force=opts.force,
        )
        log_plan_counts(logger, plan.counts)
        err(render_plan_text(plan))
        if plan.refused:
            raise UnsafePlanError(f"plan refused: {plan.safety.reason}; pass --force to apply")
        _confirm(plan, yes)
        sink = progress_for(client, enabled=progress and plan.has_changes, json_log=json_active())
        return await apply_plan(
            client, plan, journal=journal, progress=sink, on_result=on_result, last=last,
            run_id=run_id, writes=writes, recheck_urls=recheck,
        )  # fmt: skip
