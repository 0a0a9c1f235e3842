"""``linksync plan`` and ``linksync apply``: parse flags, call the sync engine, render."""

from __future__ import annotations

import logging
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from linksync.cli.common import (
    EXIT_CHANGES_PENDING,
    EXIT_INTERRUPTED,
    EXIT_MEANINGS,
    EXIT_OK,
    EXIT_ROWS_FAILED,
    EXIT_USAGE,
    err,
    fail,
    handle_errors,
)
from linksync.cli.options import TargetOptions, run_async, target_options
from linksync.config import Settings
from linksync.errors import ConfigError, UnsafePlanError
from linksync.lock import acquire_lock
from linksync.logs import (
    log_plan_counts,
    log_row_failed,
    log_run_end,
    log_run_start,
    register_secret,
    setup_logging,
)
from linksync.model import RowResult, RunInfo, Severity
from linksync.report import ReportOptions, ReportSet, count_results, open_writer, render_summary
from linksync.report.annotate import write_annotated
from linksync.report.base import Closing
from linksync.sync.execute import Results
from linksync.sync.history import LastRun, last_run, repeats
from linksync.sync.journal import DEFAULT_RUNS_DIR
from linksync.sync.options import MODES, SyncOptions
from linksync.sync.plan import Plan
from linksync.sync.progress import progress_for
from linksync.sync.render import plan_rows, render_plan_text
from linksync.sync.run import (
    Planned,
    apply_plan,
    column_mapping,
    load_specs,
    make_plan,
    options_from,
    plan_to_apply,
)

if TYPE_CHECKING:
    from linksync.validate import Validation

F = TypeVar("F", bound=Callable[..., Any])

_SYNC_OPTIONS: tuple[Callable[[F], F], ...] = (
    click.option("--mode", type=click.Choice(MODES), help="What the sync may do (upsert)."),
    click.option(
        "--domain",
        "domains",
        multiple=True,
        help="Mirror scope: the only domain(s) where links may be deleted (repeatable).",
    ),
    click.option("--owner-tag", help="Only links with this tag may be deleted; added to creates."),
    click.option("--sheet", "sheets", multiple=True, help="Only these workbook sheets."),
    click.option("--fix-invisible", is_flag=True, help="Strip invisible characters (warned)."),
    click.option("--ai-slug", is_flag=True, help="Fill empty slugs from the AI tool."),
    click.option("--ai-og", is_flag=True, help="Fill empty descriptions from the AI tool."),
    click.option("--allow-replace", is_flag=True, help="Delete+create links whose expiry differs."),
    click.option("--reset-passwords", is_flag=True, help="Send passwords even when set already."),
    click.option("--max-deletes", type=click.IntRange(0), help="Refuse more deletes than this."),
    click.option("--force", is_flag=True, help="Apply even above the safety thresholds."),
    click.option(
        "--log-format",
        type=click.Choice(["off", "text", "json"]),
        default="off",
        show_default=True,
        help="Structured log on stderr: run start, plan counts, each failure, run end.",
    ),
)


def sync_options(fn: F) -> F:
    decorated: Any = fn
    for option in reversed(_SYNC_OPTIONS):
        decorated = option(decorated)
    return decorated  # type: ignore[no-any-return]


def _options(settings: Settings, kw: dict[str, Any]) -> SyncOptions:
    return options_from(
        settings,
        None,
        mode=kw["mode"],
        scope_domains=tuple(kw["domains"]) or None,
        owner_tag=kw["owner_tag"],
        allow_replace=kw["allow_replace"] or None,
        reset_passwords=kw["reset_passwords"] or None,
        max_deletes=kw["max_deletes"],
        force=kw["force"] or None,
    )


def _validation(sources: tuple[str, ...], settings: Settings, opts: SyncOptions, kw: Any) -> Any:
    validation = load_specs(
        list(sources),
        sheets=list(kw["sheets"]) or None,
        mapping=column_mapping(settings),
        fix_invisible=kw["fix_invisible"],
        default_domain=opts.default_domain,
    )
    for p in validation.problems:
        if p.provenance is None or p.provenance.row is None:
            err(f"{p.severity.value}: {p.where()}: {p.constant}: {p.message}")
    return validation


def _planned(settings: Settings, validation: Validation, opts: SyncOptions, kw: Any) -> Planned:
    async def go() -> Planned:
        async with settings.open_client() as client:
            return await make_plan(
                client, validation, opts, ai_slug=kw["ai_slug"], ai_og=kw["ai_og"],
                target=settings.target.label,
            )  # fmt: skip

    return run_async(go())


def _markdown(plan: Plan) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "plan.md"
        writer = open_writer(path)
        for row in plan_rows(plan):
            writer.write(row)
        info = RunInfo(target=plan.target or "", mode=plan.options.mode.value, dry_run=True)
        reason = plan.safety.reason if plan.refused else None
        notes = (plan.quota.describe(),) if plan.quota is not None and plan.quota.excess else ()
        writer.close(info, Closing(notes, reason))
        return path.read_text(encoding="utf-8")


def _has_file_errors(validation: Validation) -> bool:
    return any(
        p.severity is Severity.ERROR and (p.provenance is None or p.provenance.row is None)
        for p in validation.problems
    )


