"""The page's "Undo this run": the reverse plan of a finished run, shown first, then
confirmed and run as a run of the page.

    POST /api/runs/{id}/undo/plan            linksync.plan_undo of that run (token)
    POST /api/runs/{id}/undo    {plan_id}    linksync.undo of it, as a run (token)

A page run's journal is ``<journals>/<page run id>.jsonl`` (``apply_run.PageApply``);
an undo started here has its own, so an undo can be undone from the page too. The plan
shown stays in the server (``ShownUndo``); the undo recomputes it under the target's
lock, as ``linksync undo`` does, and sends it only when it is the plan shown: when the
workspace moved in between, nothing is sent and the page says to show the plan again.
A link changed since the run is left as it is and named, in the plan and in the
run's summary. Registered by ``linksync.ui.app.create_ui_app`` (``UNDO_ROUTES``).
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import jinja2
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

import linksync
from linksync.config import Settings
from linksync.errors import ConfigError, LinksyncError
from linksync.model import Action
from linksync.pipeline.events import RunEvents
from linksync.pipeline.request import Hooks, Outputs
from linksync.report.writers import WRITERS
from linksync.sync.plan import Change, Plan
from linksync.ui.apply_run import REPORT_STEM, PageEvents, run_summary
from linksync.ui.progress import RunFeed, RunOutcome
from linksync.ui.runs import RunBusy, RunRegistry
from linksync.ui.security import error_answer
from linksync.ui.steps import field_lines
from linksync.ui.words import page_words

#: The kinds of page runs that wrote to the workspace, and so can be undone.
UNDOABLE_KINDS = frozenset({"apply", "undo"})
#: Changes listed on the page at most (the reports of the undo hold every row).
MAX_ROWS = 500
MOVED = (
    "Nothing undone: the workspace changed since the undo plan was shown. "
    "Show the plan again (Undo this run), then confirm."
)


#: An upload's temporary folder in a path (``UploadStore``: ``<folder>/<id>/<name>``):
#: the page names an uploaded file by its name alone, as it was uploaded.
_UPLOAD_FOLDER = re.compile(
    r"(?:[A-Za-z]:)?[^\s,'\"]*linksync-ui-uploads-[^/\\\s]+[/\\][^/\\\s]+[/\\]"
)


def say(text: str) -> str:
    """``text`` as the page shows it: uploads by their names, flags by the page's
    controls."""
    return page_words(_UPLOAD_FOLDER.sub("", text))


class UndoHost(Protocol):
    """What the undo routes use of the page's state (``linksync.ui.app.UiState``)."""

    settings: Settings
    journals: Path
    runs: RunRegistry
    templates: jinja2.Environment


def plan_key(plan: Plan) -> tuple[tuple[str, str | None, str | None, str], ...]:
    """What a plan would send, to tell the plan confirmed from a plan made again."""
    return tuple(
        (ch.action.value, ch.domain, ch.slug, json.dumps(dict(ch.payload), sort_keys=True))
        for ch in plan.writes
    )


@dataclass(frozen=True)
class ShownUndo:
    """The undo plan the page showed last: of which run, and what it sends."""

    plan_id: str
    run_id: str
    journal: Path
    key: tuple[tuple[str, str | None, str | None, str], ...]


@dataclass
class UndoDesk:
    """The undo plan shown last, for one server (``app.state.undo``)."""

    shown: ShownUndo | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass(frozen=True, slots=True)
class UndoRow:
    """One line of the undo plan's table."""

    action: str
    link: str
    fields: tuple[str, ...]
    message: str


def undo_row(ch: Change) -> UndoRow:
    said = [*ch.notes, *([ch.reason] if ch.reason else [])]
    fields = field_lines(ch, (Action.CREATE,))  # a link replaced back: old -> new only
    return UndoRow(ch.action.value, ch.label(), fields, say("; ".join(said)))


def left_alone(rows: Sequence[Any]) -> list[str]:
    """The links an undo left as they are (a ``skip`` row), by their label."""
    return [f"{r.domain}/{r.slug}" for r in rows if r.action is Action.SKIP]


class UndoEvents(PageEvents):
    """A page run's events that confirm only the plan the page showed."""

    def __init__(self, feed: RunFeed, key: tuple[Any, ...]) -> None:
        super().__init__(feed)
        self.key = key
        self.moved = False

    def confirm(self, plan: Plan) -> bool:
        self.moved = plan_key(plan) != self.key
        return not self.moved


