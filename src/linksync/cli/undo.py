"""``linksync undo``: parse the flags, call ``linksync.undo`` (the reverse plan of a
run, shown and confirmed, then applied as ``linksync apply`` applies: see
``linksync.pipeline.undoing``), render the summary as apply does, exit with the code that
says what happened."""

from __future__ import annotations

import sys
from typing import Any

import click

from linksync.cli.apply import render
from linksync.cli.common import err, given_flags, handle_errors
from linksync.cli.events import CliEvents
from linksync.cli.flags import request_flags
from linksync.cli.options import TargetOptions, target_options
from linksync.cli.sync import LOG_FORMAT, start
from linksync.errors import ConfigError
from linksync.logs import json_active
from linksync.model.outcome import EXIT_OK
from linksync.pipeline import Hooks, Outputs, undo


class UndoEvents(CliEvents):
    """What an undo shows on stderr; its question names the undo."""

    question = "Undo: send {} changes?"


@click.command("undo")
@click.argument("run", required=False)
@click.option("--last", is_flag=True, help="Undo the latest run against this target.")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@request_flags(Outputs, only=("reports", "journal", "lock", "lock_wait"))
@click.option(
    "--runs-dir",
    type=click.Path(file_okay=False),
    help="Where the runs' journals are, to find RUN or --last (default .linksync/runs).",
)
@click.option("--no-progress", is_flag=True, help="No progress bar or lines.")
@LOG_FORMAT
@target_options
@handle_errors
def undo_command(
    target: TargetOptions,
    run: str | None,
    last: bool,
    yes: bool,
    runs_dir: str | None,
    no_progress: bool,
    log_format: str,
    **flags: Any,
) -> None:
    """Undo what the run RUN wrote to the workspace.

    RUN is the run id its summary printed (its journal is .linksync/runs/RUN.jsonl),
    or a journal file; --last undoes the latest run against this target.

    Links the run created are deleted, fields it updated set back, links it deleted
    created again (without their password: the service never returns one), links it
    replaced replaced back, links it retired restored. A link changed since the run
    is left as it is and named, and the undo exits 1 (not fully undone). The plan
    is shown first and asked for, as apply does; exit codes and reports are apply's,
    and the undo has its own journal, so it can be undone too. A journal of another
    target is refused (exit 2).
    """
    from linksync.pipeline.fields import from_flags
    from linksync.report.progress import progress_for

    if bool(run) == last:
        raise ConfigError(
            "give RUN (a run id, or a journal file) or --last, not both"
            if last
            else "give the run to undo: RUN (the run id its summary printed, or its journal "
            "file), or --last for the latest run against this target"
        )
    outputs = from_flags(Outputs, given_flags())
    settings, logger = start(target, log_format)
    progress = None if no_progress else progress_for(json_log=json_active())
    results = undo(
        run, settings, runs_dir=runs_dir, outputs=outputs,
        hooks=Hooks(UndoEvents(yes=yes), progress, logger=logger),
    )  # fmt: skip
    if not results.plan.changes:
        sys.exit(EXIT_OK)  # nothing to undo: said on stderr
    if not results.confirmed:
        err("Nothing undone.")
        sys.exit(EXIT_OK)
    render(results)
    sys.exit(results.exit_code)
