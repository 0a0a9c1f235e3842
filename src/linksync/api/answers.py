"""A successful answer of the service, as a call's parse step receives it.

An answer's body is read once it is asked for: decoded straight into records by a
decoder of the service's own shape (``Answer.decoded``), or as JSON (``Answer.body``).
A 2xx body that is an error object, or not JSON, raises its ApiError where it is
first read, as ``linksync.api.base.BaseClient`` would have raised it on arrival.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import orjson

from linksync.api.failures import is_success, read_body
from linksync.errors import ApiError

T = TypeVar("T")


class Answer:
    """A successful answer: its status, requestId, the body's bytes as they came
    (``content``, gzip decoded) and the body's JSON (``body``: decoded on first use,
    None when empty).

    A 2xx body that names an error object (``{"error": {...}}``), or that is not JSON,
    is no success: its ApiError is raised where the body is first read (``body``, or
    ``decoded`` when its decoder does not take the bytes), before any value is made of
    it. A decoder of the service's own shape (``decoded``) never takes an error object,
    so the bytes a list page's records are decoded from are not searched first."""

    __slots__ = ("_body", "_fail", "_unread", "content", "request_id", "status")

    def __init__(
        self,
        status: int,
        body: Any,
        request_id: str | None,
        content: bytes = b"",
        fail: Callable[[str, Any], ApiError] | None = None,
    ) -> None:
        self.status, self.request_id, self.content = status, request_id, content
        self._body, self._fail = body, fail
        self._unread = fail is not None  # not looked at for an error object yet

    def decoded(self, decode: Callable[[bytes], T | None]) -> T | None:
        """The bytes decoded by ``decode``, a decoder of the service's own shape (None
        when they are of another shape), or None: the answer is then read as any other
        (an error object, or a body that is not JSON, raises its ApiError here)."""
        if self.content:
            value = decode(self.content)
            if value is not None:
                return value
        self._look()
        return None

    def _look(self) -> None:
        """Raise the ApiError of an error object. Where the bytes hold neither of
        ``"error"`` and ``\\u`` (a JSON escape could spell the key ``"\\u0065rror"``), the
        JSON cannot be one: the answer is decoded only when read."""
        if not self._unread:
            return
        content = self.content
        if _NAMES_ERROR in content or _ESCAPE in content:
            text, parsed = read_body(content)
            if not is_success(self.status, text, parsed):
                fail = self._fail
                assert fail is not None  # set with _unread
                raise fail(text, parsed)  # and again if it is read again
            self._body, self._fail = parsed, None
        self._unread = False

    @property
    def body(self) -> Any:
        self._look()
        fail = self._fail
        if fail is not None:  # not decoded yet
            self._fail = None
            try:
                self._body = orjson.loads(self.content)
            except orjson.JSONDecodeError:
                self._body = read_body(self.content)[1]  # as the standard library reads
            if self._body is None:  # not JSON, or JSON's null
                raise fail(self.content.decode("utf-8", "replace"), None)
        return self._body


#: Where an answer's bytes hold neither of these, its JSON cannot be an error object
#: (``{"error": ...}``; a JSON escape could spell the key ``"\u0065rror"``).
_NAMES_ERROR, _ESCAPE = b'"error"', b"\\u"
