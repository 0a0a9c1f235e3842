"""The runs of the page: one at a time, in a worker thread, kept on disk.

Each run gets a folder ``<runs folder>/<run id>/`` (by default ``.linksync/ui/`` in the
folder ``linksync ui`` started in) holding the files it wrote (the page's downloads)
and ``run.json``, its record: kind, state, times, last progress, outcome. The record is
written when the run starts, every few seconds while it goes, and when it ends
(atomically, before the run shows as over anywhere), so a closed tab loses
nothing (the run goes on in the server; the page shows it again when reopened) and a
restarted server shows the last run too. A run still marked running when a server
starts was cut short by the previous server's end: it is shown as interrupted.

Files are downloaded by name from the record's list only; a name is a plain file name
inside the run's folder, never a path.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import msgspec

from linksync.errors import LinksyncError
from linksync.rules.timestamps import utc_now
from linksync.safe.outputs import write_text_atomic
from linksync.safe.state_folder import make_folder
from linksync.sync.journal import new_run_id
from linksync.ui.progress import ProgressSnapshot, RunFeed, RunOutcome, RunSource, RunState

log = logging.getLogger("linksync.ui")

RECORD = "run.json"
#: Seconds between two saves of a going run's record.
SAVE_EVERY_S = 2.0


class RunBusy(Exception):
    """Another run of the page is still going."""


@dataclass(frozen=True, slots=True)
class RunRecord:
    """What the page knows of a run (and ``run.json`` holds)."""

    run_id: str
    kind: str
    state: RunState
    started_at: str
    ended_at: str | None = None
    progress: ProgressSnapshot | None = None
    summary: str | None = None
    exit_code: int | None = None
    files: tuple[str, ...] = ()
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        progress = self.progress.to_dict() if self.progress else None
        return {**asdict(self), "state": self.state.value, "progress": progress}


def plain_name(name: str) -> bool:
    """A file name with no folder part, not hidden, not the record itself."""
    return (
        bool(name)
        and "/" not in name
        and "\\" not in name
        and name[0] != "."
        and (name != RECORD and "\x00" not in name)
    )


@dataclass
class Run:
    """A run going on (or just over) in this server."""

    record: RunRecord
    folder: Path
    feed: RunFeed = field(default_factory=RunFeed)
    cancel: threading.Event = field(default_factory=threading.Event)
    ended: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None

    def current(self) -> RunRecord:
        """The record with the progress as of now."""
        if self.record.state.over:
            return self.record
        state = RunState.CANCELLING if self.cancel.is_set() else self.record.state
        progress = self.feed.snapshot(state)  # RUNNING becomes WAITING in a rate-limit pause
        return replace(self.record, state=progress.state, progress=progress)

    @property
    def version(self) -> tuple[int, str, bool]:
        return (self.feed.version, self.record.state.value, self.cancel.is_set())


class RunRegistry:
    """The page's runs (see module docstring)."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self._lock = threading.Lock()
        self._save_lock = threading.Lock()
        self._runs: dict[str, Run] = {}
        self._latest: str | None = None
        past = self._load_latest()
        if past is not None:
            self._runs[past.record.run_id] = past
            self._latest = past.record.run_id

    # --- reading ----------------------------------------------------------------------

    def get(self, run_id: str) -> Run | None:
        with self._lock:
            return self._runs.get(run_id)

    def latest(self) -> Run | None:
        with self._lock:
            return self._runs.get(self._latest) if self._latest else None

    def file_path(self, run_id: str, name: str) -> Path | None:
        """The path of a file a run listed, or None (unknown run or name, file gone)."""
        run = self.get(run_id)
        if run is None or name not in run.record.files or not plain_name(name):
            return None
        path = run.folder / name
        return path if path.is_file() and not path.is_symlink() else None

    # --- running ----------------------------------------------------------------------

    def start(self, source: RunSource) -> Run:
        """Start ``source`` in a worker thread; ``RunBusy`` while another run goes."""
        with self._lock:
            current = self._runs.get(self._latest) if self._latest else None
            if current is not None and not current.record.state.over:
                held = current.record
                raise RunBusy(f"a {held.kind} run is still going ({held.run_id})")
            run_id = new_run_id()
            folder = self.folder / run_id
            make_folder(self.folder)
            folder.mkdir(exist_ok=False)
            record = RunRecord(run_id, source.kind, RunState.RUNNING, utc_now())
            run = Run(record, folder)
            self._runs[run_id] = run
            self._latest = run_id
        self._save(run)
        run.thread = threading.Thread(
            target=self._work, args=(run, source), name=f"linksync-ui-{run_id}", daemon=True
        )
        run.thread.start()
        threading.Thread(target=self._keep_saved, args=(run,), daemon=True).start()
        return run

    def _keep_saved(self, run: Run) -> None:
        while not run.ended.wait(SAVE_EVERY_S):
            try:
                self._save(run)
            except OSError:
                continue  # the record at the end is the one that counts

    def cancel(self, run_id: str) -> bool:
        """Ask a run to stop; False when there is no such run going."""
        run = self.get(run_id)
        if run is None or run.record.state.over:
            return False
        run.cancel.set()
        run.feed.note("cancelling: no new requests; waiting for those in flight")
        return True

    def close(self, timeout: float = 30.0) -> None:
        """The server stops: cancel a run going, wait for it, record it as interrupted
        when it did not end in time."""
        run = self.latest()
        if run is None or run.record.state.over or run.thread is None:
            return
        run.cancel.set()
        run.thread.join(timeout)
        if not run.record.state.over:
            self._end(run, replace(run.current(), state=RunState.INTERRUPTED, ended_at=utc_now()))

    def _work(self, run: Run, source: RunSource) -> None:
        try:
            outcome = source.run(run.feed, run.cancel, run.folder)
            files = tuple(outcome.files)
            bad = [f for f in files if not plain_name(f) or not (run.folder / f).is_file()]
            if bad:
                raise ValueError(f"the run listed files it did not write in its folder: {bad}")
            state = RunState.CANCELLED if outcome.cancelled else RunState.FINISHED
            record = self._ended(run, state, outcome=outcome)
        except Exception as exc:  # the page shows why, the server goes on
            why = str(exc) if isinstance(exc, LinksyncError) else f"{type(exc).__name__}: {exc}"
            say = getattr(source, "say", None)  # the source's words for the page
            record = self._ended(run, RunState.FAILED, error=say(why) if say else why)
        self._end(run, record)

    def _ended(
        self,
        run: Run,
        state: RunState,
        *,
        outcome: RunOutcome | None = None,
        error: str | None = None,
    ) -> RunRecord:
        return replace(
            run.record,
            state=state,
            ended_at=utc_now(),
            progress=run.feed.snapshot(state),
            summary=outcome.summary if outcome else None,
            exit_code=outcome.exit_code if outcome else None,
            files=tuple(outcome.files) if outcome else (),
            error=error,
        )

    def _end(self, run: Run, record: RunRecord) -> None:
        """Make ``record`` the run's last: on disk first, then in memory, so whatever a
        reader sees as over (this server's page, a page reloaded, a server restarted)
        is already saved. The first end wins (the worker's, or the server's close)."""
        with self._save_lock:
            if run.record.state.over:
                return
            try:
                self._write(run, record)
            except OSError:
                log.warning("could not save the record of run %s", run.record.run_id)
            with self._lock:
                run.record = record
            run.ended.set()

    # --- on disk ----------------------------------------------------------------------

    def _save(self, run: Run) -> None:
        """Write the record as of now, unless the run has ended (a periodic save never
        replaces the final record)."""
        with self._save_lock:
            if run.ended.is_set():
                return
            self._write(run, run.current())

    def _write(self, run: Run, record: RunRecord) -> None:
        text = json.dumps(record.to_dict(), indent=2, sort_keys=True) + "\n"
        write_text_atomic(run.folder / RECORD, text)

    def _load_latest(self) -> Run | None:
        if not self.folder.is_dir():
            return None
        for folder in sorted((p for p in self.folder.iterdir() if p.is_dir()), reverse=True):
            try:
                record = msgspec.json.decode((folder / RECORD).read_bytes(), type=RunRecord)
            except (OSError, msgspec.DecodeError):
                continue  # not a run folder of the page
            if record.run_id != folder.name:
                continue
            run = Run(record, folder)
            if not record.state.over:
                run.record = replace(record, state=RunState.INTERRUPTED, ended_at=None)
                self._save(run)
            return run
        return None
