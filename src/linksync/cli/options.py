"""Options every command that talks to the service shares, and running async code.

Usage in a command module::

    @click.command()
    @target_options
    @handle_errors
    def export(target: TargetOptions, ...) -> None:
        settings = target.resolve()          # prints "target: ..." on stderr
        rows = asyncio.run(fetch(settings))  # async with settings.open_client() as client

or, for one call, ``with_client(target, lambda client: client.get_organization())``.
The API key is never an option: it comes from ``LINKSYNC_API_KEY``, ``--api-key-file`` or
the profile. The built-in sandbox is used when asked for (``--sandbox``,
``LINKSYNC_SANDBOX=1``, a profile's ``sandbox: true``), or by default for a person at a
terminal (``on_terminal``); a command without one (cron, CI) and no target configured
stops with exit 2 (``linksync.config.choice``).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, TypeVar

import click

from linksync.cli.common import F, err, handle_errors, with_options
from linksync.cli.flags import request_flags
from linksync.errors import ConfigError
from linksync.pipeline.request import Connection

if TYPE_CHECKING:
    from linksync import config as cfg
    from linksync.api import LinkServiceClient

T = TypeVar("T")
_TARGET = ("config", "profile", "base_url", "sandbox", "api_key_file")


@dataclass(frozen=True, slots=True)
class TargetOptions:
    """What the target flags said (None: not given)."""

    config: str | None = None
    profile: str | None = None
    base_url: str | None = None
    sandbox: bool = False
    api_key_file: str | None = None
    connection: Connection = field(default_factory=Connection)

    def resolve(self, *, announce: bool = True, fallback: bool | None = None) -> cfg.Settings:
        """Flags > environment > config file; prints the target on stderr. ``fallback``:
        the built-in sandbox when nothing names a target (default: on a terminal)."""
        from linksync import config as cfg  # here: a command's --help reads no config

        fallback = on_terminal() if fallback is None else fallback
        settings = cfg.resolve(
            config=self.config,
            profile=self.profile,
            base_url=self.base_url,
            api_key_file=self.api_key_file,
            insecure=self.connection.insecure,
            concurrency=self.connection.concurrency,
            network=self.connection.network,
            sandbox=True if self.sandbox else "if-unset" if fallback else False,
        )
        if announce:
            err(settings.target.describe())
        return settings


def on_terminal() -> bool:
    """A person at a terminal runs the command (stdin and stderr are terminals, so the
    banner naming the target reaches them): the built-in sandbox is then the default
    when nothing names a target. Never true under cron, CI or a pipe into stdin."""
    return _isatty(sys.stdin) and _isatty(sys.stderr)


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError, OSError):  # replaced or closed streams
        return False


def with_client(target: TargetOptions, work: Callable[[LinkServiceClient], Awaitable[T]]) -> T:
    """Resolve the target, open a client, run ``work(client)``, close the client."""
    import asyncio

    settings = target.resolve()

    async def main() -> T:
        async with settings.open_client() as client:
            return await work(client)

    return asyncio.run(main())


_OPTIONS: tuple[Callable[[F], F], ...] = (
    click.option(
        "--config",
        type=click.Path(dir_okay=False),
        help="Config file with profiles (default: ./linksync.yaml when present).",
    ),
    click.option("--profile", help="Profile of the config file [env LINKSYNC_PROFILE]."),
    click.option(
        "--base-url",
        help="Service base URL [env LINKSYNC_BASE_URL]. None configured: exit 2, except on "
        "a terminal, where the built-in sandbox is the default.",
    ),
    click.option(
        "--sandbox",
        is_flag=True,
        default=False,
        help="Use the built-in sandbox (state in .linksync/sandbox.db) [env "
        "LINKSYNC_SANDBOX=1 when no base URL is set; profile sandbox: true]. Needed "
        "without a terminal (cron, CI): linksync never picks it by itself there.",
    ),
    click.option(
        "--api-key-file",
        type=click.Path(dir_okay=False),
        help="File holding the API key [else env LINKSYNC_API_KEY or the profile].",
    ),
)


#: ``--json`` of the commands that show the workspace (links, members, domains...).
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")


def service_command(fn: F) -> F:
    """The target flags, ``--json`` and ``handle_errors``: a command showing what the
    service answers (``links``, ``org``, ``members``, ``domains``, ``ai``)."""
    return with_options(fn, (target_options, json_option, handle_errors))


def target_options(fn: F) -> F:
    """Add the target flags and the ``Connection``'s; the command receives them as
    ``target: TargetOptions``."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        flags = {name: kwargs.pop(name) for name in _TARGET}
        connection = Connection(**{f.name: kwargs.pop(f.name) for f in fields(Connection)})
        kwargs["target"] = TargetOptions(**flags, connection=connection)
        return fn(*args, **kwargs)

    return with_options(wrapper, (*_OPTIONS, request_flags(Connection)))  # type: ignore[return-value]


_SELECT: tuple[Callable[[F], F], ...] = (
    click.option(
        "--all",
        "all_targets",
        is_flag=True,
        help="Every target (workspace) of the config file's targets: block, at once, each "
        "with its own files, key and rate limiter.",
    ),
    click.option(
        "--target",
        "target_names",
        multiple=True,
        metavar="NAME",
        help="This target of the config file's targets: block (repeatable).",
    ),
)


def target_selection(fn: F) -> F:
    """Add ``--all`` and ``--target NAME``."""
    return with_options(fn, _SELECT)


def selected(kw: dict[str, Any]) -> tuple[str, ...] | None:
    """The names asked for (empty: every target), or None for a run of SOURCE files."""
    every, names = kw.pop("all_targets"), tuple(kw.pop("target_names"))
    if not every and not names:
        return None
    return () if every else names


def refuse(sources: Sequence[str], flags: Mapping[str, Any], *more: str) -> None:
    """Flags that name one target (and ``more``: outputs of one run) given (``flags``,
    ``given_flags``) make no sense for several."""
    if sources:
        raise ConfigError("give SOURCE files or --all/--target, not both: targets name their files")
    bad = [flag for flag in ("--profile", "--base-url", "--api-key-file", *more) if flags.get(flag)]
    if bad:
        raise ConfigError(
            f"{', '.join(bad)} cannot be used with --all/--target: each target names its "
            "own base URL, key and files in the config file's targets: block"
        )
