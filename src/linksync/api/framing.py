"""HTTP/1.1 framing for the lean transport: requests written, answers read.

- Requests are written here (a request line and header lines, nothing to negotiate),
  after the checks h11 made before: a method token, a target without spaces or
  controls, header names as tokens and values without line breaks or edge spaces, so
  no value can forge a header.
- Answers are parsed by httptools (llhttp, the parser of Node.js): Content-Length,
  chunked and close-delimited bodies, 1xx answers passed over, trailers not taken for
  headers, strict about malformed framing. h11 did this before: about 130 us of CPU an
  exchange, against 7 us (``docs/performance.md``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from http import HTTPStatus

import httptools
import httpx

Header = tuple[bytes, bytes]
#: An answer whose head is not complete after this many bytes is refused.
MAX_HEAD = 65_536

# The request checks of h11 (RFC 9110 / 9112 grammar), made before anything is sent.
_TOKEN = re.compile(rb"[-!#$%&'*+.^_`|~0-9A-Za-z]+")
_FIELD_VALUE = re.compile(rb"(?:[\x21-\x7e\x80-\xff]+(?:[ \t]+[\x21-\x7e\x80-\xff]+)*)?")
_TARGET = re.compile(rb"[\x21-\x7e\x80-\xff]+")


def check_headers(headers: Iterable[Header]) -> None:
    """``httpx.LocalProtocolError`` for a header that would not go on the wire as one
    header (a line break in a value, say, that would let a value forge another)."""
    for name, value in headers:
        if _TOKEN.fullmatch(name) is None:
            raise httpx.LocalProtocolError(f"Illegal header name {name!r}")
        if _FIELD_VALUE.fullmatch(value) is None:
            raise httpx.LocalProtocolError(f"Illegal header value {value!r}")


def request_head(method: str, target: bytes, headers: Iterable[Header]) -> bytes:
    """The request line and header lines; ``headers`` must have passed ``check_headers``.
    ``httpx.LocalProtocolError`` for a method or target that is not one word."""
    verb = method.encode("ascii", "replace")
    if _TOKEN.fullmatch(verb) is None:
        raise httpx.LocalProtocolError(f"Illegal method {method!r}")
    if _TARGET.fullmatch(target) is None:
        raise httpx.LocalProtocolError(f"Illegal target characters {target!r}")
    lines = [verb + b" " + target + b" HTTP/1.1"]
    lines += [name + b": " + value for name, value in headers]
    lines.append(b"\r\n")
    return b"\r\n".join(lines)


class Answer:
    """A whole answer: status, header lines (names as sent) and body."""

    __slots__ = ("body", "raw_headers", "status")

    def __init__(self, status: int, raw_headers: list[Header], body: bytes) -> None:
        self.status, self.raw_headers, self.body = status, raw_headers, body

    def headers(self) -> dict[str, str]:
        """Header names lower-case; a repeated header keeps its last."""
        return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in self.raw_headers}


class Reading:
    """httptools' callbacks for one answer: the final answer's head and body (a 1xx
    answer before it is passed over; trailers of a chunked body are not headers)."""

    __slots__ = (
        "body_expected", "complete", "extra", "head_done", "headers", "keep_alive", "parser",
        "parts", "status",
    )  # fmt: skip

    def __init__(self, *, body_expected: bool) -> None:
        self.status = 0
        self.headers: list[Header] = []
        self.parts: list[bytes] = []
        self.head_done = False
        self.complete = False
        self.extra = False  # bytes after the answer: the connection is not reused
        self.body_expected = body_expected  # False for HEAD: the head is the whole answer
        self.keep_alive = False  # read when the answer completes (llhttp then resets)
        self.parser = httptools.HttpResponseParser(self)

    def on_message_begin(self) -> None:
        if self.complete:
            self.extra = True

    def on_header(self, name: bytes, value: bytes) -> None:
        if not self.head_done:
            self.headers.append((name, value.strip(b" \t")))

    def on_headers_complete(self) -> None:
        if self.complete:
            return
        self.status = self.parser.get_status_code()
        self.head_done = True
        if not self.body_expected and self.status >= 200:
            self.complete = self.extra = True  # llhttp would wait for a body

    def on_body(self, body: bytes) -> None:
        if not self.complete:
            self.parts.append(body)

    def on_message_complete(self) -> None:
        if self.complete:
            return
        if self.status < 200:  # 1xx (100 Continue...): the final answer follows
            self.headers, self.parts, self.head_done = [], [], False
            return
        self.complete = True
        self.keep_alive = self.parser.should_keep_alive()

    def ends_at_close(self) -> bool:
        """The body runs to the end of the connection (no length, not chunked)."""
        if not self.head_done or self.status < 200 or self.status in (204, 304):
            return False
        names = {name.lower() for name, _ in self.headers}
        return b"content-length" not in names and b"transfer-encoding" not in names

    def answer(self) -> Answer:
        return Answer(self.status, self.headers, b"".join(self.parts))


def protocol_error(reading: Reading, exc: BaseException | None) -> httpx.TransportError:
    if not reading.head_done:
        if exc is None:
            return httpx.RemoteProtocolError("Server disconnected without sending a response.")
        return httpx.RemoteProtocolError(f"malformed answer: {exc}")
    why = str(exc) if exc is not None else "the connection closed"
    return httpx.RemoteProtocolError(f"incomplete answer: {why}")


def reason_phrase(status: int) -> bytes:
    try:
        return HTTPStatus(status).phrase.encode("ascii")
    except ValueError:
        return b""
