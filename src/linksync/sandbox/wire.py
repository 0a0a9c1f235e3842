"""The sandbox's answers on the wire: bodies as JSON bytes (orjson, compact, UTF-8, as
the interface shows them), and a list page put together from links encoded once.

A list page is most of what a big workspace's client asks for. Each link's record is
encoded once (by SQLite: ``schema.RecordSql``) and kept by the store until the link changes
(``Store.page_encoded``), so a page is a join of 100 kept byte strings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson
from starlette.responses import Response

_LIST_HEAD = b'{"code":0,"data":['


class JsonBytes(Response):
    """A response whose body is JSON already encoded (``application/json``)."""

    media_type = "application/json"


def ok_body(data: Any, **extra: Any) -> bytes:
    """``{"code": 0, "data": data, **extra}``, encoded."""
    return orjson.dumps({"code": 0, "data": data, **extra})


def list_body(records: Sequence[bytes], pagination: dict[str, int]) -> bytes:
    """The body of a list page from its links' encoded records."""
    return b"".join(
        (_LIST_HEAD, b",".join(records), b'],"pagination":', orjson.dumps(pagination), b"}")
    )
