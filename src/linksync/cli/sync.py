"""``linksync plan``, and the options plan and apply share (``sync_options``): parse
flags, call the sync engine, render. ``linksync apply`` is in ``cli.apply``."""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from linksync.cli.common import (
    EXIT_CHANGES_PENDING,
    EXIT_OK,
    EXIT_ROWS_FAILED,
    echo,
    err,
    handle_errors,
)
from linksync.cli.options import TargetOptions, run_async, target_options
from linksync.cli.source_flags import pop_source_flags, source_flags
from linksync.config import Settings
from linksync.logs import (
    log_plan_counts,
    log_row_failed,
    log_run_end,
    log_run_start,
    register_secret,
    setup_logging,
)
from linksync.outputs import write_text_atomic
from linksync.sync.options import MODES, SyncOptions
from linksync.sync.preflight import preflight, run_paths
from linksync.sync.render import plan_rows, render_plan_markdown, render_plan_text
from linksync.sync.run import (
    Planned,
    load_specs,
    make_plan,
    options_from,
    source_options,
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
    click.option(
        "--allow-takeover",
        is_flag=True,
        help="Update/delete links another owner tag marks (same prefix as --owner-tag).",
    ),
    click.option("--reset-passwords", is_flag=True, help="Send passwords even when set already."),
    click.option("--max-deletes", type=click.IntRange(0), help="Refuse more deletes than this."),
    click.option("--force", is_flag=True, help="Apply even above the safety thresholds."),
    click.option(
        "--log-format",
        type=click.Choice(["off", "text", "json"]),
        default="off",
        show_default=True,
        help="Structured log on stderr: run start, plan counts, each failure, run end "
        "(json: stderr holds JSON lines only).",
    ),
)


def sync_options(fn: F) -> F:
    decorated: Any = fn
    for option in reversed(_SYNC_OPTIONS):
        decorated = option(decorated)
    decorated = source_flags(decorated)
    return decorated  # type: ignore[no-any-return]


def _options(settings: Settings, kw: dict[str, Any]) -> SyncOptions:
    return options_from(
        settings,
        None,
        mode=kw["mode"],
        scope_domains=tuple(kw["domains"]) or None,
        owner_tag=kw["owner_tag"],
        allow_replace=kw["allow_replace"] or None,
        allow_takeover=kw["allow_takeover"] or None,
        reset_passwords=kw["reset_passwords"] or None,
        max_deletes=kw["max_deletes"],
        force=kw["force"] or None,
    )


def _validation(sources: tuple[str, ...], settings: Settings, opts: SyncOptions, kw: Any) -> Any:
    validation = load_specs(
        list(sources),
        sheets=list(kw["sheets"]) or None,
        fix_invisible=kw["fix_invisible"],
        default_domain=opts.default_domain,
        **source_options(settings, **pop_source_flags(kw)),
    )
    for p in validation.file_problems:
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


def _has_file_errors(validation: Validation) -> bool:
    return validation.has_file_errors


@click.command("plan")
@click.argument("sources", nargs=-1, required=True)
@click.option("--out", type=click.Path(), help="Save the plan as JSON (.json).")
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
    settings, logger = _start(target, kw)
    opts = _options(settings, kw)
    if out:
        paths = run_paths(settings, journal=False, lock=False, plan_out=out)
        preflight(settings, sources, paths)
    log_run_start(
        logger, target=settings.target.label, mode=opts.mode.value, dry_run=True, sources=sources
    )
    started = time.monotonic()
    validation = _validation(sources, settings, opts, kw)
    plan = _planned(settings, validation, opts, kw).plan
    log_plan_counts(logger, plan.counts)
    if out:
        write_text_atomic(out, plan.to_json() + "\n")
        err(f"plan saved to {out}")
    if fmt == "json":
        echo(plan.to_json())
    elif fmt == "markdown":
        echo(render_plan_markdown(plan), nl=False)
    else:
        echo(render_plan_text(plan))
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


def _start(target: TargetOptions, kw: dict[str, Any]) -> tuple[Settings, logging.Logger]:
    """Logging first (so even a bad target is reported as JSON with --log-format json),
    then the target, announced on stderr once its key is registered as a secret."""
    logger = setup_logging(kw.pop("log_format"))
    settings = target.resolve(announce=False)
    register_secret(settings.target.api_key)
    err(settings.target.describe())
    return settings, logger
