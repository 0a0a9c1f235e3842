"""The linksync command line: click commands only. Each command parses flags, calls one
library function, renders the result and converts errors (see ``common``).

Commands are imported when they run, not when the CLI starts: ``linksync org`` need not
load pandas, nor ``linksync validate`` the HTTP stack.
"""

from __future__ import annotations

import importlib
from typing import Any

import click

from linksync import __version__

#: Command name -> "module:attribute", in the order ``--help`` lists them.
COMMANDS: dict[str, str] = {
    "validate": "linksync.cli.sources:validate_command",
    "plan": "linksync.cli.sync:plan_command",
    "apply": "linksync.cli.apply:apply_command",
    "export": "linksync.cli.ops:export_command",
    "template": "linksync.cli.sources:template_command",
    "schema": "linksync.cli.ops:schema_command",
    "links": "linksync.cli.links:links_group",
    "org": "linksync.cli.workspace:org_command",
    "members": "linksync.cli.workspace:members_group",
    "domains": "linksync.cli.workspace:domains_group",
    "ai": "linksync.cli.workspace:ai_group",
    "sandbox": "linksync.cli.sandbox:sandbox",
    "ui": "linksync.cli.ui:ui_command",
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def __init__(self, *args: Any, lazy: dict[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = lazy

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*self.lazy, *sorted(set(super().list_commands(ctx)) - set(self.lazy))]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = self.lazy.get(cmd_name)
        if target is None:
            return super().get_command(ctx, cmd_name)
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

    With nothing configured, every command talks to the built-in sandbox (state in
    .linksync/sandbox.db) and says so on stderr.
    """


def main() -> None:
    cli()
