"""``linksync sandbox serve`` and ``linksync sandbox reset``."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from linksync.cli.common import F, err, handle_errors
from linksync.config import DEFAULT_SANDBOX_DB
from linksync.errors import ConfigError
from linksync.sandbox.server import serve_forever
from linksync.sandbox.settings import (
    DEFAULT_BACKLOG,
    SandboxSettings,
    parse_latency,
    resolve_settings,
)
from linksync.sandbox.store import remove_state

_PROBABILITY = click.FloatRange(0.0, 1.0)


def _db_option(help: str) -> Callable[[F], F]:
    """``--db``: the sandbox's state file."""
    path = click.Path(dir_okay=False)
    return click.option("--db", type=path, default=DEFAULT_SANDBOX_DB, show_default=True, help=help)


@click.group("sandbox")
def sandbox() -> None:
    """Run the built-in sandbox of the link service as a real HTTP server, or clear
    its state."""


def _banner(base_url: str, settings: SandboxSettings, db_path: str) -> None:
    lines = [
        f"linksync sandbox listening on {base_url}",
        f"  API base URL     {base_url}/api/v1",
        f"  full-access key  {settings.full_key}",
        f"  read-only key    {settings.read_key}",
        f"  system domain    {settings.system_domain}",
        f"  short links      {base_url}/r/{settings.system_domain}/<slug>",
        f"  state            {'memory' if db_path == ':memory:' else db_path}",
        f"  rate limit       {settings.rate_limit} requests per {settings.rate_window_s:g} s",
    ]
    if settings.backlog != DEFAULT_BACKLOG:
        lines.append(f"  listen backlog   {settings.backlog}")
    if settings.has_faults:
        lo, hi = settings.latency_ms
        lines.append(
            f"  faults           500 {settings.fail_500:g}, 503 {settings.fail_503:g}, "
            f"drop {settings.drop:g}, latency {lo}-{hi} ms, seed {settings.seed}"
        )
    click.echo("\n".join(lines))
    sys.stdout.flush()


@sandbox.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8787,
    show_default=True,
    help="Port; 0 picks a free one (the printed URL shows it).",
)
@click.option(
    "--config",
    "config",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Sandbox settings YAML (see configs/sandbox.yaml); flags override it.",
)
@_db_option("SQLite state file.")
@click.option("--memory", is_flag=True, help="Keep state in memory (lost on exit).")
@click.option("--full-key", help="Full-access (write) API key.")
@click.option("--read-key", help="Read-only API key.")
@click.option("--rate-limit", type=click.IntRange(min=1), help="Requests per window per key.")
@click.option(
    "--rate-window",
    "rate_window_s",
    type=click.FloatRange(min=0, min_open=True),
    help="Rate window length in seconds.",
)
@click.option("--latency-ms", help="Added latency range in milliseconds, A-B.")
@click.option("--fail-500", type=_PROBABILITY, help="Probability of 500 INTERNAL_ERROR.")
@click.option("--fail-503", type=_PROBABILITY, help="Probability of 503 EDGE_UNAVAILABLE.")
@click.option(
    "--fail-500-after-write", type=_PROBABILITY, help="Probability of a 500 after a write was done."
)
@click.option("--drop", type=_PROBABILITY, help="Probability of closing without a response.")
@click.option("--seed", type=int, help="Seed of the fault injection.")
@click.option("--link-quota", type=click.IntRange(min=0), help="Plan's link quota.")
@click.option(
    "--domain-quota",
    "custom_domain_quota",
    type=click.IntRange(min=0),
    help="Plan's custom domain quota.",
)
@click.option("--system-domain", help="System domain of short links.")
@click.option(
    "--backlog",
    type=click.IntRange(min=1),
    help=f"Listen backlog: connections queued before they are accepted (default "
    f"{DEFAULT_BACKLOG}; 5 acts like Python's http.server and small deployments).",
)
@click.option(
    "--log-level",
    type=click.Choice(["critical", "error", "warning", "info"]),
    default="warning",
    show_default=True,
)
@handle_errors
def serve(
    host: str,
    port: int,
    config: Path | None,
    db: str,
    memory: bool,
    latency_ms: str | None,
    system_domain: str | None,
    log_level: str,
    **given: Any,
) -> None:
    """Serve the sandbox over HTTP until interrupted (Ctrl-C).

    Prints the base URL (with the real port when --port 0) and the keys, then serves
    every endpoint of the interface plus short-link redirects.
    """
    settings = resolve_settings(
        config,
        latency_ms=parse_latency(latency_ms) if latency_ms is not None else None,
        system_domain=system_domain.lower() if system_domain else None,
        **given,
    )
    db_path = ":memory:" if memory else db
    try:
        serve_forever(
            settings,
            db_path,
            host,
            port,
            on_ready=lambda url: _banner(url, settings, db_path),
            log_level=log_level,
        )
    except OSError as exc:
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


@sandbox.command("reset")
@_db_option("SQLite state file to clear.")
@handle_errors
def reset(db: str) -> None:
    """Clear the sandbox state: delete the state file (links, domains, members, clicks)."""
    removed = remove_state(db)
    if removed:
        click.echo(f"Cleared sandbox state {db}.")
    else:
        err(f"No sandbox state at {db}; nothing to clear.")
