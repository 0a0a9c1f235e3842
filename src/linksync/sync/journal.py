"""The run journal: one JSON object per line, appended and flushed as things happen.

Every completed request of a run is written the moment its answer (or final failure)
arrives, so a run killed at any instant leaves a record of everything it did; the next
run simply plans again and converges. Events:

- ``start``: run id, target, mode, plan counts;
- ``request``: one completed call (all its retries): op, action, domain, slug, row,
  HTTP status, constant, requestId, attempts, short URL (``on_call``, a hook of the
  client's call events: ``linksync.api.events``);
- ``result``: the final result of one row (the report row); a row whose link the run
  wrote also holds ``before`` and ``after``, what the link held before the run wrote it
  and what the run left (``WrittenLinks.undo_fields``), which ``linksync undo`` reads;
- ``end``: counts by status, duration, interrupted, what stopped the run.

Never holds the API key or a link password (only whether a link had one).

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
from typing import TYPE_CHECKING, Any

from linksync.errors import ConfigError
from linksync.model import Action, LinkKey, RemoteLink, RowResult
from linksync.rules.timestamps import utc_now
from linksync.safe.outputs import is_journal_file
from linksync.safe.state_folder import make_folder
from linksync.sync.jsontext import one_line

if TYPE_CHECKING:
    from linksync.api import CallEvent
    from linksync.sync.plan import Change

#: How the journal is opened: appended to, created if missing, bytes as written.
_APPEND = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0)

#: One encoder for every record (sorted keys, text as written).
_ENCODE = one_line(sort_keys=True)

#: Where journals go unless ``--journal FILE`` says otherwise (relative to the cwd).
DEFAULT_RUNS_DIR = Path(".linksync") / "runs"

#: The ``format`` of the ``start`` record: 2 since ``result`` records hold what each
#: written link held before (a journal without it cannot be undone).
JOURNAL_FORMAT = 2

#: What a journal records of a link (wire names): every field a run may write, and
#: whether a password gates it (the password itself is never returned).
STATE_FIELDS: tuple[str, ...] = (
    "url", "description", "tags", "apple", "google", "expiresAt", "hasPassword",
)  # fmt: skip
#: A changed field (``FieldChange.field``) -> the name a journal records it by.
_RECORDED_AS = {"expires_at": "expiresAt", "password": "hasPassword"}
_ATTRIBUTE = {"expiresAt": "expires_at", "hasPassword": "has_password"}


def link_state(link: RemoteLink, names: tuple[str, ...] = STATE_FIELDS) -> dict[str, Any]:
    """``names`` of ``link`` (wire names), tags as a list: what a journal records."""
    out = {name: getattr(link, _ATTRIBUTE.get(name, name)) for name in names}
    if "tags" in out:
        out["tags"] = list(out["tags"])
    return out


class WrittenLinks:
    """The link each write of a run left, from the client's call events (subscribe
    ``on_call``): a create's or update's answer, or None once deleted. A row's journal
    record takes its link's entry (``undo_fields``)."""

    def __init__(self) -> None:
        self._links: dict[LinkKey, RemoteLink | None] = {}

    def on_call(self, event: CallEvent) -> None:
        if not event.ok or not event.is_write:
            return
        if event.kind.startswith("DELETE"):
            slug = event.labels.get("slug")
            if slug:
                self._links[LinkKey.of(event.labels.get("domain"), str(slug))] = None
        elif event.link is not None:
            self._links[event.link.key] = event.link

    def undo_fields(self, ch: Change, result: RowResult) -> dict[str, Any]:
        """``before`` and ``after`` of the link row ``ch`` wrote ({} when it wrote
        none): the fields it changed (an update, a retire) or every field (a create, a
        delete, a replace), as the plan saw them (None: created, or a link another
        writer made meanwhile) and as the service answered the last write (None:
        deleted; with its ``updatedAt``)."""
        key = LinkKey.of(result.domain, result.slug) if result.slug else None
        if key is None or key not in self._links:
            return {}
        after = self._links.pop(key)
        names = STATE_FIELDS
        if result.action in (Action.UPDATE, Action.RETIRE):
            names = tuple(dict.fromkeys(_RECORDED_AS.get(f, f) for f in result.changed_fields))
        remote = ch.remote if result.action is ch.action else None
        before = link_state(remote, names) if remote is not None else None
        state = None
        if after is not None:
            state = {**link_state(after, names), "updatedAt": after.updated_at}
        return {"before": before, "after": state}


def new_run_id() -> str:
    """'20260301T020000Z-3fa9c1': sortable by time, unique enough per machine."""
    return f"{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}-{secrets.token_hex(3)}"


def default_journal_path(run_id: str, runs_dir: Path | str = DEFAULT_RUNS_DIR) -> Path:
    return Path(runs_dir) / f"{run_id}.jsonl"


class Journal:
    """Append-only JSONL file; each ``write`` is in the file (one ``write`` system
    call, no buffer of this process) before it returns."""

    def __init__(self, path: Path | str, run_id: str) -> None:
        self.path = Path(path)
        self.run_id = run_id
        if self.path.is_symlink():
            self.path.unlink()  # replaced, never followed
        elif self.path.is_file() and not is_journal_file(self.path):
            raise ConfigError(f"journal {self.path} exists and is not a linksync journal")
        make_folder(self.path.parent)
        self._fd: int | None = os.open(self.path, _APPEND, 0o666)

    def write(self, event: str, **fields: Any) -> None:
        if self._fd is None:
            raise ValueError("journal is closed")
        record = {"ts": utc_now(), "run": self.run_id, "event": event, **fields}
        line = (_ENCODE(record) + "\n").encode("utf-8")
        try:
            written = os.write(self._fd, line)
            while written < len(line):  # a short write (a full disk, a signal): the rest
                line = line[written:]
                written = os.write(self._fd, line)
        except OSError as exc:  # a full disk names no file: say which one
            raise OSError(exc.errno, f"the journal: {exc.strerror}", str(self.path)) from exc

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
        if self._fd is not None:
            os.fsync(self._fd)

    def close(self) -> None:
        if self._fd is not None:
            self.sync()
            os.close(self._fd)
            self._fd = None

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
