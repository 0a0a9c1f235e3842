"""Pieces every command shares: exit codes, error conversion, the console.

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
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn, TypeVar

import click

from linksync.errors import InterruptedAfterWrites, LinksyncError, describe
from linksync.logs import console_line, json_active
from linksync.model.outcome import EXIT_INTERRUPTED, EXIT_ROWS_FAILED, EXIT_USAGE, exit_code_for
from linksync.safe.terminal import printable

F = TypeVar("F", bound=Callable[..., Any])


def with_options(fn: F, options: Sequence[Callable[[F], F]]) -> F:
    """``fn`` decorated with each of ``options`` (click options), the first one on top."""
    decorated: Any = fn
    for option in reversed(options):
        decorated = option(decorated)
    return decorated  # type: ignore[no-any-return]


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
        with logging_restored():
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
