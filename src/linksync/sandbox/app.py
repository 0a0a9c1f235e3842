"""Thin Starlette routes over the backend: parse the request, call one backend method,
serialise ``{code: 0, data}``. Errors are ``ServiceError`` and become the error body
in one place (``errors.error_response``), via the exception handlers below.

``create_app(settings, db_path)`` builds the whole sandbox; it needs no lifespan
events (httpx's ASGITransport does not run them).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from linksync.sandbox import ai, redirects, wire
from linksync.sandbox import rules as req
from linksync.sandbox.backend import Backend, Clock
from linksync.sandbox.errors import ServiceError, error_response
from linksync.sandbox.faults import Faults
from linksync.sandbox.gate import KEY_KIND_KEY, REQUEST_ID_KEY, Gate
from linksync.sandbox.ratelimit import FixedWindowLimiter
from linksync.sandbox.settings import SandboxSettings
from linksync.sandbox.store import Store

MAX_BODY_BYTES = 1_000_000


def backend_of(request: Request) -> Backend:
    backend: Backend = request.app.state.backend
    return backend


def ok(data: Any, status: int = 200) -> Response:
    return wire.JsonBytes(wire.ok_body(data), status_code=status)


def require_write(request: Request) -> None:
    if request.scope.get(KEY_KIND_KEY) != "full":
        raise ServiceError("FORBIDDEN", "this API key is read-only; use a Full Access key")


async def json_body(request: Request) -> Any:
    ctype = request.headers.get("content-type", "")
    if ctype.split(";")[0].strip().lower() != "application/json":
        raise ServiceError("INVALID_REQUEST", "send the body as Content-Type: application/json")
    body = await request.body()
    if len(body) > MAX_BODY_BYTES:
        raise ServiceError("INVALID_REQUEST", f"the body is larger than {MAX_BODY_BYTES} bytes")
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        pass  # what orjson refuses (NaN, a lone surrogate, a huge integer): as json reads it
    try:
        value = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise ServiceError("INVALID_REQUEST", "the body is not valid JSON") from None
    try:  # a lone surrogate (``"\\ud800"``) is JSON's syntax but no Unicode text
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise ServiceError(
            "INVALID_REQUEST", "the body is not valid JSON: it holds a lone surrogate"
        ) from None
    return value


# --- organization -------------------------------------------------------------------


async def organization(request: Request) -> Response:
    return ok(backend_of(request).organization())


async def members(request: Request) -> Response:
    return ok(backend_of(request).list_members())


async def invite(request: Request) -> Response:
    require_write(request)
    email, role = req.parse_invite(await json_body(request))
    return ok(backend_of(request).invite_member(email, role), 201)


# --- domains ------------------------------------------------------------------------


async def domains(request: Request) -> Response:
    backend = backend_of(request)
    if request.method == "GET":
        return ok(backend.list_domains())
    require_write(request)
    spec = req.parse_domain_create(await json_body(request), backend.settings.system_domain)
    return ok(backend.create_domain(spec), 201)


async def domain_by_id(request: Request) -> Response:
    """POST .../verify verifies the domain, DELETE deletes it."""
    require_write(request)
    backend = backend_of(request)
    act = backend.verify_domain if request.method == "POST" else backend.delete_domain
    return ok(act(request.path_params["id"]))


# --- links --------------------------------------------------------------------------


async def links(request: Request) -> Response:
    backend = backend_of(request)
    if request.method == "GET":
        return wire.JsonBytes(backend.list_links_json(req.parse_list_query(request.query_params)))
    require_write(request)
    spec = req.parse_link_create(await json_body(request), backend.now())
    return ok(backend.create_link(spec), 201)


async def link(request: Request) -> Response:
    backend = backend_of(request)
    slug: str = request.path_params["slug"]
    domain = request.query_params.get("domain") or None
    if request.method == "GET":
        return ok(backend.get_link(slug, domain))
    require_write(request)
    if request.method == "DELETE":
        return ok(backend.delete_link(slug, domain))
    changes = req.parse_link_patch(await json_body(request))
    return ok(backend.update_link(slug, domain, changes))


# --- AI tools -----------------------------------------------------------------------


async def ai_slug(request: Request) -> Response:
    url = req.parse_tool_url(await json_body(request))
    return ok({"slug": backend_of(request).ai_slug(url)})


async def ai_og(request: Request) -> Response:
    url = req.parse_tool_url(await json_body(request))
    title, description = ai.suggest_og(url)
    return ok({"title": title, "description": description})


# --- errors -------------------------------------------------------------------------


async def on_error(request: Request, exc: Exception) -> Response:
    """Every error as the interface's error body: a ``ServiceError`` as raised, no route
    NOT_FOUND, another HTTP error INVALID_REQUEST, anything else INTERNAL_ERROR."""
    if isinstance(exc, HTTPException) and exc.status_code in (404, 405):
        exc = ServiceError("NOT_FOUND", f"no route for {request.method} {request.url.path}")
    elif isinstance(exc, HTTPException):
        exc = ServiceError("INVALID_REQUEST", str(exc.detail))
    elif not isinstance(exc, ServiceError):
        exc = ServiceError("INTERNAL_ERROR", "unexpected sandbox error")
    request_id: str = request.scope.get(REQUEST_ID_KEY, "req_unknown")
    return error_response(exc, request_id)


API = "/api/v1"
ROUTES = [  # matched in order: the links first (nearly every request of a sync)
    Route(f"{API}/links", links, methods=["GET", "POST"]),
    Route(f"{API}/links/{{slug}}", link, methods=["GET", "PATCH", "DELETE"]),
    Route(f"{API}/organizations/current", organization, methods=["GET"]),
    Route(f"{API}/organizations/members", members, methods=["GET"]),
    Route(f"{API}/organizations/members/invite", invite, methods=["POST"]),
    Route(f"{API}/domains", domains, methods=["GET", "POST"]),
    Route(f"{API}/domains/{{id}}/verify", domain_by_id, methods=["POST"]),
    Route(f"{API}/domains/{{id}}", domain_by_id, methods=["DELETE"]),
    Route(f"{API}/tools/ai-slug", ai_slug, methods=["POST"]),
    Route(f"{API}/tools/ai-og", ai_og, methods=["POST"]),
    *redirects.ROUTES,
]


def create_app(
    settings: SandboxSettings | None = None,
    db_path: str = ":memory:",
    *,
    clock: Clock | None = None,
    sleep: Callable[[float], Awaitable[None]] | None = None,
) -> Starlette:
    """The whole sandbox as an ASGI app. ``db_path`` is a SQLite file or ``":memory:"``;
    ``clock`` (Unix seconds) drives timestamps, expiry and rate windows, and ``sleep``
    the injected latency (give both from one fake clock to test pacing in no time)."""
    settings = settings or SandboxSettings()
    now = clock or time.time
    backend = Backend(settings, Store(db_path), now)
    app = Starlette(
        routes=ROUTES,
        middleware=[
            Middleware(
                Gate,
                settings=settings,
                limiter=FixedWindowLimiter(settings.rate_limit, settings.rate_window_s, now),
                faults=Faults(settings),
                sleep=sleep or asyncio.sleep,
            )
        ],
        exception_handlers={
            ServiceError: on_error,
            HTTPException: on_error,
            Exception: on_error,
        },
    )
    app.state.backend = backend
    return app
