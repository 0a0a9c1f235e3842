"""``linksync validate`` and ``linksync template``: local only, no network."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from linksync import config as cfg
from linksync.cli.common import EXIT_OK, EXIT_ROWS_FAILED, echo, handle_errors
from linksync.cli.source_flags import pop_source_flags, source_flags
from linksync.config.profiles import Profile, load_profile
from linksync.errors import ConfigError
from linksync.model import Severity
from linksync.sources import ReadOptions, SourceBatch, read_sources
from linksync.sources.encrypted import workbook_password
from linksync.sources.template import FORMATS, write_template
from linksync.sync.jsontext import readable
from linksync.validate import Validation, validate


def _profile(config: str | None, profile: str | None) -> Profile | None:
    path = Path(config) if config else Path(cfg.DEFAULT_CONFIG)
    if config and not path.is_file():
        raise ConfigError(f"config file {config} does not exist")
    if not path.is_file():
        if profile:
            raise ConfigError(f"profile {profile!r} asked for, but there is no {path}")
        return None
    return load_profile(path, profile)


def render_text(batch: SourceBatch, result: Validation) -> str:
    """Summary table, then every problem with file/sheet/row/column/constant."""
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
    if result.problems:
        lines += ["", "Problems:"]
        for p in result.problems:
            level = "ERROR  " if p.severity is Severity.ERROR else "WARNING"
            lines.append(f"{level} {p.constant}: {p.where()}: {p.message}")
    else:
        lines += ["", "No problems found."]
    return "\n".join(lines)


def render_json(batch: SourceBatch, result: Validation) -> str:
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
    }
    return readable(doc)


@click.command("validate")
@click.argument("sources", nargs=-1, required=True)
@click.option(
    "--sheet",
    "sheets",
    multiple=True,
    help="Only this Excel sheet (repeatable). A name with control or direction characters "
    "may be typed as linksync prints it (Links\\u202e\\u0007).",
)
@click.option(
    "--fix-invisible",
    is_flag=True,
    help="Strip invisible characters (zero-width spaces, BOMs, bidi controls...) and "
    "report each fix as a warning, instead of marking the row invalid.",
)
@click.option(
    "--fix-utm-case",
    is_flag=True,
    help="Lower the case and replace spaces in UTM values the profile's utm_rules refuse, "
    "and report each fix as a warning, instead of marking the row invalid.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@source_flags
@click.option("--default-domain", help="Domain of rows without one (duplicate detection).")
@click.option("--config", "config_path", help=f"Config file (default: ./{cfg.DEFAULT_CONFIG}).")
@click.option("--profile", help="Profile of the config file (columns:, default_domain).")
@handle_errors
def validate_command(
    sources: tuple[str, ...],
    sheets: tuple[str, ...],
    fix_invisible: bool,
    fix_utm_case: bool,
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
    prof = _profile(config_path, profile) or Profile()
    given = pop_source_flags(flags)
    mapping = {str(k): str(v) for k, v in prof.columns.items()}
    mapping.update(given["mapping"])
    options = ReadOptions.build(
        sheets=list(sheets) or None,
        mapping=mapping or None,
        encoding=given["encoding"] or prof.encoding,
        date_format=given["date_format"] or prof.date_format,
        timezone=given["timezone"] or prof.timezone,
        empty_values=given["empty_values"] or prof.empty_values,
        workbook_password=workbook_password(
            password_file=given["workbook_password_file"], env_name=prof.workbook_password_env
        ),
    )
    strict = prof.strict if given["strict"] is None else bool(given["strict"])
    domain = default_domain or prof.default_domain
    batch = read_sources(sources, options=options)
    result = validate(
        batch,
        fix_invisible=fix_invisible,
        default_domain=domain,
        strict=strict,
        utm_rules=prof.utm_rules,
        fix_utm_case=fix_utm_case,
    )
    check = given["check_destinations"]
    if prof.check_destinations if check is None else check:
        from linksync.api.network import Network
        from linksync.validate.dest_findings import check_destinations

        network = Network(prof.proxy, prof.ca_bundle, prof.trust == "system")
        from linksync.report.dest_progress import DestinationProgress

        shown = DestinationProgress()
        try:
            result, done = check_destinations(
                result, strict=strict, network=network, progress=shown
            )
        finally:
            shown.close()
        click.echo(done.summary(), err=True)
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
    written = write_template(out, fmt, utm_rules=prof.utm_rules if prof else None)
    click.echo(f"Wrote {written} template {out}. Check it with: linksync validate {out}")
