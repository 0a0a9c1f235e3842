"""``linksync apply``: parse the flags, call ``linksync.apply`` (every output checked
before the first request, the run lock, the plan, the journal, the reports: see
``linksync.pipeline.applying``), render the summary, exit with the code that says what
happened (``linksync.model.outcome``). Options shared with ``plan`` live in ``cli.sync``."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from linksync.cli.common import asked, echo, err, given_flags, handle_errors
from linksync.cli.events import CliEvents
from linksync.cli.flags import request_flags
from linksync.cli.heap import kept, loaded
from linksync.cli.options import TargetOptions, refuse, selected, target_options, target_selection
from linksync.cli.sync import start, sync_options
from linksync.errors import ConfigError
from linksync.logs import json_active
from linksync.model import RowResult
from linksync.model.links import is_yaml_source
from linksync.model.outcome import EXIT_OK
from linksync.pipeline.request import Outputs

if TYPE_CHECKING:
    from linksync.pipeline import Results


@click.command("apply")
@click.argument("sources", nargs=-1)
@click.option(
    "--plan",
    "plan_file",
    type=click.Path(dir_okay=False, exists=True),
    help="Apply this saved plan exactly, only to the workspace it was made for; SOURCE... "
    "must be its own, unchanged; flags and profile limits may only tighten it (rows "
    "changed since are refused: STALE_PLAN).",
)
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@request_flags(Outputs)
@click.option("--no-progress", is_flag=True, help="No progress bar or lines.")
@click.option("--json", "as_json", is_flag=True, help="With --all/--target: the summary as JSON.")
@target_selection
@sync_options
@target_options
@handle_errors
def apply_command(
    target: TargetOptions,
    sources: tuple[str, ...],
    plan_file: str | None,
    yes: bool,
    no_progress: bool,
    as_json: bool,
    **kw: Any,
) -> None:  # fmt: skip
    """Make the workspace match SOURCE... (or a saved --plan), within the rate limit.

    Every output path is checked before the first request; exit 2 means nothing was
    written to the workspace.

    With --all (or --target NAME) it applies the targets of the config file instead,
    at once, each with its own files, key and rate limiter; --report names one file
    per target (out/{target}.csv, or out/report.csv -> out/report-NAME.csv). It ends
    with one summary row per target and exits with the worst code of the targets,
    where 2 (nothing written) holds only when no target wrote anything: a target that
    failed with 2 while another wrote makes the run 1.
    """
    from linksync.pipeline import Hooks, apply  # here, as plan's: --help runs none
    from linksync.pipeline.fields import from_flags
    from linksync.report.progress import progress_for

    names = selected(kw)
    flags = given_flags()
    outputs = from_flags(Outputs, flags)
    if names is not None:
        from linksync.cli.all_targets import apply_targets

        refuse(sources, flags, "--plan", "--annotate", "--qr", "--journal", "--lock")
        apply_targets(
            target, names, yes=yes, as_json=as_json, outputs=outputs, log_format=kw["log_format"],
            flags=flags,
        )  # fmt: skip
    if as_json:
        raise ConfigError("--json is the summary of a run over targets: use it with --all")
    if not sources and not plan_file:
        raise ConfigError("give SOURCE files, or --plan plan.json")
    reading, policy, notify = asked(flags)
    settings, logger = start(target, kw["log_format"], notify.urls)
    progress = None if no_progress else progress_for(json_log=json_active())
    loaded()
    results = apply(
        list(sources), settings, plan=plan_file, reading=reading, sync=policy, notify=notify,
        outputs=outputs, hooks=Hooks(CliEvents(yes=yes), progress, logger=logger),
    )  # fmt: skip
    kept(results)  # not freed link by link as the command ends
    if not results.confirmed:
        err("Nothing applied.")
        sys.exit(EXIT_OK)
    render(results)
    sys.exit(results.exit_code)


def render(results: Results) -> None:
    """The summary on stdout (counts, top errors, the files written, what the exit
    code means, why the run stopped, the repeats of the last run); the journal's path
    on stderr."""
    from linksync.report import count_results, render_summary

    code = results.exit_code
    counts = count_results(results.rows)
    echo(render_summary(counts, results.info, results.files, code, results.exit_meaning))
    if results.stop_sentence:
        echo(results.stop_sentence)
    if results.writes.any:
        echo(f"Run {results.run_id}: `linksync undo {results.run_id}` sets back what it wrote")
    if results.repeats:
        first = results.repeats[0]
        echo(
            f"Repeats: {len(results.repeats)} of {len(results.failed)} failed rows also failed "
            f"in the last run ({results.last_run_id}), e.g. {_where(first)}: "
            f"{first.error_constant}"
        )
    if results.journal:
        err(f"journal: {results.journal}")


def _where(row: RowResult) -> str:
    if row.slug:
        return f"{row.domain}/{row.slug}"
    return f"{row.source}, {'line' if is_yaml_source(row.source) else 'row'} {row.row}"
