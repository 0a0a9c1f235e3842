"""The page's Starlette app: thin routes over the upload store and the run registry,
and what they share for one server (``UiState``).

    GET    /                                the page (server-rendered, jinja2)
    GET    /static/...                      its script and style sheet (package files)
    GET    /api/state                       target, the visit's files, earlier ones, last run
    POST   /api/uploads?name=NAME           the file as the request body (token)
    POST   /api/uploads/{id}/use            an earlier upload, chosen again (token)
    DELETE /api/uploads/{id}                remove an upload (token)
    POST   /api/check    {choices}          columns of each sheet, every problem (token)
    POST   /api/plan     {choices}          linksync.plan of the uploads (token)
    POST   /api/apply    {plan_id, force}   linksync.apply of that plan, as a run (token)
    (each of the three: "password", the password of encrypted workbooks, for that
    request only: ``linksync.ui.unlock``)
    GET    /api/runs/latest                 the last run's record (404: none yet)
    GET    /api/runs/{id}/events            its progress as server-sent events
    POST   /api/runs/{id}/cancel            ask it to stop (token)
    POST   /api/runs/{id}/undo/plan         the reverse plan of a finished run (``undo``)
    POST   /api/runs/{id}/undo {plan_id}    run that plan: Undo this run (token)
    GET    /runs/{id}/files/{name}          download a file the run wrote

Every request passes ``security.PageGuard`` first. The target is described by its
label only (base URL and profile, or the built-in sandbox): the key is never in a page
or an answer.

Each page served is a new visit (``UploadStore.new_visit``): its id is in the page,
and its script sends it with every request (``X-Linksync-Visit``). The files a step
reads are the visit's own (dropped or picked again in it), never an earlier visit's.

Each step answers JSON: ``data`` (what a script or a test reads) and ``html`` (the
page's fragments, rendered by the server's autoescaped templates: a value from a file
is text, never markup). Reading, validating and planning run in a worker thread, so
the event streams of a run going on are not held up.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from linksync._version import __version__
from linksync.config import Settings, Target
from linksync.errors import LinksyncError, SourceError
from linksync.sync.options import MODES
from linksync.ui.apply_run import PageApply
from linksync.ui.choices import Choices, reading_view
from linksync.ui.runs import Run, RunBusy, RunRegistry
from linksync.ui.security import PageGuard, error_answer
from linksync.ui.steps import CheckView, PageFiles, ShownPlan, check, make_plan, plan_view
from linksync.ui.undo import UNDO_ROUTES, UndoDesk
from linksync.ui.unlock import locked, password_of
from linksync.ui.uploads import KINDS, VISIT_ID, UploadRefused, UploadStore, size_text
from linksync.ui.words import FIELD_LABELS, page_words

HERE = Path(__file__).parent


@dataclass
class UiState:
    """Everything the routes share, for one server. ``journals``: the folder of the
    runs' journals (the command line's ``.linksync/runs`` by default); ``shown``: the
    plan the page showed last (what Apply runs)."""

    settings: Settings
    token: str
    hosts: frozenset[str]
    uploads: UploadStore
    runs: RunRegistry
    journals: Path
    shown: ShownPlan | None = None
    closing: bool = False
    templates: jinja2.Environment = field(
        default_factory=lambda: jinja2.Environment(
            loader=jinja2.FileSystemLoader(HERE / "templates"),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
        )
    )

    @property
    def target(self) -> Target:
        return self.settings.target

    def target_view(self) -> dict[str, Any]:
        """What the banner shows: never the key."""
        return {"label": self.target.label, "sandbox": self.target.is_sandbox}


def ui_state(request: Request) -> UiState:
    """The state the app was made with (``create_ui_app``)."""
    state: UiState = request.app.state.ui
    return state


#: Seconds between two looks at a run's progress for its event stream.
EVENT_TICK_S = 0.25
#: A snapshot is sent at least this often while a run goes (rate, ETA, wait move on).
EVENT_REFRESH_S = 1.0


#: The header the page's script sends its visit in.
VISIT_HEADER = "X-Linksync-Visit"


def visit_of(request: Request) -> str:
    """The visit a request belongs to ("" when it names none); ``ValueError`` for a
    value the page never sends."""
    visit = request.headers.get(VISIT_HEADER, "")
    if VISIT_ID.fullmatch(visit) is None:
        raise ValueError("the page's visit id is not valid: reload the page")
    return visit


async def page(request: Request) -> HTMLResponse:
    ui = ui_state(request)
    visit = ui.uploads.new_visit()
    html = ui.templates.get_template("page.html").render(
        token=ui.token,
        visit=visit,
        target=ui.target_view(),
        version=__version__,
        max_bytes=ui.uploads.max_bytes,
        max_text=size_text(ui.uploads.max_bytes),
        accept=",".join(KINDS),
        uploads=[],
        earlier=[u.to_dict() for u in ui.uploads.earlier(visit)],
        default_domain=ui.settings.default_domain or "",
        check_destinations=ui.settings.profile.check_destinations,
        reading=reading_view(ui.settings.profile),
        modes=MODES,
    )
    return HTMLResponse(html)


def _run_view(run: Run | None) -> dict[str, Any] | None:
    return run.current().to_dict() if run is not None else None


async def api_state(request: Request) -> JSONResponse:
    ui = ui_state(request)
    try:
        visit = visit_of(request)
    except ValueError as exc:
        return error_answer(400, str(exc))
    return JSONResponse(
        {
            "target": ui.target_view(),
            "uploads": [u.to_dict() for u in ui.uploads.chosen(visit)],
            "earlier": [u.to_dict() for u in ui.uploads.earlier(visit)],
            "max_bytes": ui.uploads.max_bytes,
            "last_run": _run_view(ui.runs.latest()),
        }
    )


async def upload(request: Request) -> JSONResponse:
    ui = ui_state(request)
    declared = request.headers.get("content-length")
    try:
        item = await ui.uploads.receive(
            request.query_params.get("name", ""),
            request.stream(),
            int(declared) if declared and declared.isdigit() else None,
            visit=visit_of(request),
        )
    except UploadRefused as exc:
        return error_answer(exc.status, exc.message)
    except ValueError as exc:
        return error_answer(400, str(exc))
    return JSONResponse(item.to_dict(), status_code=201)


async def use_upload(request: Request) -> JSONResponse:
    """An earlier upload, read again in this visit."""
    ui = ui_state(request)
    try:
        visit = visit_of(request)
    except ValueError as exc:
        return error_answer(400, str(exc))
    item = ui.uploads.choose(visit, request.path_params["upload_id"])
    if item is None:
        return error_answer(404, "no such upload: it was removed or replaced")
    return JSONResponse({**item.to_dict(), "said": f"{item.name} is one of your files again."})


async def remove_upload(request: Request) -> Response:
    if not ui_state(request).uploads.remove(request.path_params["upload_id"]):
        return error_answer(404, "no such upload")
    return Response(status_code=204)


async def latest_run(request: Request) -> JSONResponse:
    view = _run_view(ui_state(request).runs.latest())
    return JSONResponse(view) if view is not None else error_answer(404, "no run yet")


def _event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data, sort_keys=True)}\n\n".encode()


async def _events(ui: UiState, run: Run, request: Request) -> AsyncIterator[bytes]:
    """Snapshots while the run goes (on change, and every ``EVENT_REFRESH_S``), then
    one ``end`` event with the final record."""
    loop = asyncio.get_running_loop()
    sent: Any = None
    last = 0.0
    while not run.record.state.over:
        now = loop.time()
        version = run.version
        if version != sent or now - last >= EVENT_REFRESH_S or run.feed.snapshot().wait_s:
            sent, last = version, now
            yield _event("progress", run.current().to_dict())
        if ui.closing or await request.is_disconnected():
            return
        await asyncio.sleep(EVENT_TICK_S)
    yield _event("end", run.current().to_dict())


async def run_events(request: Request) -> Response:
    ui = ui_state(request)
    run = ui.runs.get(request.path_params["run_id"])
    if run is None:
        return error_answer(404, "no such run")
    return StreamingResponse(
        _events(ui, run, request),
        media_type="text/event-stream",
        headers={"X-Accel-Buffering": "no"},
    )


async def cancel_run(request: Request) -> JSONResponse:
    runs, run_id = ui_state(request).runs, request.path_params["run_id"]
    if not runs.cancel(run_id):
        return error_answer(409, "this run is not going; nothing to cancel")
    return JSONResponse(_run_view(runs.get(run_id)), status_code=202)


async def download(request: Request) -> Response:
    ui = ui_state(request)
    name = request.path_params["name"]
    path = ui.runs.file_path(request.path_params["run_id"], name)
    if path is None:
        return error_answer(404, "no such file in this run")
    return FileResponse(path, filename=name, content_disposition_type="attachment")


#: Largest JSON body a step takes (the choices are small).
MAX_BODY = 200_000


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise ValueError("the request is too large")
    data = json.loads(raw) if raw.strip() else {}
    if not isinstance(data, dict):
        raise ValueError("expected a JSON object")
    return data


def _render(ui: UiState, template: str, **values: Any) -> str:
    return ui.templates.get_template(template).render(**values)


def _files(ui: UiState, request: Request) -> PageFiles:
    """The files of the request's visit (``ValueError`` for a bad visit id)."""
    return PageFiles.of(ui.uploads.chosen(visit_of(request)))


