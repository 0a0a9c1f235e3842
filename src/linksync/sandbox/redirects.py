"""Short-link resolution, as a visitor's browser meets it (public: no API key).

- ``GET /{slug}`` with the ``Host`` header naming the domain (as the real service).
- ``GET /r/{domain}/{slug}``: the same for a browser or curl on the sandbox's own
  address, where the Host header cannot name the short domain.

Answers: 302 to the destination (``apple`` for iPhone/iPad/iPod, ``google`` for Android
when set); 404 page for an unknown slug (or 302 to the custom domain's
notFoundRedirectUrl); 410 page once expired; 401 page with a password form when the
link is gated and the password is missing or wrong (``?password=`` or a form POST).
``GET /`` on a custom domain goes to its rootRedirectUrl. Each 302 to a link's target
counts one click in the organization's clickCountMonthly.
"""

from __future__ import annotations

import html
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from linksync.sandbox.backend import Backend

_PAGES = {
    "not_found": (404, "Link not found", "This short link does not exist."),
    "expired": (410, "Link expired", "This short link has expired."),
    "password_required": (401, "Password required", "This link is protected by a password."),
    "password_wrong": (401, "Wrong password", "The password is not right. Try again."),
}

_FORM = (
    '<form method="post"><label>Password <input type="password" name="password" '
    'autofocus></label> <button type="submit">Open</button></form>'
)


def _page(kind: str) -> HTMLResponse:
    status, title, text = _PAGES[kind]
    form = _FORM if kind.startswith("password") else ""
    body = (
        f"<!doctype html><html><head><meta charset=utf-8><title>{html.escape(title)}</title>"
        f"</head><body><h1>{html.escape(title)}</h1><p>{html.escape(text)}</p>{form}"
        "</body></html>"
    )
    return HTMLResponse(body, status_code=status, headers={"Cache-Control": "no-store"})


def host_of(request: Request) -> str:
    """The Host header without its port ('go.example.com:8080' -> 'go.example.com')."""
    host = request.headers.get("host", "").strip().lower()
    if host.startswith("["):
        return host.partition("]")[0] + "]"
    name, sep, port = host.rpartition(":")
    return name if sep and port.isdigit() else host


async def _password(request: Request) -> str | None:
    if request.method == "POST":
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype == "application/x-www-form-urlencoded":
            body = (await request.body()).decode("utf-8", errors="replace")
            values = parse_qs(body, keep_blank_values=True).get("password")
            if values:
                return values[0]
    return request.query_params.get("password")


async def _resolve(request: Request, host: str, slug: str) -> Response:
    backend: Backend = request.app.state.backend
    outcome = backend.resolve(
        host,
        slug,
        password=await _password(request),
        user_agent=request.headers.get("user-agent", ""),
    )
    if outcome.kind == "redirect" and outcome.location:
        return RedirectResponse(
            outcome.location, status_code=302, headers={"Cache-Control": "no-store"}
        )
    return _page(outcome.kind)


async def by_host(request: Request) -> Response:
    return await _resolve(request, host_of(request), request.path_params["slug"])


async def by_path(request: Request) -> Response:
    return await _resolve(request, request.path_params["domain"], request.path_params["slug"])


async def root(request: Request) -> Response:
    backend: Backend = request.app.state.backend
    target = backend.resolve_root(host_of(request))
    if target:
        return RedirectResponse(target, status_code=302, headers={"Cache-Control": "no-store"})
    s = backend.settings
    body = (
        "<!doctype html><html><head><meta charset=utf-8><title>linksync sandbox</title></head>"
        "<body><h1>linksync sandbox</h1><p>The API is under <code>/api/v1</code>. "
        f"Short links resolve at <code>/r/{html.escape(s.system_domain)}/&lt;slug&gt;</code> "
        "or at <code>/&lt;slug&gt;</code> with the Host header naming the domain.</p>"
        "</body></html>"
    )
    return HTMLResponse(body)


ROUTES = [
    Route("/", root, methods=["GET"]),
    Route("/r/{domain}/{slug}", by_path, methods=["GET", "POST"]),
    Route("/{slug}", by_host, methods=["GET", "POST"]),
]
