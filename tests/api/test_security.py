"""The key goes only into the Authorization header; it appears in no repr, message,
exception or log line, even when the server echoes it back."""

from __future__ import annotations

import logging

import httpx
import pytest
from api_fakes import KEY, FakeClock, FakeService, Reply, Seen, fake_client, fast_policy, no_retries

from linksync.api import LinkServiceClient
from linksync.errors import ApiError, ConfigError, TransportError
from linksync.safe.secrets import redact


def echo(seen: Seen) -> Reply:
    auth = seen.headers.get("authorization", "")
    return Reply(
        500,
        {"error": {"code": 50001, "constant": "INTERNAL_ERROR",
                   "message": f"bad credential {auth} / raw {KEY}", "requestId": f"rid-{KEY}"}},
    )  # fmt: skip


async def test_key_sent_only_in_authorization_header() -> None:
    app = FakeService(lambda s: Reply(200, {"code": 0, "data": {"slug": "x"}}))
    async with fake_client(app) as client:
        await client.ai_slug("https://e.com")
    seen = app.seen[0]
    assert seen.headers["authorization"] == f"Bearer {KEY}"
    others = {k: v for k, v in seen.headers.items() if k != "authorization"}
    assert KEY not in repr(others) and KEY not in repr(seen.query) and KEY not in repr(seen.body)


async def test_echoed_key_is_redacted_everywhere(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    clock = FakeClock()
    async with fake_client(FakeService(echo), retry=fast_policy(clock)) as client:
        with pytest.raises(ApiError) as info:
            await client.get_organization()
        texts = [repr(client), str(client.stats.to_dict())]
    exc = info.value
    texts += [str(exc), repr(exc), exc.message, str(exc.request_id), repr(exc.args)]
    texts += [rec.getMessage() for rec in caplog.records]
    assert exc.attempts == 5 and "***" in exc.message
    for text in texts:
        assert KEY not in text


async def test_transport_error_text_is_redacted() -> None:
    class Leaky(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            raise httpx.ReadError(f"reset while sending {request.headers['authorization']}")

    async with LinkServiceClient(
        "https://api.example.com", KEY, transport=Leaky(), retry=no_retries()
    ) as client:
        with pytest.raises(TransportError) as info:
            await client.list_domains()
    assert KEY not in str(info.value) and "Bearer ***" in str(info.value)
    assert info.value.sent


@pytest.mark.parametrize(
    ("url", "insecure", "ok"),
    [
        ("https://api.example.com", False, True),
        ("http://api.example.com", False, False),
        ("http://api.example.com", True, True),
        ("http://localhost:8787", False, True),
        ("http://127.0.0.1:8787", False, True),
        ("http://[::1]:8787", False, True),
        ("http://10.0.0.1", False, False),
        ("ftp://api.example.com", True, False),
        ("https://user:pw@api.example.com", False, False),
    ],
)
async def test_plain_http_only_on_loopback(url: str, insecure: bool, ok: bool) -> None:
    if ok:
        client = LinkServiceClient(url, KEY, allow_insecure=insecure)
        await client.aclose()
        assert KEY not in repr(client)
    else:
        with pytest.raises(ConfigError) as info:
            LinkServiceClient(url, KEY, allow_insecure=insecure)
        assert KEY not in str(info.value)


async def test_base_url_with_api_prefix_is_normalised() -> None:
    async with LinkServiceClient("https://api.example.com/api/v1/", KEY) as client:
        assert client.base_url == "https://api.example.com"


@pytest.mark.parametrize("key", ["", "two words", "line\nbreak"])
def test_unusable_keys_are_refused_without_echo(key: str) -> None:
    with pytest.raises(ConfigError) as info:
        LinkServiceClient("https://api.example.com", key)
    if key:
        assert key not in str(info.value)


def test_redact_handles_bearer_tokens_it_was_not_told_about() -> None:
    assert (
        redact("Authorization: Bearer abc.def-123 failed", ()) == "Authorization: Bearer *** failed"
    )
    assert redact(f"x {KEY} y", (KEY,)) == "x *** y"
