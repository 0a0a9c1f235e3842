"""Logging for unattended runs: text for people, JSON lines for log collectors.

``setup_logging("json")`` makes the ``linksync`` logger write one JSON object per line
(``ts``, ``level``, ``event``, ``logger``, ``message``, plus the event's fields) to
stderr. The sync engine emits four events through the typed helpers below::

    run_start    target, mode, dry_run, sources, run_id
    plan_counts  counts (per action), total
    row_failed   source, sheet, row, domain, slug, action, error_constant, ..., repeat
    run_end      counts (per status), duration_s, exit_code, requests; error_constant
                 when an error stopped the run (counts: what it wrote before)

Each record's message is a sentence with its facts (``linksync.logs.sentences``), so
any handler, the standard library's own included, shows what happened::

    run started: apply of campaign.xlsx against built-in sandbox, mode upsert
    plan: 3 create, 1 update, 10 unchanged
    row 12 of campaign.xlsx (sheet Links) failed: SLUG_EXISTS: ... (create lnk.test/x, HTTP 409)
    run ended: 13 ok, 1 failed in 2.1 s, exit code 1, 16 requests

``text`` writes that sentence, then `` | event=NAME`` and the fields as ``key=value``.

With ``json``, stderr carries JSON lines only: the command line's own messages (the
target, the plan, warnings, errors, where the journal is) go through ``console_line``,
which writes them as ``{"event": "message" | "error", "message": ...}`` lines then.

In a run over several targets, every line a target logs carries its name as
``target_name`` (``target_named``).

Every line passes through a redaction step: each secret of the ``Secrets`` the handler
was given (the API key: the command adds it as soon as it is known) is replaced by
``***`` wherever it appears, in fields, messages and tracebacks alike.

Layer: beside ``api``, ``sandbox`` and ``sources`` (a package of its own so that a
command's first line need not load the report writers). It may import model and safe,
nothing else of linksync; reports, the pipeline and the command line import it.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, Literal, TextIO

from linksync.logs.sentences import sentence
from linksync.model import RowResult, plain
from linksync.safe.secrets import Secrets

LogFormat = Literal["text", "json", "off"]

LOGGER_NAME = "linksync"

_RESERVED_RECORD_KEYS = frozenset({"ts", "level", "event", "logger", "message"})


def _timestamp(record: logging.LogRecord) -> str:
    ts = datetime.fromtimestamp(record.created, UTC)
    return ts.isoformat(timespec="milliseconds").replace("+00:00", "Z")


#: The name of the target of a run over several whose thread logs (``target_named``).
_TARGET_NAME: ContextVar[str | None] = ContextVar("linksync_target_name", default=None)


@contextmanager
def target_named(name: str) -> Iterator[None]:
    """While one target of a run over several runs (in its thread, and the tasks and
    threads it starts), every line it logs carries ``target_name``: two targets on one
    service log the same ``target`` label, and their lines interleave."""
    token = _TARGET_NAME.set(name)
    try:
        yield
    finally:
        _TARGET_NAME.reset(token)


def _fields_of(record: logging.LogRecord) -> dict[str, Any]:
    fields = getattr(record, "fields", None)
    out = dict(fields) if isinstance(fields, Mapping) else {}
    name = _TARGET_NAME.get()
    return {"target_name": name, **out} if name is not None else out


def _error_text(formatter: logging.Formatter, record: logging.LogRecord) -> str | None:
    if record.exc_text:
        return record.exc_text
    if record.exc_info:
        return formatter.formatException(record.exc_info)
    return None


class JsonFormatter(logging.Formatter):
    """One JSON object per record: ts, level, event, logger, then the fields."""

    def format(self, record: logging.LogRecord) -> str:
        event = getattr(record, "event", None)
        out: dict[str, Any] = {
            "ts": _timestamp(record),
            "level": record.levelname.lower(),
            "event": event if isinstance(event, str) else "message",
            "logger": record.name,
        }
        message = record.getMessage()
        if message != out["event"]:
            out["message"] = message
        for key, value in _fields_of(record).items():
            name = key if key not in _RESERVED_RECORD_KEYS else f"field_{key}"
            out[name] = plain(value)  # anything else JSON has no type for: its str()
        error = _error_text(self, record)
        if error:
            out["error"] = error
        return json.dumps(out, ensure_ascii=False, sort_keys=False, default=str)


class TextFormatter(logging.Formatter):
    """'2026-03-01T02:00:00.123Z info run ended: 2 ok in 1.2 s, exit code 0 |
    event=run_end counts={"ok": 2} duration_s=1.2 exit_code=0' (one line)."""

    def format(self, record: logging.LogRecord) -> str:
        parts = [_timestamp(record), record.levelname.lower(), record.getMessage()]
        event = getattr(record, "event", None)
        if isinstance(event, str) and event not in ("message", record.getMessage()):
            parts.append(f"| event={event}")
        for key, value in _fields_of(record).items():
            rendered = json.dumps(plain(value), ensure_ascii=False, default=str)
            if isinstance(value, str) and value and " " not in value and '"' not in value:
                rendered = value
            parts.append(f"{key}={rendered}")
        line = " ".join(parts)
        error = _error_text(self, record)
        if error:
            line += "\n" + error
        return line


