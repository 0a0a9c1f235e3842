"""``linksync ui``: the local web page for people who would rather not use a terminal."""

from __future__ import annotations

import click

from linksync.cli.common import echo, err, handle_errors
from linksync.cli.options import TargetOptions, target_options
from linksync.errors import ConfigError


@click.command("ui")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    show_default=True,
    help="Port on 127.0.0.1; 0 picks a free one.",
)
@click.option("--no-browser", is_flag=True, help="Do not open a browser; print the address.")
@click.option(
    "--max-upload-mb",
    type=click.IntRange(1, 1000),
    default=25,
    show_default=True,
    help="Largest file the page takes, in MB (1 MB = 1,000,000 bytes).",
)
@target_options
@handle_errors
def ui_command(target: TargetOptions, port: int, no_browser: bool, max_upload_mb: int) -> None:
    """Open the local web page: check, plan and apply a campaign file; take it back annotated.

    Drop a CSV, Excel or YAML file on the page: it shows each column's mapping, every row
    problem and the plan, applies it with live progress, and offers the annotated
    workbook (short link, status, error and QR code per row), the QR codes and the
    reports for download.

    The page is served on 127.0.0.1 only and answers no other web page. It talks to
    the same target as the other commands (the built-in sandbox when nothing is
    configured, even without a terminal: the page shows it) and never shows the API
    key. Uploaded files are deleted when the server stops (Ctrl-C). See docs/ui.md.
    """
    from linksync.ui import serve_ui  # the web stack loads only for this command

    settings = target.resolve(fallback=True)  # a page a person opens: the sandbox by default

    def ready(url: str) -> None:
        echo(f"linksync page: {url}  (Ctrl-C to stop)")

    try:
        serve_ui(
            settings,
            port=port,
            open_browser=not no_browser,
            max_upload_bytes=max_upload_mb * 1_000_000,
            on_ready=ready,
        )
    except OSError as exc:
        raise ConfigError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}") from None
    except KeyboardInterrupt:
        pass  # Ctrl-C is how the page is meant to stop: not an error
    err("linksync page stopped; the uploaded files were deleted.")
