"""Turning an error answer into an :class:`~linksync.errors.ApiError`, and keeping the key
out of every message.

The service's error body is ``{"error": {code, constant, message, requestId}}``. Anything
else (an HTML page from a proxy, an empty 502, a constant this version does not know)
still becomes a clear ApiError: the constant is taken from the body when it looks like
one and is not one of linksync's own (a body naming TRANSPORT_ERROR or
CERTIFICATE_ERROR is not read as one), else from the five-digit code, else from the
status when the interface gives that status exactly one constant, else
``UNEXPECTED_RESPONSE``. Whether it is retryable follows the status (429, 500, 502,
503, 504 are).
"""

from __future__ import annotations

import email.utils
import html
import json
import re
import time
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from linksync.errors import BY_CODE, ERRORS, ApiError, Origin, is_retryable_status
from linksync.safe.secrets import redact

#: Statuses that name exactly one constant of the interface's table.
STATUS_CONSTANTS: dict[int, str] = {
    401: "UNAUTHORIZED",
    429: "RATE_LIMITED",
    500: "INTERNAL_ERROR",
    503: "EDGE_UNAVAILABLE",
}
_CONSTANT_SHAPE = re.compile(r"^[A-Z][A-Z0-9_]{2,63}$")
_TAGS = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"\s+")
MAX_SNIPPET = 200


def snippet(text: str) -> str:
    """A short one-line view of a non-JSON body (tags stripped)."""
    flat = _SPACE.sub(" ", html.unescape(_TAGS.sub(" ", text))).strip()
    return flat if len(flat) <= MAX_SNIPPET else flat[: MAX_SNIPPET - 3] + "..."


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Retry-After as seconds: a number, or an HTTP date. None when absent or unreadable."""
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def header(headers: Mapping[str, str], name: str) -> str | None:
    """The value of header ``name`` (lower case), or None."""
    if isinstance(headers, dict):  # a plain mapping: compare names case-insensitively
        return next((v for k, v in headers.items() if k.lower() == name), None)
    return headers.get(name)  # httpx.Headers and the like look names up so themselves


def request_id_of(headers: Mapping[str, str], body: Any = None) -> str | None:
    if body is not None and isinstance(body, Mapping):  # a success's answer: no body given
        err = body.get("error")
        if isinstance(err, Mapping):
            rid = err.get("requestId", err.get("request_id"))
            if rid:
                return str(rid)
        rid = body.get("requestId", body.get("request_id"))
        if rid:
            return str(rid)
    return header(headers, "x-request-id") or header(headers, "request-id")


def _constant_for(status: int, constant: Any, code: Any) -> tuple[str, int | None]:
    code_int = code if isinstance(code, int) and not isinstance(code, bool) else None
    if isinstance(constant, str) and _CONSTANT_SHAPE.match(constant):
        known = ERRORS.get(constant)
        if known is None or known.origin is not Origin.LOCAL:  # linksync's own: never sent
            return constant, code_int
    if code_int is not None and code_int in BY_CODE:
        return BY_CODE[code_int].constant, code_int
    if status in STATUS_CONSTANTS:
        return STATUS_CONSTANTS[status], code_int
    return "UNEXPECTED_RESPONSE", code_int


def error_from_answer(
    status: int,
    headers: Mapping[str, str],
    body: Any,
    text: str,
    *,
    secrets: Iterable[str],
    attempts: int = 1,
) -> ApiError:
    """The ApiError for an answer that is not a success (of the class the error table
    names for its constant). ``body`` is the parsed JSON (None when the body was not
    JSON), ``text`` the raw body text, ``attempts`` the requests the call sent."""
    secrets = tuple(secrets)
    retry_after = parse_retry_after(header(headers, "retry-after"))
    rid = request_id_of(headers, body)
    err = body.get("error") if isinstance(body, Mapping) else None
    if isinstance(err, str):
        err = {"message": err}
    if isinstance(err, Mapping):
        constant, code = _constant_for(status, err.get("constant"), err.get("code"))
        message = err.get("message")
        if not isinstance(message, str) or not message.strip():
            known = ERRORS.get(constant)
            message = known.meaning if known else f"HTTP {status} without a message"
    else:
        constant, code = _constant_for(status, None, None)
        kind = (header(headers, "content-type") or "no content type").split(";")[0].strip()
        if not text.strip():
            message = f"HTTP {status} with an empty body"
        elif body is None:
            message = f"HTTP {status} with a non-JSON body ({kind}): {snippet(text)}"
        else:
            message = f"HTTP {status} with a JSON body that is not an error object: {snippet(text)}"
    return ApiError.of(
        status,
        constant,
        redact(message, secrets),
        code=code,
        request_id=redact(rid, secrets) if rid else None,
        retryable=is_retryable_status(status),
        retry_after=retry_after,
        attempts=attempts,
    )


def read_body(content: bytes) -> tuple[str, Any]:
    """An answer's body as text, and its JSON (None when empty or not JSON). orjson
    reads it; what orjson refuses and the standard library reads (bytes that are not
    UTF-8, NaN, integers past 64 bits) is read as the standard library reads it."""
    text = content.decode("utf-8", "replace")
    if not text.strip():
        return text, None
    try:
        return text, orjson.loads(content)
    except orjson.JSONDecodeError:
        pass
    try:
        return text, json.loads(text)
    except ValueError:
        return text, None


def is_success(status: int, text: str, parsed: Any) -> bool:
    """A 2xx whose body is JSON that is not an error object, or empty."""
    is_error_body = isinstance(parsed, Mapping) and isinstance(parsed.get("error"), Mapping)
    return 200 <= status < 300 and not is_error_body and (parsed is not None or not text)
