"""The request's URL: the query written as httpx's client (urlencode) would write it,
whether or not a value needs quoting."""

from __future__ import annotations

import random
import string
from typing import Any
from urllib.parse import urlencode

import pytest

from linksync.api.wire import request_url


def _as_httpx_writes(root: str, path: str, params: dict[str, Any]) -> str:
    def text(v: Any) -> str:
        return "true" if v is True else "false" if v is False else str(v)

    query = [(k, text(v)) for k, v in params.items() if v is not None and v != ""]
    return f"{root}{path}?{urlencode(query)}" if query else root + path


@pytest.mark.parametrize(
    ("params", "url"),
    [
        ({"page": 3, "limit": 100, "search": None, "tag": None}, "/l?page=3&limit=100"),
        ({"domain": "go.example-1.com"}, "/l?domain=go.example-1.com"),
        ({"search": "a b&c", "tag": ""}, "/l?search=a+b%26c"),
        ({"domain": "bücher.de", "flag": True}, "/l?domain=b%C3%BCcher.de&flag=true"),
        ({"page": None}, "/l"),
    ],
)
def test_the_query_of_a_request(params: dict[str, Any], url: str) -> None:
    assert request_url("http://h", "/l", params) == "http://h" + url


def test_the_query_is_what_urlencode_writes_for_any_values() -> None:
    rng = random.Random(7)
    alphabet = string.printable + "üé€ "
    for _ in range(3000):
        params: dict[str, Any] = {}
        for name in rng.sample(["page", "limit", "search", "domain", "a b", "x.y", "ü"], 4):
            if rng.random() < 0.4:
                params[name] = rng.choice([None, "", 7, -3, True, False, 2.5])
            else:
                params[name] = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
        assert request_url("http://h", "/p", params) == _as_httpx_writes("http://h", "/p", params)
