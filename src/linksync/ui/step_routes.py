"""The routes of the page's steps (each needs the session token, as every write does):

    POST /api/check    {choices}                 columns of each sheet, every problem
    POST /api/plan     {choices}                 linksync.plan of the uploads
    POST /api/apply    {plan_id, force}          linksync.apply of that plan, as a run

Each answers JSON: ``data`` (what a script or a test reads) and ``html`` (the page's
fragments, rendered by the server's autoescaped templates: a value from a file is text,
never markup). Reading, validating and planning run in a worker thread, so the event
streams of a run going on are not held up.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from linksync.errors import LinksyncError
from linksync.sync.options import MODES
from linksync.ui.apply_run import PageApply, spreadsheets
from linksync.ui.choices import Choices
from linksync.ui.columns import FIELD_LABELS
from linksync.ui.runs import RunBusy
from linksync.ui.state import UiState, error_answer, ui_state
from linksync.ui.steps import CheckView, PageFiles, check, make_plan, plan_view

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


def _files(ui: UiState) -> PageFiles:
    return PageFiles(tuple(ui.uploads.list()))


def check_fragments(ui: UiState, view: CheckView) -> dict[str, str]:
    return {
        "columns": _render(ui, "_columns.html", sheets=view.sheets, fields=FIELD_LABELS),
        "check": _render(ui, "_check.html", view=view),
    }


async def _asked(request: Request) -> tuple[Choices, PageFiles] | JSONResponse:
    """The choices sent and the files on the page, or the answer refusing them."""
    try:
        choices = Choices.from_json(await _body(request))
    except (ValueError, LinksyncError) as exc:
        return error_answer(400, str(exc))
    files = _files(ui_state(request))
    if not files.uploads:
        return error_answer(409, "drop or choose a file first")
    return choices, files


async def check_step(request: Request) -> JSONResponse:
    ui = ui_state(request)
    asked = await _asked(request)
    if isinstance(asked, JSONResponse):
        return asked
    choices, files = asked
    try:
        view = await asyncio.to_thread(check, files, choices, ui.settings)
    except LinksyncError as exc:
        return error_answer(400, files.shorten(str(exc)))
    return JSONResponse({"data": view.to_dict(), "html": check_fragments(ui, view)})


async def plan_step(request: Request) -> JSONResponse:
    ui = ui_state(request)
    asked = await _asked(request)
    if isinstance(asked, JSONResponse):
        return asked
    choices, files = asked
    ui.shown = None
    try:
        shown = await asyncio.to_thread(make_plan, files, choices, ui.settings)
    except LinksyncError as exc:
        return error_answer(400, files.shorten(str(exc)))
    ui.shown = shown
    view = plan_view(shown, files, spreadsheets(files))
    html = _render(ui, "_plan.html", view=view)
    return JSONResponse({"data": view.to_dict(), "html": {"plan": html}})


async def apply_step(request: Request) -> JSONResponse:
    ui = ui_state(request)
    try:
        body = await _body(request)
    except ValueError as exc:
        return error_answer(400, str(exc))
    shown = ui.shown
    if shown is None or body.get("plan_id") != shown.plan_id:
        return error_answer(409, "this is not the plan shown last: show the plan again, then apply")
    files = _files(ui)
    if files.ids != shown.upload_ids:
        return error_answer(409, "the files changed since the plan was shown: show the plan again")
    force = body.get("force") is True
    if shown.planned.plan.refused and not force:
        reason = shown.planned.plan.safety.reason
        return error_answer(409, f"the plan crosses a safety limit ({reason}): confirm to apply it")
    source = PageApply(ui.settings, files, shown, ui.journals, force=force)
    try:
        run = ui.runs.start(source)
    except RunBusy as exc:
        return error_answer(409, str(exc))
    ui.shown = None  # a plan is applied once; the next one is planned afresh
    return JSONResponse(run.current().to_dict(), status_code=202)


def page_options() -> dict[str, Any]:
    """What the page's option controls offer."""
    return {"modes": MODES}
