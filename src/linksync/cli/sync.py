"""``linksync plan``, and what plan and apply share: their options (``sync_options``)
and what they ask of a run (``cli.common.asked``: the request values of the flags
given, each flag found by the field that names it), how a command starts (``start``: logging, the
target); what the command line shows while a run goes is ``cli.events.CliEvents``.
``linksync apply`` is in ``cli.apply``; both call ``linksync.plan`` / ``linksync.apply``
(``linksync.pipeline``) and render the result."""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

from linksync.cli.common import F, asked, echo, err, given_flags, handle_errors, with_options
from linksync.cli.events import CliEvents
from linksync.cli.flags import request_flags
from linksync.cli.heap import kept, loaded
from linksync.cli.options import TargetOptions, refuse, selected, target_options, target_selection
from linksync.errors import ConfigError
from linksync.logs import setup_logging
from linksync.pipeline.request import Notify, PlanOutputs, Reading, SyncPolicy
from linksync.safe.secrets import Secrets

if TYPE_CHECKING:
    from linksync.config import Settings

#: ``--log-format``: the command line's structured log (``linksync.logs``).
LOG_FORMAT = click.option(
    "--log-format",
    type=click.Choice(["off", "text", "json"]),
    default="off",
    show_default=True,
    help="Structured log on stderr: run start, plan counts, each failure, run end "
    "(json: stderr holds JSON lines only).",
)


def sync_options(fn: F) -> F:
    """The flags of what plan and apply ask of a run (``Reading``, ``SyncPolicy``,
    ``Notify``; ``asked`` makes them into those values) and ``--log-format``."""
    return with_options(fn, (request_flags(Reading, SyncPolicy, Notify), LOG_FORMAT))


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
@request_flags(PlanOutputs)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "markdown"]),
    default="table",
    show_default=True,
)
@target_selection
@sync_options
@target_options
@handle_errors
def plan_command(
    target: TargetOptions,
    sources: tuple[str, ...],
    fmt: str,
    **kw: Any,
) -> None:
    """Show what apply would do to make the workspace match SOURCE... (no writes).

    With --all (or --target NAME) it plans the targets of the config file instead,
    at once, and ends with one summary row per target; the exit code is the worst
    of theirs (see apply --help).
    """
    from linksync.pipeline import Hooks, plan
    from linksync.pipeline.fields import from_flags
    from linksync.report import render_plan_markdown, render_plan_text

    names = selected(kw)
    flags = given_flags()
    outputs = from_flags(PlanOutputs, flags)
    if names is not None:
        from linksync.cli.all_targets import plan_targets

        refuse(sources, flags)
        plan_targets(target, names, fmt=fmt, log_format=kw["log_format"], flags=flags)
    if not sources:
        raise ConfigError("give SOURCE files, or --all / --target NAME for the config's targets")
    reading, policy, notify = asked(flags)
    settings, logger = start(target, kw["log_format"], notify.urls)
    loaded()
    planned = plan(
        list(sources), settings, reading=reading, sync=policy, notify=notify, outputs=outputs,
        hooks=Hooks(events=CliEvents(), logger=logger),
    )  # fmt: skip
    kept(planned)  # not freed link by link as the command ends
    if planned.saved_to is not None:
        err(f"plan saved to {planned.saved_to}")
    if fmt == "json":
        echo(planned.to_json())
    elif fmt == "markdown":
        echo(render_plan_markdown(planned.plan, file_problems=planned.file_problems), nl=False)
    else:
        echo(render_plan_text(planned.plan))
    sys.exit(planned.exit_code)
