"""``linksync plan``, and what plan and apply share: their options (``sync_options``)
and what they ask of a run (``cli.common.asked``: the request values of the flags
given, each flag found by the field that names it), how a command starts (``start``: logging, the
target); what the command line shows while a run goes is ``cli.events.CliEvents``.
``linksync apply`` is in ``cli.apply``; both call ``linksync.plan`` / ``linksync.apply``
(``linksync.pipeline``) and render the result."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import click

from linksync.cli.common import F, asked, echo, err, given_flags, handle_errors, with_options
from linksync.cli.events import CliEvents
from linksync.cli.options import (
    SLUGLESS_OPTION,
    TargetOptions,
    refuse,
    selected,
    target_options,
    target_selection,
)
from linksync.cli.source_flags import source_flags
from linksync.errors import ConfigError
from linksync.logs import setup_logging
from linksync.safe.secrets import Secrets
from linksync.sync.options import MODES

if TYPE_CHECKING:
    from linksync.config import Settings

_SYNC_OPTIONS: tuple[Callable[[F], F], ...] = (
    click.option("--mode", type=click.Choice(MODES), help="What the sync may do (upsert)."),
    click.option(
        "--domain",
        "domains",
        multiple=True,
        help="Mirror scope: the only domain(s) where links may be deleted (repeatable).",
    ),
    click.option("--owner-tag", help="Only links with this tag may be deleted; added to creates."),
    click.option(
        "--retire-to",
        metavar="URL",
        help="Mirror mode: retire instead of delete: a link no source declares is pointed at "
        "URL and tagged 'retired' (printed codes keep working); counted as a delete by the "
        "safety limits [profile: retire_to].",
    ),
    click.option(
        "--sheet",
        "sheets",
        multiple=True,
        help="Only these workbook sheets. A name with control or direction characters "
        "may be typed as linksync prints it (Links\\u202e\\u0007).",
    ),
    click.option("--fix-invisible", is_flag=True, help="Strip invisible characters (warned)."),
    click.option(
        "--fix-utm-case",
        is_flag=True,
        help="Lower the case and replace spaces in UTM values the utm_rules refuse "
        "(each fix warned on its row).",
    ),
    click.option("--ai-slug", is_flag=True, help="Fill empty slugs from the AI tool."),
    SLUGLESS_OPTION,
    click.option("--ai-og", is_flag=True, help="Fill empty descriptions from the AI tool."),
    click.option("--allow-replace", is_flag=True, help="Delete+create links whose expiry differs."),
    click.option(
        "--allow-takeover",
        is_flag=True,
        help="Update/delete links another owner tag marks (same prefix as --owner-tag).",
    ),
    click.option("--reset-passwords", is_flag=True, help="Send passwords even when set already."),
    click.option(
        "--ignore-changes",
        multiple=True,
        metavar="FIELD",
        help="Leave this field to people (url, description, tags, apple, google, password): "
        "sent on create, never updated nor drift (repeatable; over the profile's).",
    ),
    click.option(
        "--ignore",
        multiple=True,
        metavar="PATTERN",
        help="Leave alone the links whose slug matches PATTERN (promo-*) or that carry a tag "
        "(tag:NAME): never created, updated nor deleted (repeatable; over the profile's).",
    ),
    click.option("--max-deletes", type=click.IntRange(0), help="Refuse more deletes than this."),
    click.option("--force", is_flag=True, help="Apply even above the safety thresholds."),
    # alerts (linksync.pipeline.notify)
    click.option(
        "--notify",
        multiple=True,
        metavar="URL",
        envvar="LINKSYNC_NOTIFY",
        help="At the run's end, alert this apprise URL (slack://, workflows:// for Teams, "
        "discord://, mailtos://, json://...; repeatable; over the profile's notify). A "
        "secret: never printed. Not delivered: a warning, the exit code unchanged. Or "
        "LINKSYNC_NOTIFY: URLs separated by spaces or new lines (kept off the command line).",
    ),
    click.option(
        "--notify-on",
        metavar="WHEN",
        help="When to alert: failed, drift, stopped, always, comma-separated "
        "(default: failed,stopped).",
    ),
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
    return with_options(fn, (source_flags, *_SYNC_OPTIONS))


def start(
    target: TargetOptions, log_format: str, notify: Sequence[str] | None = None
) -> tuple[Settings, logging.Logger]:
    """Logging first (so even a bad target is reported as JSON with --log-format json),
    then the target, announced on stderr once its key (and the notify URLs) are
    secrets of the log."""
    secrets = Secrets(notify or ())
    logger = setup_logging(log_format, secrets=secrets)  # type: ignore[arg-type]
    settings = target.resolve(announce=False)
    for secret in (*settings.target.secrets(), *settings.profile.notify):
        secrets.add(secret)
    err(settings.target.describe())
    return settings, logger


@click.command("plan")
@click.argument("sources", nargs=-1)
@click.option(
    "--out",
    type=click.Path(),
    help="Save the plan as JSON (.json); with several targets one file each (plans/{target}.json).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "markdown"]),
    default="table",
    show_default=True,
)
@click.option("--detailed-exitcode", is_flag=True, help="Exit 3 when there are changes.")
@target_selection
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
    """Show what apply would do to make the workspace match SOURCE... (no writes).

    With --all (or --target NAME) it plans the targets of the config file instead,
    at once, and ends with one summary row per target; the exit code is the worst
    of theirs (see apply --help).
    """
    from linksync.pipeline import Hooks, PlanOutputs, plan
    from linksync.pipeline.fields import from_flags
    from linksync.report import render_plan_markdown, render_plan_text

    names = selected(kw)
    flags = given_flags()
    outputs = from_flags(PlanOutputs, flags)
    if names is not None:
        from linksync.cli.all_targets import plan_targets

        refuse(target, sources)
        plan_targets(target, names, fmt=fmt, log_format=kw["log_format"], flags=flags)
    if not sources:
        raise ConfigError("give SOURCE files, or --all / --target NAME for the config's targets")
    reading, policy, notify = asked(flags)
    settings, logger = start(target, kw["log_format"], notify.urls)
    planned = plan(
        list(sources), settings, reading=reading, sync=policy, notify=notify, outputs=outputs,
        hooks=Hooks(events=CliEvents(), logger=logger),
    )  # fmt: skip
    if planned.saved_to is not None:
        err(f"plan saved to {planned.saved_to}")
    if fmt == "json":
        echo(planned.to_json())
    elif fmt == "markdown":
        echo(render_plan_markdown(planned.plan, file_problems=planned.file_problems), nl=False)
    else:
        echo(render_plan_text(planned.plan))
    sys.exit(planned.exit_code)