class RedactingHandler(logging.Handler):
    """Writes formatted records to a stream (stderr by default, looked up at each write
    so it follows a replaced ``sys.stderr``), with every secret replaced."""

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        secrets: Secrets | None = None,
    ) -> None:
        super().__init__()
        self._stream = stream
        self.secrets = secrets if secrets is not None else Secrets()

    @property
    def stream(self) -> TextIO:
        return self._stream if self._stream is not None else sys.stderr

    def redacted(self, record: logging.LogRecord) -> logging.LogRecord:
        """A copy of ``record`` whose message, fields and traceback hold no secret.

        Redacting values before formatting matters: a secret with a quote or a
        backslash would be escaped by JSON and escape a search of the final line.
        """
        copy = logging.makeLogRecord(record.__dict__)
        copy.msg = self.secrets.redact(record.getMessage())
        copy.args = None
        fields = getattr(record, "fields", None)
        if isinstance(fields, Mapping):
            copy.fields = self.secrets.redact_value(fields)
        error = _error_text(self.formatter or logging.Formatter(), record)
        copy.exc_info = None
        copy.exc_text = self.secrets.redact(error) if error else None
        return copy

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.secrets.redact(self.format(self.redacted(record)))
            stream = self.stream
            stream.write(line + "\n")
            stream.flush()
        except Exception:
            self.handleError(record)


class _Off(logging.NullHandler):
    """The handler of ``setup_logging("off")``."""


def setup_logging(
    format: LogFormat = "text",
    level: int | str = logging.INFO,
    stream: TextIO | None = None,
    *,
    secrets: Secrets | None = None,
) -> logging.Logger:
    """Configure the ``linksync`` logger and return it.

    Replaces any handler a previous call installed (so calling it once per command is
    safe) and stops propagation to the root logger, so each record is written once.
    ``stream`` defaults to the current ``sys.stderr``. ``"off"`` writes nothing (for a
    command whose human output already says it all: without it, Python would print
    warnings such as ``row_failed`` bare on stderr).
    """
    if format not in ("text", "json", "off"):
        raise ValueError(f"unknown log format {format!r} (use text, json or off)")
    logger = logging.getLogger(LOGGER_NAME)
    for old in [h for h in logger.handlers if isinstance(h, RedactingHandler | _Off)]:
        logger.removeHandler(old)
    logger.propagate = False
    # Asked for, so on: a logging.config.dictConfig elsewhere in the process (a host
    # application, a tool run in-process) disables every logger it does not name.
    for name, known in logging.Logger.manager.loggerDict.items():
        if isinstance(known, logging.Logger) and name.split(".")[0] == LOGGER_NAME:
            known.disabled = False
    if format == "off":
        logger.addHandler(_Off())
        return logger
    handler = RedactingHandler(stream, secrets=secrets)
    handler.setFormatter(JsonFormatter() if format == "json" else TextFormatter())
    logger.addHandler(handler)
    logger.setLevel(level.upper() if isinstance(level, str) else level)
    return logger


