"""The page's Starlette app: thin routes over the upload store and the run registry.

    GET    /                                the page (server-rendered, jinja2)
    GET    /static/...                      its script and style sheet (package files)
    GET    /api/state                       target, uploads, last run (JSON)
    POST   /api/uploads?name=NAME           the file as the request body (token)
    DELETE /api/uploads/{id}                remove an upload (token)
    POST   /api/check, /api/plan, /api/apply   the steps (token; ``step_routes``)
    GET    /api/runs/latest                 the last run's record (404: none yet)
    GET    /api/runs/{id}/events            its progress as server-sent events
    POST   /api/runs/{id}/cancel            ask it to stop (token)
    GET    /runs/{id}/files/{name}          download a file the run wrote

Every request passes ``security.PageGuard`` first. The target is described by its
label only (base URL and profile, or the built-in sandbox): the key is never in a page
or an answer.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

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
from linksync.ui.runs import Run
from linksync.ui.security import PageGuard
from linksync.ui.state import HERE, UiState, error_answer, ui_state
from linksync.ui.step_routes import apply_step, check_step, page_options, plan_step
from linksync.ui.uploads import KINDS, UploadRefused, size_text

#: Seconds between two looks at a run's progress for its event stream.
EVENT_TICK_S = 0.25
#: A snapshot is sent at least this often while a run goes (rate, ETA, wait move on).
EVENT_REFRESH_S = 1.0


async def page(request: Request) -> HTMLResponse:
    ui = ui_state(request)
    html = ui.templates.get_template("page.html").render(
        token=ui.token,
        target=ui.target_view(),
        version=__version__,
        max_bytes=ui.uploads.max_bytes,
        max_text=size_text(ui.uploads.max_bytes),
        accept=",".join(KINDS),
        uploads=[u.to_dict() for u in ui.uploads.list()],
        default_domain=ui.settings.default_domain or "",
        check_destinations=ui.settings.profile.check_destinations,
        **page_options(),
    )
    return HTMLResponse(html)


def _run_view(run: Run | None) -> dict[str, Any] | None:
    return run.current().to_dict() if run is not None else None


async def api_state(request: Request) -> JSONResponse:
    ui = ui_state(request)
    return JSONResponse(
        {
            "target": ui.target_view(),
            "uploads": [u.to_dict() for u in ui.uploads.list()],
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
        )
    except UploadRefused as exc:
        return error_answer(exc.status, exc.message)
    return JSONResponse(item.to_dict(), status_code=201)


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
    ui = ui_state(request)
    run_id = request.path_params["run_id"]
    if not ui.runs.cancel(run_id):
        return error_answer(409, "this run is not going; nothing to cancel")
    run = ui.runs.get(run_id)
    return JSONResponse(_run_view(run), status_code=202)


async def download(request: Request) -> Response:
    ui = ui_state(request)
    name = request.path_params["name"]
    path = ui.runs.file_path(request.path_params["run_id"], name)
    if path is None:
        return error_answer(404, "no such file in this run")
    return FileResponse(path, filename=name, content_disposition_type="attachment")


def create_ui_app(state: UiState) -> PageGuard:
    """The app of one server, behind its guard."""
    app = Starlette(
        routes=[
            Route("/", page),
            Route("/api/state", api_state),
            Route("/api/uploads", upload, methods=["POST"]),
            Route("/api/uploads/{upload_id}", remove_upload, methods=["DELETE"]),
            Route("/api/check", check_step, methods=["POST"]),
            Route("/api/plan", plan_step, methods=["POST"]),
            Route("/api/apply", apply_step, methods=["POST"]),
            Route("/api/runs/latest", latest_run),
            Route("/api/runs/{run_id}/events", run_events),
            Route("/api/runs/{run_id}/cancel", cancel_run, methods=["POST"]),
            Route("/runs/{run_id}/files/{name}", download),
            Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
        ]
    )
    app.state.ui = state
    return PageGuard(app, hosts=state.hosts, token=state.token)
