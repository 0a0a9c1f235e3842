"""The linksync command line: click commands only. Each command parses flags, calls one
library function, renders the result and converts errors (see ``common``).

Commands are imported when they run, not when the CLI starts: ``linksync org`` need not
load pandas, nor ``linksync validate`` the HTTP stack. ``linksync --help`` lists them
from the table below without importing any (a test keeps the table's summaries equal
to the commands' own).

Layer: the top. It may import every package below (the ``ui`` command starts the page);
nothing imports it.
"""

from __future__ import annotations

import atexit
import gc
import importlib
import sys
from typing import Any, NamedTuple

import click

from linksync._version import __version__
from linksync.cli.heap import fixed_mmap_threshold, one_heap, own_process, padded_top
from linksync.cli.startup import prepare


class Lazy(NamedTuple):
    """Where a command lives ("module:attribute") and the summary ``--help`` shows."""

    target: str
    summary: str


#: Command name -> where it lives and its summary, in the order ``--help`` lists them.
COMMANDS: dict[str, Lazy] = {
    "validate": Lazy(
        "linksync.cli.sources:validate_command",
        "Check SOURCE files (CSV, Excel, YAML or a directory of YAML) without any request.",
    ),
    "plan": Lazy(
        "linksync.cli.sync:plan_command",
        "Show what apply would do to make the workspace match SOURCE...",
    ),
    "apply": Lazy("linksync.cli.apply:apply_command", "Make the workspace match SOURCE..."),
    "undo": Lazy("linksync.cli.undo:undo_command", "Undo what the run RUN wrote to the workspace."),
    "export": Lazy(
        "linksync.cli.ops:export_command",
        "Write the workspace's links to OUT as files that plan reads back unchanged.",
    ),
    "template": Lazy(
        "linksync.cli.sources:template_command",
        "Write a starter file OUT: the right headers, example rows, and for xlsx an "
        "Instructions sheet.",
    ),
    "schema": Lazy(
        "linksync.cli.ops:schema_command",
        "Print the JSON Schema of the YAML link files (or write it to OUT).",
    ),
    "links": Lazy(
        "linksync.cli.links:links_group", "Short links, one at a time (use plan/apply for many)."
    ),
    "org": Lazy(
        "linksync.cli.workspace:org_command",
        "Show the organization: plan, usage against each quota.",
    ),
    "members": Lazy(
        "linksync.cli.workspace:members_group", "List and invite members of the organization."
    ),
    "domains": Lazy(
        "linksync.cli.workspace:domains_group", "Custom domains: list, add, verify, remove."
    ),
    "ai": Lazy("linksync.cli.workspace:ai_group", "The service's AI helpers."),
    "sandbox": Lazy(
        "linksync.cli.sandbox:sandbox",
        "Run the built-in sandbox of the link service as a real HTTP server, or clear its state.",
    ),
    "ui": Lazy(
        "linksync.cli.ui:ui_command",
        "Open the local web page: check, plan and apply a campaign file; take it back annotated.",
    ),
}


def _asks_json_logs(args: list[str]) -> bool:
    """Whether the command line holds ``--log-format json`` (or ``--log-format=json``)."""
    for i, arg in enumerate(args):
        if arg == "--":
            return False
        if arg == "--log-format=json" or (
            arg == "--log-format" and i + 1 < len(args) and args[i + 1] == "json"
        ):
            return True
    return False


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def __init__(self, *args: Any, lazy: dict[str, Lazy], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = lazy

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta["linksync.json_logs"] = _asks_json_logs(args)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        """A command's usage error (an unknown flag, a bad value) as one JSON line on
        stderr when the command line asks for ``--log-format json``: a CI job parsing
        stderr gets JSON only, whatever went wrong (exit 2 as ever)."""
        try:
            return super().invoke(ctx)
        except click.UsageError as exc:
            if not ctx.meta.get("linksync.json_logs"):
                raise
            from linksync.cli.common import logging_restored
            from linksync.logs import console_line, setup_logging

            where = exc.ctx.command_path if exc.ctx is not None else "linksync"
            with logging_restored():
                setup_logging("json")
                console_line(f"Error: {where}: {exc.format_message()}", error=True)
            sys.exit(exc.exit_code)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.lazy)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from the table: ``--help`` imports no command module."""
        limit = formatter.width - 6 - max(len(name) for name in self.lazy)
        rows = []
        for name, lazy in self.lazy.items():
            stand_in = click.Command(name, help=lazy.summary)
            rows.append((name, stand_in.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        lazy = self.lazy.get(cmd_name)
        if lazy is None:
            return super().get_command(ctx, cmd_name)
        target = lazy.target
        module_name, attr = target.split(":")
        command = getattr(importlib.import_module(module_name), attr)
        if not isinstance(command, click.Command):
            raise TypeError(f"{target} is not a click command")
        return command


@click.group(
    cls=LazyGroup,
    lazy=COMMANDS,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(__version__, prog_name="linksync")
def cli() -> None:
    """Keep a link-shortening workspace in step with declared links.

    Read links from CSV, Excel or YAML, check them locally, plan the changes and apply
    them within the service's rate limit, with a report for every row.

    With nothing configured, a command run on a terminal talks to the built-in sandbox
    (state in .linksync/sandbox.db) and says so on stderr; without a terminal (cron,
    CI) it stops with exit 2 unless --sandbox or LINKSYNC_SANDBOX=1 asks for it.
    """


def main() -> None:
    # At exit, freeze what is left instead of letting the interpreter's last garbage
    # collection walk it (about 0.2 s once pandas is loaded). Every output the command
    # writes is closed before it exits; atexit runs this last (registered first).
    atexit.register(gc.freeze)
    # httpx's own command line and OpenBLAS's spinning threads: start-up work no
    # command uses (``linksync.cli.startup``).
    prepare()
    one_heap()  # before any thread starts (``linksync.cli.heap``)
    fixed_mmap_threshold()
    padded_top()
    # The command's imports make about 100,000 objects that live as long as the process:
    # walked by a young collection every 700 allocations, and by the older ones again,
    # they cost an apply 30-40 ms of CPU before its first write. Collections wait while
    # the command loads; a run command freezes what loaded before it starts
    # (``linksync.cli.heap.loaded``).
    from linksync.pipeline.collector import fewer_collections  # light: gc, threading

    own_process()
    with fewer_collections():
        cli()
