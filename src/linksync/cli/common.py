"""Pieces every command shares: exit codes, error conversion, stderr console."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import click

from linksync.errors import (
    ApiError,
    ConfigError,
    LinksyncError,
    LockError,
    SourceError,
    UnsafePlanError,
)

EXIT_OK = 0
EXIT_ROWS_FAILED = 1
EXIT_USAGE = 2
EXIT_CHANGES_PENDING = 3
EXIT_INTERRUPTED = 130

EXIT_MEANINGS: dict[int, str] = {
    EXIT_OK: "all rows fine",
    EXIT_ROWS_FAILED: "some rows invalid or failed",
    EXIT_USAGE: "usage, config or auth error (nothing done)",
    EXIT_CHANGES_PENDING: "the plan has pending changes (--detailed-exitcode)",
    EXIT_INTERRUPTED: "interrupted",
}

F = TypeVar("F", bound=Callable[..., Any])


def err(message: str) -> None:
    """One line on stderr."""
    click.echo(message, err=True)


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    err(f"Error: {message}")
    sys.exit(code)


def exit_code_for(exc: LinksyncError) -> int:
    if isinstance(exc, ConfigError | LockError | UnsafePlanError | SourceError):
        return EXIT_USAGE
    if isinstance(exc, ApiError) and exc.constant in ("UNAUTHORIZED", "FORBIDDEN"):
        return EXIT_USAGE
    return EXIT_ROWS_FAILED


def describe(exc: LinksyncError) -> str:
    if isinstance(exc, ApiError):
        rid = f" (requestId {exc.request_id})" if exc.request_id else ""
        status = f"HTTP {exc.status}, " if exc.status is not None else ""
        return f"{exc.constant}: {exc.message} [{status}code {exc.code}]{rid}"
    return str(exc)


def handle_errors(fn: F) -> F:
    """Turn library errors into a clear message and the exit code of DESIGN.md."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except LinksyncError as exc:
            fail(describe(exc), exit_code_for(exc))
        except KeyboardInterrupt:
            err("Interrupted.")
            sys.exit(EXIT_INTERRUPTED)

    return wrapper  # type: ignore[return-value]