def check_fragments(ui: UiState, view: CheckView) -> dict[str, str]:
    return {
        "columns": _render(ui, "_columns.html", sheets=view.sheets, fields=FIELD_LABELS),
        "check": _render(ui, "_check.html", view=view),
    }


async def _asked(request: Request) -> tuple[Choices, PageFiles, str | None] | JSONResponse:
    """The choices sent, the files on the page and the password of encrypted workbooks
    sent with them, or the answer refusing them."""
    try:
        body = await _body(request)
        choices, password = Choices.from_json(body), password_of(body)
        files = _files(ui_state(request), request)
    except (ValueError, LinksyncError) as exc:
        return error_answer(400, page_words(str(exc)))
    if not files.uploads:
        return error_answer(409, "drop or choose a file first")
    return choices, files, password


async def check_step(request: Request) -> JSONResponse:
    ui = ui_state(request)
    asked = await _asked(request)
    if isinstance(asked, JSONResponse):
        return asked
    choices, files, password = asked
    try:
        view = await asyncio.to_thread(check, files, choices, ui.settings, password)
    except LinksyncError as exc:
        return error_answer(400, files.say(str(exc)))
    return JSONResponse({"data": view.to_dict(), "html": check_fragments(ui, view)})


async def plan_step(request: Request) -> JSONResponse:
    ui = ui_state(request)
    asked = await _asked(request)
    if isinstance(asked, JSONResponse):
        return asked
    choices, files, password = asked
    ui.shown = None
    try:
        shown = await asyncio.to_thread(make_plan, files, choices, ui.settings, password)
    except SourceError as exc:
        return error_answer(400, files.source_error(exc, password))
    except LinksyncError as exc:
        return error_answer(400, files.say(str(exc)))
    ui.shown = shown
    view = plan_view(shown, files)
    html = _render(ui, "_plan.html", view=view)
    return JSONResponse({"data": view.to_dict(), "html": {"plan": html}})


