"""The page's Apply: ``linksync.apply`` of the plan the page showed, as a run of the
page (``RunSource``).

Everything a run of ``linksync apply`` does happens here too, through the same call:
every output checked before the first request, the target's lock, the rows that failed
last time first, the journal (beside the command line's, ``.linksync/runs/`` by
default, named by the page's run id), reports streamed in source order. The run's
folder gets the downloads: the results report in each format, an annotated copy of
each uploaded spreadsheet (short link, status, error and, with QR codes, a QR image
per row) and the zip of QR codes. The uploads are files the run reads: nothing is ever
written to them. An encrypted workbook is read with the password the apply's request
brought, held by the run while it reads and dropped when it ends; it gets no annotated
copy (the copy would hold it decrypted, as ``--annotate`` refuses on the command line),
and the summary says so: the results reports hold its rows.

Cancel (from the page, or the server stopping) sets the run's cancel event: no new
requests, those in flight finish, and every row the run did not send is in the reports
as NOT_ATTEMPTED.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import linksync
from linksync.config import Settings
from linksync.model import RowResult, Status
from linksync.pipeline.events import RunEvents
from linksync.pipeline.request import Hooks, Outputs, Reading, SyncPolicy
from linksync.report.annotate import status_text
from linksync.report.writers import WRITERS
from linksync.sync.plan import Plan
from linksync.sync.results import Results
from linksync.ui.progress import RunFeed, RunOutcome
from linksync.ui.steps import PageFiles, ShownPlan, annotated_name

#: The results report's name in the run's folder (one file per format of ``WRITERS``).
REPORT_STEM = "results"
QR_ZIP = "qr-codes.zip"


def copy_names(names: Sequence[str]) -> list[str]:
    """The annotated copies' names, unique in the run's folder (``-annotated`` keeps
    them apart from the reports and the QR zip; a number, from each other), also where
    case does not tell names apart (macOS, Windows): ``Links.csv`` and ``links.csv``
    would be one file there, the second copy written over the first."""
    used: set[str] = set()
    out = []
    for name in names:
        wanted = annotated_name(name)
        stem, dot, ext = wanted.rpartition(".")
        n = 2
        while wanted.casefold() in used:
            wanted = f"{stem}-{n}{dot}{ext}"
            n += 1
        used.add(wanted.casefold())
        out.append(wanted)
    return out


#: The words of ``outcome_words``, in the order said.
_WORDS = (
    "created", "updated", "replaced", "deleted", "retired", "unchanged", "failed", "invalid",
    "skipped",
)  # fmt: skip


def outcome_words(rows: Sequence[RowResult]) -> str:
    """'14 created, 4 invalid' / '2 updated, 16 unchanged, 3 not attempted' (each row
    as the annotated copy's Status column says it)."""
    counts = Counter(
        "not attempted" if r.status is not Status.OK and r.not_attempted else status_text(r)
        for r in rows
    )
    order = [*_WORDS, "not attempted"]
    parts = [f"{counts[w]} {w}" for w in order if counts[w]]
    return ", ".join(parts) or "no rows"


def run_summary(results: Results, events: PageEvents, head: str = "", kept: str = "") -> str:
    """What the page says of a finished run: what became of its rows, its exit code,
    ``kept`` (an undo's links left alone), why it stopped and its first warnings."""
    code, meaning = results.exit_code, results.exit_meaning
    summary = f"{head}{outcome_words(results.rows)}. Exit code {code}: {meaning}.{kept}"
    if results.stop_sentence:
        summary += f" {results.stop_sentence}"
    return summary + "".join(f" Warning: {text}." for text in events.warnings[:3])


class PageEvents(RunEvents):
    """What the run tells the page while it goes: in words, on the feed."""

    def __init__(self, feed: RunFeed) -> None:
        self.feed = feed
        self.warnings: list[str] = []

    def lock_wait(self, holder: object, seconds: float) -> None:
        self.feed.note("waiting for another run of this target to end")

    def planned(self, plan: Plan) -> None:
        self.feed.note(f"sending {len(plan.writes)} changes")

    def warning(self, text: str) -> None:
        self.warnings.append(text)


@dataclass
class PageApply:
    """``linksync.apply`` of a ``ShownPlan`` (see module docstring)."""

    settings: Settings
    files: PageFiles
    shown: ShownPlan
    journals: Path
    force: bool = False
    kind: str = "apply"
    #: The password of encrypted workbooks, from the apply's request: never shown.
    password: str | None = field(default=None, repr=False)

    def outputs(self, folder: Path) -> tuple[list[Path], list[Path], Path | None]:
        """(reports, annotated copies, QR zip) in ``folder``."""
        reports = [folder / f"{REPORT_STEM}{ext}" for ext in WRITERS]
        copies = [folder / n for n in copy_names(self.files.spreadsheets)]
        qr = folder / QR_ZIP if self.shown.choices.qr else None
        return reports, copies, qr

    def run(self, feed: RunFeed, cancel: threading.Event, folder: Path) -> RunOutcome:
        feed.note("checking the outputs and reading the workspace")
        reports, copies, qr = self.outputs(folder)
        events = PageEvents(feed)
        choices = self.shown.choices
        journal = self.journals / f"{folder.name}.jsonl"
        # the uploads are read for their passwords only: the plan holds the rest
        reading = Reading(mapping=choices.reading.mapping, workbook_password=self.password)
        try:
            results = linksync.apply(
                self.files.sources,
                self.settings,
                plan=self.shown.planned.plan,
                reading=reading,
                sync=SyncPolicy(force=True if self.force else None),
                outputs=Outputs(reports, copies, qr, journal, reads=self.files.paths),
                hooks=Hooks(events, feed, cancel),
            )
        finally:
            self.password = None  # read: the run keeps it no longer
        feed.note(None)
        summary = run_summary(results, events)
        for upload in self.files.encrypted:
            summary += (
                f" No annotated copy of {upload.name}: it is encrypted, and linksync does not "
                "write a decrypted copy of it; the results reports hold its rows."
            )
        # The downloads a marketer wants first: the annotated copies, the QR codes.
        written = [p.name for p in results.files if p.parent == folder]
        written.sort(
            key=lambda name: (not name.startswith(tuple(c.stem for c in copies)), name != QR_ZIP)
        )
        return RunOutcome(self.say(summary), results.exit_code, tuple(written), results.interrupted)

    def say(self, text: str) -> str:
        """A text of this run as the page shows it (``PageFiles.say``): the run's
        registry words its error with it too."""
        return self.files.say(text)
