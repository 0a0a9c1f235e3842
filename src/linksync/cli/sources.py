"""``linksync validate`` and ``linksync template``: local only, no network."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from linksync import config as cfg
from linksync.cli.common import echo, given_flags, handle_errors
from linksync.cli.flags import request_flags
from linksync.config.profiles import Profile, load_profile
from linksync.errors import ConfigError
from linksync.model import Severity
from linksync.model.outcome import EXIT_OK, EXIT_ROWS_FAILED
from linksync.pipeline.request import Reading
from linksync.sources import SourceBatch
from linksync.sources.column_report import ColumnReport
from linksync.sources.frame import column_lines
from linksync.sources.template import FORMATS
from linksync.validate import Validation


def _profile(config: str | None, profile: str | None) -> Profile | None:
    path = cfg.find_config(config or None, Path())
    if path is None:
        if profile:
            raise ConfigError(
                f"profile {profile!r} asked for, but there is no {cfg.DEFAULT_CONFIG}"
            )
        return None
    return load_profile(path, profile)


def _reports(result: Validation) -> list[ColumnReport]:
    """The column mapping of each sheet read (spreadsheets; YAML files have none)."""
    return [f.column_report for f in result.frames if f.column_report is not None]


def render_text(batch: SourceBatch, result: Validation) -> str:
    """Summary table, the column mapping of each sheet, then every problem with
    file/sheet/row/column/constant."""
    summary = result.summary()
    invalid = len(result.invalid)
    n_warn = len(result.warnings)
    lines = [
        f"{len(summary)} sheet(s)/file(s), {result.total} row(s): "
        f"{result.total - invalid} valid, {invalid} invalid, {n_warn} warning(s)",
        "",
    ]
    head = ("source", "sheet", "rows", "invalid", "errors", "warnings")
    table = [head] + [
        (
            str(e["source"]),
            e["sheet"] or "-",
            str(e["rows"]),
            str(e["invalid"]),
            str(e["errors"]),
            str(e["warnings"]),
        )
        for e in summary
    ]
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    for r in table:
        cells = [
            r[i].ljust(widths[i]) if i < 2 else r[i].rjust(widths[i]) for i in range(len(head))
        ]
        lines.append("  ".join(cells).rstrip())
    reports = _reports(result)
    if reports:
        lines += ["", "Columns:"]
        lines += [f"  {r.line()}" for r in reports]
    if result.problems:
        lines += ["", "Problems:"]
        for p in result.problems:
            level = "ERROR  " if p.severity is Severity.ERROR else "WARNING"
            lines.append(f"{level} {p.constant}: {p.where()}: {p.message}")
    else:
        lines += ["", "No problems found."]
    return "\n".join(lines)


def render_json(batch: SourceBatch, result: Validation) -> str:
    from linksync.sync.jsontext import readable  # the engine's package: only for --json

    doc: dict[str, Any] = {
        "ok": result.ok,
        "rows": result.total,
        "valid": result.total - len(result.invalid),
        "invalid": len(result.invalid),
        "warnings": len(result.warnings),
        "sheets": result.summary(),
        "problems": [p.to_dict() for p in result.problems],
        "unknown_columns": [
            {"source": u.source, "sheet": u.sheet, "column": u.header}
            for u in batch.unknown_columns
        ],
        "columns": [r.to_dict() for r in _reports(result)],
    }
    return readable(doc)


@click.command("validate")
@click.argument("sources", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@request_flags(Reading)
@click.option("--default-domain", help="Domain of rows without one (duplicate detection).")
@click.option("--config", "config_path", help=f"Config file (default: ./{cfg.DEFAULT_CONFIG}).")
@click.option("--profile", help="Profile of the config file (columns:, default_domain).")
@handle_errors
def validate_command(
    sources: tuple[str, ...],
    as_json: bool,
    default_domain: str | None,
    config_path: str | None,
    profile: str | None,
    **flags: Any,
) -> None:
    """Check SOURCE files (CSV, Excel, YAML or a directory of YAML) without any request.

    Prints a summary per sheet and every problem with its file, sheet, row, column and
    the service's error constant. Exit 0 when every row is valid (warnings allowed,
    unless --strict), 1 when any row is invalid or a file has nothing to read, 2 when a
    file cannot be read at all (or is refused: past a size limit, a bomb).

    No request goes to the service; --check-destinations requests each destination
    URL once and reports dead ones on their rows.
    """
    from linksync.pipeline.changed import validate_sources
    from linksync.pipeline.fields import from_flags
    from linksync.pipeline.inputs import SourceReading

    prof = _profile(config_path, profile) or Profile()
    asked = from_flags(Reading, given_flags())
    # validate may run where secrets are not: a password not found is a warning
    reading = SourceReading.of(asked, prof, secrets_needed=False)
    shown = None
    if reading.reading.check_destinations:  # the network and a progress line: only then
        from linksync.api.network import Network
        from linksync.report.dest_progress import DestinationProgress

        shown = DestinationProgress()
        network = Network(prof.proxy, prof.ca_bundle, prof.trust == "system")
        reading = replace(reading, network=network, progress=shown)
    domain = default_domain or prof.default_domain
    try:  # every row of the sources, or of the files changed since a git ref
        batch, result = validate_sources(
            sources, reading, default_domain=domain, note=lambda t: click.echo(t, err=True)
        )
    finally:
        if shown is not None:
            shown.close()
    mapping = set(column_lines(result.frames))  # shown in the output itself
    for note in result.notes:
        if note not in mapping:
            click.echo(note, err=True)
    echo(render_json(batch, result) if as_json else render_text(batch, result))
    raise SystemExit(EXIT_OK if result.ok else EXIT_ROWS_FAILED)


@click.command("template")
@click.argument("out", type=click.Path(dir_okay=False))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    help="File format (default: from OUT's extension).",
)
@click.option("--force", is_flag=True, help="Overwrite OUT if it exists.")
@click.option("--config", "config_path", help=f"Config file (default: ./{cfg.DEFAULT_CONFIG}).")
@click.option("--profile", help="Profile of the config file (its utm_rules).")
@handle_errors
def template_command(
    out: str, fmt: str | None, force: bool, config_path: str | None, profile: str | None
) -> None:
    """Write a starter file OUT: the right headers, example rows, and for xlsx an
    Instructions sheet.

    With utm_rules in the profile, the UTM columns follow them (a column for each
    required or listed parameter, allowed example values) and, in xlsx, each column with
    allowed values gets a dropdown of them."""
    if Path(out).exists() and not force:
        raise ConfigError(f"{out} exists; use --force to overwrite it")
    prof = _profile(config_path, profile)
    from linksync.export.template import write_template  # the writers: this command only

    written = write_template(out, fmt, utm_rules=prof.utm_rules if prof else None)
    click.echo(f"Wrote {written} template {out}. Check it with: linksync validate {out}")
