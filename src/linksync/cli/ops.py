"""Commands for links as code: ``schema`` (JSON Schema of link files) and ``export``
(bootstrap a repository from a live workspace)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import click

from linksync.cli.common import echo, err, handle_errors
from linksync.cli.options import TargetOptions, target_options
from linksync.export import DEFAULT_SCHEMA_REF, FORMATS, ExportInfo, check_export, export_links
from linksync.export.schema import render_schema
from linksync.safe.outputs import Output, check_outputs, protected_inputs, write_text_atomic


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
    check_outputs([Output(out, "OUT", (".json",))])
    write_text_atomic(out, text)
    err(f"Wrote {out}")


@click.command("export")
@click.argument("out", type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="yaml",
    show_default=True,
    help="File format.",
)
@click.option("--domain", help="Only links on this domain.")
@click.option("--tag", help="Only links with this tag.")
@click.option(
    "--split-by",
    type=click.Choice(["domain", "tag"]),
    help="One file per domain or per tag; OUT is then a directory.",
)
@click.option(
    "--schema-ref",
    default=DEFAULT_SCHEMA_REF,
    show_default=True,
    help="Schema path for the YAML files' yaml-language-server line ('' for none).",
)
@click.option("--json", "as_json", is_flag=True, help="Print what was written as JSON.")
@click.option("--force", is_flag=True, help="Overwrite files that exist already.")
@click.option(
    "--qr",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write a QR code (SVG and PNG) of each short link to this .zip.",
)
@target_options
@handle_errors
def export_command(
    target: TargetOptions,
    out: Path,
    fmt: Any,
    domain: str | None,
    tag: str | None,
    split_by: Any,
    schema_ref: str,
    as_json: bool,
    force: bool,
    qr: Path | None,
) -> None:
    """Write the workspace's links to OUT as files that plan reads back unchanged.

    A file (links.yaml, links.csv, links.xlsx) or, with --split-by or when OUT is a
    directory, one file per group. An existing file is not overwritten without
    --force. Passwords cannot be exported (the service never returns them): the YAML
    header names the links that have one, and plan leaves their passwords alone.
    """
    settings = target.resolve()
    reads = protected_inputs((), settings.read_files())
    check_export(out, format=fmt, split_by=split_by, force=force, protected=reads, qr=qr)

    async def main() -> ExportInfo:
        async with settings.open_client() as client:
            return await export_links(
                client,
                out,
                format=fmt,
                domain=domain,
                tag=tag,
                split_by=split_by,
                schema_ref=schema_ref or None,
                force=force,
                protected=reads,
                qr=qr,
            )

    info = asyncio.run(main())
    for warning in info.warnings:
        err(f"Warning: {warning}")
    if as_json:
        echo(json.dumps(info.to_dict(), indent=2, sort_keys=True))
        return
    files = ", ".join(str(p) for p in info.files)
    echo(f"Exported {info.links} link(s) to {files}")
    if info.qr is not None:
        echo(f"QR codes of {info.qr_codes} link(s) in {info.qr}")
    if info.schemas:
        echo(f"Schema for editors: {', '.join(str(p) for p in info.schemas)}")
    if info.with_password:
        echo(
            f"{len(info.with_password)} link(s) have a password, which cannot be exported "
            "(write-only); plan leaves it alone."
        )
