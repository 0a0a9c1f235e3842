"""One request out, its answer in: what ``BaseClient._send`` hands a transport.

Every request of a client goes to its one base URL with the same headers, so it is
built here once as plain values (``request_url``: the URL as httpx's client would make
it; the headers; the body as compact JSON bytes by orjson) and handed to a ``Wire``:

- the network's, ``linksync.api.aio.NetworkTransport``: aiohttp's pool, no
  ``httpx.Request`` / ``httpx.Response`` objects in between;
- any httpx transport (the in-process sandbox's ``httpx.ASGITransport``, test fakes),
  through ``HttpxWire``: an ``httpx.Request`` to its ``handle_async_request``, the
  answer read and closed.

Either returns ``(status, reason, headers, body)``: the body's bytes (gzip decoded) and
headers that look names up case-insensitively (``headers.get("x-request-id")``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol
from urllib.parse import quote_plus

import httpx

from linksync.api.network import ConnectionTrace

#: status, reason phrase, headers, body bytes.
Exchanged = tuple[int, str, Mapping[str, str], bytes]


class Wire(Protocol):
    async def exchange(
        self,
        method: str,
        url: str,
        headers: Mapping[str, str],
        content: bytes | None,
        trace: ConnectionTrace,
    ) -> Exchanged: ...

    async def aclose(self) -> None: ...


def url_root(base_url: str) -> str:
    """The base URL as httpx writes it (an international host name in punycode, the
    path percent-encoded), without a trailing slash: paths are appended to it."""
    return str(httpx.URL(base_url)).rstrip("/")


def _param(value: Any) -> str:
    """A query value as httpx writes it (True is "true")."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)


def request_url(root: str, path: str, params: Mapping[str, Any] | None) -> str:
    """``root`` + ``path`` with the query httpx's client would add for ``params``
    (values left out when None or empty; form encoding: a space is ``+``). A whole
    number, and a name of plain letters and digits, are written as they are: form
    encoding leaves them so (a list page's ``page=3&limit=100`` needs no quoting)."""
    if not params:
        return root + path
    query = []
    for key, value in params.items():
        if value is None or value == "":
            continue
        name = key if key.isalnum() and key.isascii() else quote_plus(key)
        if type(value) is int:  # digits and a minus sign: nothing to quote
            query.append(f"{name}={value}")
        else:
            query.append(f"{name}={quote_plus(_param(value))}")
    return f"{root}{path}?{'&'.join(query)}" if query else root + path


class HttpxWire:
    """A request through any httpx transport, as httpx's client would send it."""

    __slots__ = ("_extensions", "transport")

    def __init__(self, transport: httpx.AsyncBaseTransport, timeout: float) -> None:
        self.transport = transport
        self._extensions = {"timeout": dict.fromkeys(("connect", "read", "write", "pool"), timeout)}

    async def exchange(
        self,
        method: str,
        url: str,
        headers: Mapping[str, str],
        content: bytes | None,
        trace: ConnectionTrace,
    ) -> Exchanged:
        request = httpx.Request(
            method, url, headers=headers, content=content,
            extensions={**self._extensions, "trace": trace},
        )  # fmt: skip
        response = await self.transport.handle_async_request(request)
        try:
            body = await response.aread()
        finally:
            await response.aclose()
        return response.status_code, response.reason_phrase, response.headers, body

    async def aclose(self) -> None:
        await self.transport.aclose()
