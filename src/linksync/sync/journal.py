"""The run journal: one JSON object per line, appended and flushed as things happen.

Every completed request of a run is written the moment its answer (or final failure)
arrives, so a run killed at any instant leaves a record of everything it did; the next
run simply plans again and converges. Events:

- ``start``: run id, target, mode, plan counts;
- ``request``: one completed call (all its retries): op, action, domain, slug, row,
  HTTP status, constant, requestId, attempts, short URL (``on_call``, a hook of the
  client's call events: ``linksync.api.events``);
- ``result``: the final result of one row (the report row);
- ``end``: counts by status, duration, interrupted, what stopped the run.

Never holds the API key or a link password.

The journal is the one output that is appended to rather than written atomically: it
is the record of a run as it happens. A journal file given twice gathers both runs;
an existing file that is not a linksync journal is refused, and a symbolic link at the
path is replaced by a new file, never followed.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from linksync.errors import ConfigError
from linksync.rules.timestamps import utc_now
from linksync.safe.outputs import is_journal_file
from linksync.safe.state_folder import make_folder

if TYPE_CHECKING:
    from linksync.api import CallEvent

#: One encoder for every record (sorted keys, text as written).
_ENCODE = json.JSONEncoder(sort_keys=True, ensure_ascii=False).encode

#: Where journals go unless ``--journal FILE`` says otherwise (relative to the cwd).
DEFAULT_RUNS_DIR = Path(".linksync") / "runs"


def new_run_id() -> str:
    """'20260301T020000Z-3fa9c1': sortable by time, unique enough per machine."""
    return f"{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}-{secrets.token_hex(3)}"


def default_journal_path(run_id: str, runs_dir: Path | str = DEFAULT_RUNS_DIR) -> Path:
    return Path(runs_dir) / f"{run_id}.jsonl"


class Journal:
    """Append-only JSONL file; each ``write`` is flushed before it returns."""

    def __init__(self, path: Path | str, run_id: str) -> None:
        self.path = Path(path)
        self.run_id = run_id
        if self.path.is_symlink():
            self.path.unlink()  # replaced, never followed
        elif self.path.is_file() and not is_journal_file(self.path):
            raise ConfigError(f"journal {self.path} exists and is not a linksync journal")
        make_folder(self.path.parent)
        self._file: IO[str] | None = open(self.path, "a", encoding="utf-8")  # noqa: SIM115

    def write(self, event: str, **fields: Any) -> None:
        if self._file is None:
            raise ValueError("journal is closed")
        record = {"ts": utc_now(), "run": self.run_id, "event": event, **fields}
        self._file.write(_ENCODE(record) + "\n")
        self._file.flush()

    def on_call(self, event: CallEvent) -> None:
        """One finished call as a ``request`` record (subscribe it to the client)."""
        labels, link, error = event.labels, event.link, event.error
        self.write(
            "request",
            op=event.kind,
            action=labels.get("action"),
            domain=labels.get("domain"),
            slug=(link.slug if link is not None else None) or labels.get("slug"),
            source=labels.get("source"),
            sheet=labels.get("sheet"),
            row=labels.get("row"),
            status=event.status,
            constant=error.constant if error is not None else None,
            request_id=event.request_id,
            attempts=event.attempts,
            short_url=link.short_url if link is not None else None,
        )

    def sync(self) -> None:
        """Force the journal to disk (called at the end of a run)."""
        if self._file is not None:
            self._file.flush()
            os.fsync(self._file.fileno())

    def close(self) -> None:
        if self._file is not None:
            self.sync()
            self._file.close()
            self._file = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def iter_journal_lines(path: Path | str) -> Iterator[str]:
    """The complete lines of a journal: a last line cut short by a kill is left out."""
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if not line.endswith("\n"):
                break
            yield line


def parse_record(line: str) -> dict[str, Any] | None:
    """One journal line as its record; None for a line that is not a JSON object."""
    try:
        record = json.loads(line)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None
