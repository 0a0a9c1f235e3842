"""The linksync command line: click commands only. Each command parses flags, calls one
library function, renders the result and converts errors (see ``common``)."""

from __future__ import annotations

import click

from linksync import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="linksync")
def cli() -> None:
    """Keep a link-shortening workspace in step with declared links.

    With nothing configured, every command talks to the built-in sandbox (state in
    .linksync/sandbox.db) and says so on stderr.
    """


def main() -> None:
    cli()


# Command groups register themselves here, one import per module.

from linksync.cli.ops import export_command, schema_command  # noqa: E402

cli.add_command(schema_command)
cli.add_command(export_command)

from linksync.cli.sandbox import sandbox as sandbox_group  # noqa: E402

cli.add_command(sandbox_group)

from linksync.cli.links import links_group  # noqa: E402
from linksync.cli.workspace import COMMANDS as workspace_commands  # noqa: E402

cli.add_command(links_group)
for _command in workspace_commands:
    cli.add_command(_command)

from linksync.cli.sync import apply_command, plan_command  # noqa: E402

cli.add_command(plan_command)
cli.add_command(apply_command)

from linksync.cli.sources import template_command, validate_command  # noqa: E402

cli.add_command(validate_command)
cli.add_command(template_command)