@dataclass
class PageUndo:
    """``linksync.undo`` of a page run, as a run of the page (``RunSource``)."""

    settings: Settings
    shown: ShownUndo
    journals: Path
    kind: str = "undo"

    def run(self, feed: RunFeed, cancel: threading.Event, folder: Path) -> RunOutcome:
        feed.note("reading the run's journal and the links it wrote")
        reports = [folder / f"{REPORT_STEM}{ext}" for ext in WRITERS]
        events = UndoEvents(feed, self.shown.key)
        results = linksync.undo(
            self.shown.journal,
            self.settings,
            runs_dir=self.journals,
            outputs=Outputs(reports, journal=self.journals / f"{folder.name}.jsonl"),
            hooks=Hooks(events, feed, cancel),
        )
        feed.note(None)
        if events.moved:
            raise ConfigError(MOVED)
        kept = left_alone(results.rows)
        summary = run_summary(
            results,
            events,
            f"Undo of run {self.shown.run_id}: ",
            f" Left as they are, changed since the run: {', '.join(kept)}." if kept else "",
        )
        written = sorted(p.name for p in results.files if p.parent == folder)
        return RunOutcome(say(summary), results.exit_code, tuple(written), results.interrupted)


def _host(request: Request) -> UndoHost:
    host: UndoHost = request.app.state.ui
    return host


def _desk(request: Request) -> UndoDesk:
    desk: UndoDesk = request.app.state.undo
    return desk


def _journal(host: UndoHost, run_id: str) -> Path | str:
    """The journal of the page run ``run_id``, or why it cannot be undone."""
    run = host.runs.get(run_id)
    if run is None:
        return "no such run"
    if run.record.kind not in UNDOABLE_KINDS or not run.record.state.over:
        return f"a {run.record.kind} run that is {run.record.state.value} cannot be undone"
    journal = host.journals / f"{run_id}.jsonl"
    if not journal.is_file():
        return "this run left no journal: nothing it wrote was recorded, so nothing can be undone"
    return journal


class _Said(RunEvents):
    def __init__(self) -> None:
        self.said: list[str] = []

    def note(self, text: str) -> None:
        self.said.append(text)

    notice = warning = note


async def undo_plan(request: Request) -> JSONResponse:
    """The reverse plan of a page run, as the page shows it before the confirm."""
    host, desk = _host(request), _desk(request)
    run_id = request.path_params["run_id"]
    journal = _journal(host, run_id)
    if isinstance(journal, str):
        return error_answer(404 if journal == "no such run" else 409, journal)
    said = _Said()
    try:
        plan = await asyncio.to_thread(
            linksync.plan_undo, journal, host.settings, runs_dir=host.journals, events=said
        )
    except LinksyncError as exc:
        return error_answer(400, page_words(str(exc)))
    shown = ShownUndo(secrets.token_hex(8), run_id, journal, plan_key(plan))
    with desk.lock:
        desk.shown = shown if plan.writes else None
    listed = [ch for ch in plan.changes if ch.action is not Action.UNCHANGED]
    view = {
        "plan_id": shown.plan_id,
        "run_id": run_id,
        "counts": {k: n for k, n in plan.counts.items() if n},
        "writes": len(plan.writes),
        "said": [say(s) for s in said.said],
        "more": max(0, len(listed) - MAX_ROWS),
    }
    rows = [undo_row(ch) for ch in listed[:MAX_ROWS]]
    html = host.templates.get_template("_undo.html").render(view=view, rows=rows)
    return JSONResponse({"data": {**view, "left_alone": left_alone(listed)}, "html": html})


async def undo_start(request: Request) -> JSONResponse:
    """Run the undo plan the page showed last (``plan_id``), when it is still the plan:
    the workspace is read again first (and once more under the lock, by the run)."""
    host, desk = _host(request), _desk(request)
    try:
        body = json.loads(await request.body() or b"{}")
    except ValueError:
        return error_answer(400, "expected a JSON object")
    shown = desk.shown
    if (
        shown is None
        or not isinstance(body, dict)
        or body.get("plan_id") != shown.plan_id
        or shown.run_id != request.path_params["run_id"]
    ):
        return error_answer(409, "this is not the undo plan shown last: show it again, then undo")
    try:
        plan = await asyncio.to_thread(
            linksync.plan_undo, shown.journal, host.settings, runs_dir=host.journals
        )
    except LinksyncError as exc:
        return error_answer(400, page_words(str(exc)))
    if plan_key(plan) != shown.key:
        return error_answer(409, MOVED)
    with desk.lock:
        if desk.shown is not shown:
            return error_answer(409, "this undo plan was run already: show it again, then undo")
        try:
            run = host.runs.start(PageUndo(host.settings, shown, host.journals))
        except RunBusy as exc:
            return error_answer(409, str(exc))
        desk.shown = None  # an undo plan is run once
    return JSONResponse(run.current().to_dict(), status_code=202)


UNDO_ROUTES = (
    Route("/api/runs/{run_id}/undo/plan", undo_plan, methods=["POST"]),
    Route("/api/runs/{run_id}/undo", undo_start, methods=["POST"]),
)