@click.command("plan")
@click.argument("sources", nargs=-1, required=True)
@click.option("--out", type=click.Path(dir_okay=False), help="Save the plan as JSON.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "markdown"]),
    default="table",
    show_default=True,
)
@click.option("--detailed-exitcode", is_flag=True, help="Exit 3 when there are changes.")
@sync_options
@target_options
@handle_errors
def plan_command(
    target: TargetOptions,
    sources: tuple[str, ...],
    out: str | None,
    fmt: str,
    detailed_exitcode: bool,
    **kw: Any,
) -> None:
    """Show what apply would do to make the workspace match SOURCE... (no writes)."""
    settings = target.resolve()
    logger = _logger(settings, kw)
    opts = _options(settings, kw)
    log_run_start(
        logger, target=settings.target.label, mode=opts.mode.value, dry_run=True, sources=sources
    )
    started = time.monotonic()
    validation = _validation(sources, settings, opts, kw)
    plan = _planned(settings, validation, opts, kw).plan
    log_plan_counts(logger, plan.counts)
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(plan.to_json() + "\n", encoding="utf-8")
        err(f"plan saved to {out}")
    if fmt == "json":
        click.echo(plan.to_json())
    elif fmt == "markdown":
        click.echo(_markdown(plan), nl=False)
    else:
        click.echo(render_plan_text(plan))
    code = EXIT_OK
    if plan.invalid or _has_file_errors(validation):
        code = EXIT_ROWS_FAILED
    elif detailed_exitcode and plan.has_changes:
        code = EXIT_CHANGES_PENDING
    for row in plan_rows(plan):
        if row.failed:
            log_row_failed(logger, row)
    log_run_end(logger, counts=plan.counts, duration_s=time.monotonic() - started, exit_code=code)
    sys.exit(code)


def _logger(settings: Settings, kw: dict[str, Any]) -> logging.Logger:
    register_secret(settings.target.api_key)
    return setup_logging(kw.pop("log_format"))


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
    if results.interrupted:
        return EXIT_INTERRUPTED
    if results.stopped_by in ("UNAUTHORIZED", "FORBIDDEN"):
        return EXIT_USAGE
    return EXIT_ROWS_FAILED if results.failed else EXIT_OK


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
    type=click.Path(dir_okay=False),
    help="Write a report (.csv .xlsx .json .jsonl .md .xml); repeatable.",
)
@click.option(
    "--annotate",
    "annotate",
    multiple=True,
    type=click.Path(dir_okay=False),
    help="Write an annotated copy of the (first) spreadsheet source here.",
)
@click.option(
    "--journal",
    type=click.Path(dir_okay=False),
    help="Journal file (default .linksync/runs/<run-id>.jsonl).",
)
@click.option(
    "--lock",
    "lock_path",
    type=click.Path(dir_okay=False),
    help="Lock file against overlapping runs (default .linksync/lock).",
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
    journal: str | None,
    lock_path: str | None,
    no_progress: bool,
    **kw: Any,
) -> None:  # fmt: skip
    """Make the workspace match SOURCE... (or a saved --plan), within the rate limit."""
    if not sources and not plan_file:
        raise ConfigError("give SOURCE files, or --plan plan.json")
    settings = target.resolve()
    logger = _logger(settings, kw)
    opts = _options(settings, kw)
    log_run_start(
        logger,
        target=settings.target.label,
        mode=opts.mode.value,
        dry_run=False,
        sources=sources or (plan_file or "",),
    )
    validation = _validation(sources, settings, opts, kw) if sources else None
    if validation is not None and _has_file_errors(validation) and not plan_file:
        fail("the sources have file-level errors (see above); nothing applied", EXIT_ROWS_FAILED)
    report_set = ReportSet(reports, ReportOptions(secrets=(settings.target.api_key,)))
    runs_dir = Path(journal).parent if journal else DEFAULT_RUNS_DIR
    last = last_run(settings.target.label, runs_dir)

    def on_result(row: RowResult) -> None:
        # Reports stream as rows complete, so a killed run still leaves what it did.
        report_set.write(row)
        if row.failed:
            log_row_failed(logger, row, repeat=last is not None and last.is_repeat(row))

    with acquire_lock(lock_path, target=settings.target.label), report_set:
        results = run_async(_apply(settings, opts, validation, plan_file, yes, journal,
                                   not no_progress, on_result, logger, last,
                                   ai_slug=kw["ai_slug"], ai_og=kw["ai_og"]))  # fmt: skip
        stats = results.stats
        info = RunInfo(
            target=settings.target.label,
            mode=results.plan.options.mode.value,
            started_at=results.started_at,
            duration_s=results.duration_s,
            requests=int(stats.get("requests", 0)),
            requests_by_kind=dict(stats.get("requests_by_kind", {})),
            rate_limit_waits=int(stats.get("rate_limited", 0)),
            run_id=results.run_id,
        )
        written = report_set.close(info)
    if annotate and sources:
        written.append(write_annotated(sources[0], results.rows, annotate[0]))
    code = _exit_code(results)
    counts = count_results(results.rows)
    log_run_end(
        logger,
        counts=results.counts,
        duration_s=results.duration_s,
        exit_code=code,
        requests=info.requests,
        run_id=results.run_id,
    )
    click.echo(render_summary(counts, info, written, code, EXIT_MEANINGS.get(code)))
    again = repeats(results.rows, last)
    if last is not None and again:
        click.echo(
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
    plan_file: str | None,
    yes: bool,
    journal: str | None,
    progress: bool,
    on_result: Callable[[RowResult], None],
    logger: logging.Logger,
    last: LastRun | None,
    *,
    ai_slug: bool = False,
    ai_og: bool = False,
) -> Results:
    saved = Plan.from_json(Path(plan_file).read_text(encoding="utf-8")) if plan_file else None
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
        click.echo(render_plan_text(plan), err=True)
        if plan.refused:
            raise UnsafePlanError(f"plan refused: {plan.safety.reason}; pass --force to apply")
        _confirm(plan, yes)
        sink = progress_for(client, enabled=progress and plan.has_changes)
        return await apply_plan(
            client, plan, journal=journal, progress=sink, on_result=on_result, last=last
        )
