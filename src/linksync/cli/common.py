"""Pieces every command shares: exit codes, error conversion, the console, and the
flags given as the run's request (``given_flags``, ``asked``).

``echo`` (stdout) and ``err`` (stderr) are how commands print: text that came from a
file or from the service is passed through ``linksync.safe.terminal.printable`` so control,
bidi-override and invisible characters show as ``\\uXXXX`` instead of acting on the
terminal. With ``--log-format json`` stderr carries JSON lines only: ``err`` then writes
a JSON ``message`` (or ``error``) event instead of plain text.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from linksync.errors import ConfigError, InterruptedAfterWrites, LinksyncError, describe
from linksync.logs import console_line, json_active
from linksync.model.outcome import EXIT_INTERRUPTED, EXIT_ROWS_FAILED, EXIT_USAGE, exit_code_for
from linksync.safe.terminal import printable

if TYPE_CHECKING:
    from linksync.pipeline.request import Notify, Reading, SyncPolicy

F = TypeVar("F", bound=Callable[..., Any])


def with_options(fn: F, options: Sequence[Callable[[F], F]]) -> F:
    """``fn`` decorated with each of ``options`` (click options), the first one on top."""
    decorated: Any = fn
    for option in reversed(options):
        decorated = option(decorated)
    return decorated  # type: ignore[no-any-return]


def given_flags() -> dict[str, Any]:
    """The flags the running command was given, by their long name (``--owner-tag``),
    as ``linksync.pipeline.fields.from_flags`` takes them to build the run's request:
    a flag left at None, an empty repeatable flag, an on-only flag left off are not
    given; ``--map``'s ``HEADER=FIELD`` texts are a mapping."""
    ctx = click.get_current_context()
    flags: dict[str, Any] = {}
    for param in ctx.command.params:
        value = ctx.params.get(str(param.name))
        if not isinstance(param, click.Option) or value is None or value == ():
            continue
        if value is False and not param.secondary_opts:
            continue
        flags[max(param.opts, key=len)] = value
    if "--map" in flags:
        flags["--map"] = parse_maps(flags["--map"])
    refuse_blank(flags)
    return flags


def refuse_blank(flags: Mapping[str, Any]) -> None:
    """``ConfigError`` for a flag of what a run may do (``SyncPolicy``) given an empty
    text: ``--owner-tag "$OWNER"`` with the variable unset in the job read as not given,
    and a mirror scoped by domain alone deleted every link of the domain; an empty
    ``--retire-to`` deleted instead of retiring."""
    from dataclasses import fields

    from linksync.pipeline.fields import flags_of
    from linksync.pipeline.request import SyncPolicy

    policy = {flags_of(f)[0] for f in fields(SyncPolicy)}
    for flag, value in flags.items():
        values = value if isinstance(value, tuple | list) else (value,)
        if flag in policy and any(isinstance(v, str) and not v.strip() for v in values):
            raise ConfigError(
                f"{flag} was given an empty value (a variable not set where the job runs?): "
                "give it a value, or leave the flag out (nothing done)"
            )


def asked(flags: Mapping[str, Any]) -> tuple[Reading, SyncPolicy, Notify]:
    """What the flags given (``given_flags``) ask of a run: how it reads, what it may do
    and its alert (a flag not given leaves its field None, the profile's setting)."""
    from linksync.pipeline.fields import from_flags
    from linksync.pipeline.request import Notify, Reading, SyncPolicy

    return from_flags(Reading, flags), from_flags(SyncPolicy, flags), from_flags(Notify, flags)


def parse_maps(pairs: Sequence[str]) -> dict[str, str]:
    """``("Ziel=url",)`` -> ``{"Ziel": "url"}``."""
    out: dict[str, str] = {}
    for pair in pairs:
        header, sep, fname = pair.rpartition("=")
        if not sep or not header.strip():
            raise ConfigError(f"--map expects HEADER=FIELD (got {pair!r})")
        out[header.strip()] = fname.strip()
    return out


def echo(message: str = "", *, nl: bool = True) -> None:
    """Text on stdout, safe for a terminal."""
    click.echo(printable(message), nl=nl)


def err(message: str, *, error: bool = False) -> None:
    """One message on stderr (a JSON line with ``--log-format json``)."""
    text = printable(message)
    if not console_line(text, error=error):
        click.echo(text, err=True)


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    err(f"Error: {message}", error=True)
    sys.exit(code)


def handle_errors(fn: F) -> F:
    """Turn library errors into a clear message and the exit code its type calls for.

    A file that cannot be read or written (``OSError``) is a usage error too. With JSON
    logging, an unexpected error is logged as one JSON ``crash`` event (exit 1) rather
    than a plain traceback.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with logging_restored(), sigterm_as_ctrl_c():
            return _run(fn, *args, **kwargs)

    return wrapper  # type: ignore[return-value]


@contextlib.contextmanager
def logging_restored() -> Iterator[None]:
    """The ``linksync`` logger as it was before the command (a command sets it up for
    itself; in one process running several commands, as tests do, none leaks into the
    next)."""
    logger = logging.getLogger("linksync")
    saved = (list(logger.handlers), logger.propagate, logger.level)
    try:
        yield
    finally:
        logger.handlers[:] = saved[0]
        logger.propagate, logger.level = saved[1], saved[2]


@contextlib.contextmanager
def sigterm_as_ctrl_c() -> Iterator[None]:
    """While a command runs, SIGTERM (what a scheduler, a CI runner or Kubernetes sends
    to stop a job) does what Ctrl-C does: an apply stops taking rows, lets the requests
    in flight finish, writes its reports and its journal's end, and exits 130. Without
    this, SIGTERM ended the process at once: no report, no summary, exit 143."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers belong to the main thread
        return
    previous = signal.signal(signal.SIGTERM, _as_ctrl_c)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _as_ctrl_c(signum: int, frame: Any) -> None:
    """Hand SIGTERM to the handler of SIGINT: asyncio's (a run in an event loop cancels
    its main task, and a second signal stops at once) or Python's (KeyboardInterrupt);
    when SIGINT is ignored (a job started in the background), KeyboardInterrupt."""
    handler = signal.getsignal(signal.SIGINT)
    if not callable(handler):
        raise KeyboardInterrupt
    handler(signal.SIGINT, frame)


def _run(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    try:
        return fn(*args, **kwargs)
    except InterruptedAfterWrites as exc:
        err(str(exc))
        sys.exit(EXIT_INTERRUPTED)
    except LinksyncError as exc:
        fail(describe(exc), exit_code_for(exc))
    except OSError as exc:
        fail(describe(exc), EXIT_USAGE)
    except KeyboardInterrupt:
        err("Interrupted.")
        sys.exit(EXIT_INTERRUPTED)
    except (click.ClickException, click.exceptions.Abort, click.exceptions.Exit):
        raise
    except Exception:
        if not json_active():
            raise
        logging.getLogger("linksync").exception(
            "linksync stopped on an unexpected error", extra={"event": "crash"}
        )
        sys.exit(EXIT_ROWS_FAILED)