def json_active(logger: logging.Logger | None = None) -> bool:
    """Whether ``setup_logging("json")`` is in force (stderr must carry JSON only)."""
    logger = logger or logging.getLogger(LOGGER_NAME)
    return any(
        isinstance(h, RedactingHandler) and isinstance(h.formatter, JsonFormatter)
        for h in logger.handlers
    )


def console_line(text: str, *, error: bool = False) -> bool:
    """Write a console message as a JSON log line when JSON logging is on (True); False
    when it is not (the caller prints ``text`` itself)."""
    logger = logging.getLogger(LOGGER_NAME)
    if not json_active(logger):
        return False
    level = logging.ERROR if error else logging.INFO
    logger.log(level, text, extra={"event": "error" if error else "message"})
    return True


def get_logger(name: str | None = None) -> logging.Logger:
    """The ``linksync`` logger, or a child of it (``linksync.sync``)."""
    return logging.getLogger(f"{LOGGER_NAME}.{name}" if name else LOGGER_NAME)


def log_event(
    logger: logging.Logger,
    event: str,
    text: str | None = None,
    /,
    *,
    level: int = logging.INFO,
    **fields: Any,
) -> None:
    """Emit one structured event: the message is ``text``, or the event's sentence made
    of its fields (``linksync.logs.sentences``); the name and the fields ride along."""
    if logger.isEnabledFor(level):
        message = text if text is not None else sentence(event, fields)
        logger.log(level, "%s", message, extra={"event": event, "fields": fields})


# --- the sync engine's events ---------------------------------------------------------


def log_run_start(
    logger: logging.Logger,
    *,
    target: str,
    mode: str,
    dry_run: bool,
    sources: Iterable[str] = (),
    run_id: str | None = None,
) -> None:
    log_event(
        logger,
        "run_start",
        target=target,
        mode=mode,
        dry_run=dry_run,
        sources=list(sources),
        run_id=run_id,
    )


def log_plan_counts(logger: logging.Logger, counts: Mapping[str, int]) -> None:
    """Counts per action (create, update, replace, delete, unchanged, invalid, skip)."""
    ordered = {str(k): int(v) for k, v in sorted(counts.items())}
    log_event(logger, "plan_counts", counts=ordered, total=sum(ordered.values()))


def log_row_failed(logger: logging.Logger, result: RowResult, *, repeat: bool = False) -> None:
    """One failed or invalid row; ``repeat`` when it also failed in the last run."""
    # The report row without the link's URLs and changed fields, in report column order.
    fields = {
        key: value
        for key, value in result.to_dict().items()
        if key not in ("short_url", "url", "changed_fields")
    }
    log_event(logger, "row_failed", level=logging.WARNING, repeat=repeat, **fields)


def log_run_end(
    logger: logging.Logger,
    *,
    counts: Mapping[str, int],
    duration_s: float,
    exit_code: int,
    requests: int | None = None,
    run_id: str | None = None,
    error_constant: str | None = None,
    reason: str | None = None,
) -> None:
    """Counts per status (ok, failed, skipped, invalid), duration and the exit code; for
    a run an error stopped, the error's constant and the counts of what it wrote (then
    at level error), and the ``reason`` when no other line says it."""
    stopped: dict[str, Any] = {"error_constant": error_constant} if error_constant else {}
    if reason:  # what stopped it, in words (a target of several that could not start)
        stopped["reason"] = reason
    log_event(
        logger,
        "run_end",
        level=logging.ERROR if error_constant else logging.INFO,
        counts={str(k): int(v) for k, v in sorted(counts.items())},
        duration_s=round(duration_s, 3),
        exit_code=exit_code,
        requests=requests,
        run_id=run_id,
        **stopped,
    )