async def apply_step(request: Request) -> JSONResponse:
    ui = ui_state(request)
    try:
        body = await _body(request)
        files, password = _files(ui, request), password_of(body)
    except ValueError as exc:
        return error_answer(400, str(exc))
    shown = ui.shown
    if shown is None or body.get("plan_id") != shown.plan_id:
        return error_answer(409, "this is not the plan shown last: show the plan again, then apply")
    if files.ids != shown.upload_ids:
        return error_answer(409, "the files changed since the plan was shown: show the plan again")
    force = body.get("force") is True
    if shown.planned.plan.refused and not force:
        reason = shown.planned.plan.safety.reason
        return error_answer(409, f"the plan crosses a safety limit ({reason}): confirm to apply it")
    env = ui.settings.profile.workbook_password_env
    refused = await asyncio.to_thread(locked, files.uploads, password, profile_env=env)
    if refused is not None:
        return error_answer(400, f"{refused}, then apply")
    source = PageApply(ui.settings, files, shown, ui.journals, force=force, password=password)
    try:
        run = ui.runs.start(source)
    except RunBusy as exc:
        return error_answer(409, str(exc))
    ui.shown = None  # a plan is applied once; the next one is planned afresh
    return JSONResponse(run.current().to_dict(), status_code=202)


def create_ui_app(state: UiState) -> PageGuard:
    """The app of one server, behind its guard."""
    app = Starlette(
        routes=[
            Route("/", page),
            Route("/api/state", api_state),
            Route("/api/uploads", upload, methods=["POST"]),
            Route("/api/uploads/{upload_id}/use", use_upload, methods=["POST"]),
            Route("/api/uploads/{upload_id}", remove_upload, methods=["DELETE"]),
            Route("/api/check", check_step, methods=["POST"]),
            Route("/api/plan", plan_step, methods=["POST"]),
            Route("/api/apply", apply_step, methods=["POST"]),
            Route("/api/runs/latest", latest_run),
            Route("/api/runs/{run_id}/events", run_events),
            Route("/api/runs/{run_id}/cancel", cancel_run, methods=["POST"]),
            Route("/runs/{run_id}/files/{name}", download),
            *UNDO_ROUTES,
            Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
        ]
    )
    app.state.ui = state
    app.state.undo = UndoDesk()
    return PageGuard(app, hosts=state.hosts, token=state.token)
