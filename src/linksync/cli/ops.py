"""Commands for links as code: ``schema`` (JSON Schema of link files) and ``export``
(bootstrap a repository from a live workspace)."""

from __future__ import annotations

from pathlib import Path

import click

from linksync.cli.common import err, handle_errors
from linksync.schema import render_schema


@click.command("schema")
@click.argument("out", required=False, type=click.Path(dir_okay=False, path_type=Path))
@handle_errors
def schema_command(out: Path | None) -> None:
    """Print the JSON Schema of the YAML link files (or write it to OUT).

    Reference it from the first line of a link file so editors validate and complete it:

        # yaml-language-server: $schema=links.schema.json
    """
    text = render_schema()
    if out is None:
        click.echo(text, nl=False)
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    err(f"Wrote {out}")
