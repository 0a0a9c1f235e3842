"""The request's URL: the query written as httpx's client (urlencode) would write it."""

from __future__ import annotations

from typing import Any

import pytest

from linksync.api.wire import request_url


@pytest.mark.parametrize(
    ("params", "url"),
    [
        ({"page": 3, "limit": 100, "search": None, "tag": None}, "/l?page=3&limit=100"),
        ({"domain": "go.example-1.com"}, "/l?domain=go.example-1.com"),
        ({"search": "a b&c", "tag": ""}, "/l?search=a+b%26c"),
        ({"domain": "bücher.de", "flag": True}, "/l?domain=b%C3%BCcher.de&flag=true"),
        ({"page": None}, "/l"),
        (
            {"page": 0, "n": -3, "a b": 1, "é": "x", "off": False},
            "/l?page=0&n=-3&a+b=1&%C3%A9=x&off=false",
        ),
    ],
)
def test_the_query_of_a_request(params: dict[str, Any], url: str) -> None:
    assert request_url("http://h", "/l", params) == "http://h" + url
