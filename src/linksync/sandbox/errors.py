"""Service errors of the sandbox: raised as (constant, message) anywhere in the
backend, turned into the interface's error body in ONE place (``error_response``)."""

from __future__ import annotations

from collections.abc import Mapping

from starlette.responses import JSONResponse

from linksync.errors import ERRORS


class ServiceError(Exception):
    """A request the service rejects. ``constant`` must be a service or design constant
    of ``linksync.errors.ERRORS`` (one with an HTTP status and a code)."""

    def __init__(self, constant: str, message: str, headers: Mapping[str, str] | None = None):
        known = ERRORS.get(constant)
        if known is None or known.http_status is None or known.code is None:
            raise ValueError(f"not a service error constant: {constant}")
        super().__init__(f"{constant}: {message}")
        self.constant = constant
        self.message = message
        self.status = known.http_status
        self.code = known.code
        self.headers = dict(headers or {})


def error_response(exc: ServiceError, request_id: str) -> JSONResponse:
    """The one place an error becomes an HTTP response:
    ``{"error": {"code", "constant", "message", "requestId"}}``."""
    error = {
        "code": exc.code,
        "constant": exc.constant,
        "message": exc.message,
        "requestId": request_id,
    }
    return JSONResponse({"error": error}, status_code=exc.status, headers=exc.headers or None)
