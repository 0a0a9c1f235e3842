"""Every failure becomes one ApiError: service errors, unknown constants, non-JSON bodies."""

from __future__ import annotations

import pytest
from api_fakes import FakeClock, FakeService, Reply, error, fake_client, fast_policy, no_retries, ok

from linksync.errors import ERRORS, ApiError, Origin

SERVICE_ERRORS = sorted(
    (e.constant, e.http_status, e.code, e.retryable)
    for e in ERRORS.values()
    if e.origin is not Origin.LOCAL and e.http_status is not None and e.code is not None
)


@pytest.mark.parametrize(("constant", "status", "code", "retryable"), SERVICE_ERRORS)
async def test_service_error_table_reaches_the_caller(
    constant: str, status: int, code: int, retryable: bool
) -> None:
    app = FakeService(lambda s: error(status, constant, code, f"{constant} happened", "rid-42"))
    async with fake_client(app, retry=no_retries()) as client:
        with pytest.raises(ApiError) as info:
            await client.get_link("abc")
    exc = info.value
    assert (exc.status, exc.constant, exc.code) == (status, constant, code)
    assert exc.message == f"{constant} happened"
    assert exc.request_id == "rid-42"
    assert exc.retryable is retryable
    assert exc.attempts == 1


@pytest.mark.parametrize(
    ("status", "body", "content_type", "constant", "retryable", "words"),
    [
        (502, "<html><body><h1>502 Bad Gateway</h1></body></html>", "text/html",
         "UNEXPECTED_RESPONSE", True, "502 Bad Gateway"),
        (502, b"", "text/plain", "UNEXPECTED_RESPONSE", True, "empty body"),
        (504, "Gateway Timeout", "text/plain", "UNEXPECTED_RESPONSE", True, "Gateway Timeout"),
        (503, "<html>down for maintenance</html>", "text/html", "EDGE_UNAVAILABLE", True,
         "maintenance"),
        (401, "Unauthorized", "text/plain", "UNAUTHORIZED", False, "non-JSON"),
        (403, "<html>denied by WAF</html>", "text/html", "UNEXPECTED_RESPONSE", False, "WAF"),
        (200, "<html>captive portal</html>", "text/html", "UNEXPECTED_RESPONSE", False, "portal"),
        (404, {"message": "no route"}, "application/json", "UNEXPECTED_RESPONSE", False,
         "not an error object"),
    ],
)  # fmt: skip
async def test_non_json_and_odd_bodies_give_a_clear_error(
    status: int, body: object, content_type: str, constant: str, retryable: bool, words: str
) -> None:
    app = FakeService(lambda s: Reply(status, body, content_type=content_type))
    async with fake_client(app, retry=no_retries()) as client:
        with pytest.raises(ApiError) as info:
            await client.get_organization()
    exc = info.value
    assert (exc.status, exc.constant, exc.retryable) == (status, constant, retryable)
    assert words in exc.message
    assert "<" not in exc.message


async def test_unknown_constant_is_kept_and_known_code_is_mapped() -> None:
    replies = iter(
        [
            Reply(422, {"error": {"code": 42299, "constant": "SHINY_NEW", "message": "new"}}),
            Reply(400, {"error": {"code": 40002, "message": "bad slug"}}),
            Reply(418, {"error": "teapot"}, headers={"x-request-id": "hdr-rid"}),
        ]
    )
    app = FakeService(lambda s: next(replies))
    async with fake_client(app) as client:
        errors = []
        for _ in range(3):
            with pytest.raises(ApiError) as info:
                await client.ai_slug("https://e.com")
            errors.append(info.value)
    assert [(e.status, e.constant, e.code) for e in errors] == [
        (422, "SHINY_NEW", 42299),
        (400, "INVALID_SLUG", 40002),
        (418, "UNEXPECTED_RESPONSE", None),
    ]
    assert errors[2].message == "teapot" and errors[2].request_id == "hdr-rid"


async def test_call_events_carry_status_request_id_and_attempts() -> None:
    from linksync.api import CallEvent, call_scope
    from linksync.errors import SlugExists

    calls = iter([error(503, "EDGE_UNAVAILABLE", 50301), ok({"slug": "nice-slug"})])
    app = FakeService(lambda s: next(calls))
    clock = FakeClock()
    heard: list[CallEvent] = []
    async with fake_client(app, clock=clock, retry=fast_policy(clock)) as client:
        client.subscribe(heard.append)
        with call_scope(row=7) as scope:
            assert await client.ai_slug("https://e.com") == "nice-slug"
    event = scope.last
    assert (event.kind, event.status, event.attempts, event.ok) == (
        "POST /tools/ai-slug",
        200,
        2,
        True,
    )
    assert heard == [event] and event.labels == {"row": 7}

    app = FakeService(lambda s: error(409, "SLUG_EXISTS", 40901, rid="r-9"))
    async with fake_client(app) as client:
        with call_scope() as scope, pytest.raises(SlugExists):
            await client.create_link({"url": "https://e.com", "slug": "taken"})
    failing = scope.last
    assert (failing.status, failing.request_id, failing.attempts) == (409, "r-9", 1)
    assert isinstance(failing.error, SlugExists) and not failing.outcome_unknown


@pytest.mark.parametrize(
    "constant", ["TRANSPORT_ERROR", "CERTIFICATE_ERROR", "PROXY_AUTH_ERROR", "NOT_ATTEMPTED"]
)
async def test_an_answer_naming_a_constant_of_linksyncs_own_is_not_read_as_it(
    constant: str,
) -> None:
    """Local constants are found by linksync itself, never sent by the service: a body
    naming one (a proxy, a service of another kind) is an unexpected answer, not a
    transport failure (whose class has another shape) nor a refused certificate."""
    app = FakeService(lambda s: error(502, constant, 0, "odd", "rid-7"))
    async with fake_client(app, retry=no_retries()) as client:
        with pytest.raises(ApiError) as info:
            await client.get_link("abc")
    exc = info.value
    assert type(exc) is ApiError and exc.constant == "UNEXPECTED_RESPONSE"
    assert exc.message == "odd" and exc.stops is None and exc.retryable


#: How each kind of call reads its answer: a list page and a link straight from the
#: bytes, the organization from the decoded JSON.
CALLS = {
    "a list page": lambda c: c.list_links_page(1, 100),
    "a link read": lambda c: c.get_link("abc"),
    "a link created": lambda c: c.create_link({"slug": "abc", "url": "https://e.com"}),
    "the organization": lambda c: c.get_organization(),
}
ERROR_OBJECTS = {
    "plain": b'{"error": {"code": 40301, "constant": "FORBIDDEN", '
    b'"message": "not on your plan", "requestId": "rid-7"}}',
    "its key escaped": b'{"\\u0065rror": {"code": 40301, "constant": "FORBIDDEN", '
    b'"message": "not on your plan", "requestId": "rid-7"}}',
}


@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize("body", sorted(ERROR_OBJECTS))
async def test_a_2xx_answer_holding_an_error_object_is_that_error(call: str, body: str) -> None:
    app = FakeService(lambda s: Reply(200, ERROR_OBJECTS[body]))
    async with fake_client(app, retry=no_retries()) as client:
        with pytest.raises(ApiError) as info:
            await CALLS[call](client)
    exc = info.value
    assert (exc.status, exc.constant, exc.message) == (200, "FORBIDDEN", "not on your plan")
    assert exc.request_id == "rid-7" and not exc.retryable and exc.attempts == 1
    assert len(app.seen) == 1


@pytest.mark.parametrize("call", sorted(CALLS))
async def test_a_2xx_answer_naming_error_in_a_value_is_read_as_data(call: str) -> None:
    record = {"id": "lnk_1", "domain": "lnk.test", "slug": "abc", "url": "https://e.com",
              "shortUrl": "https://lnk.test/abc",
              "description": 'the "error" page \u00e9'}  # fmt: skip
    data: object = [record] if call == "a list page" else record
    if call == "the organization":
        data = {"id": "org_1", "name": 'the "error" team', "plan": "free"}
    app = FakeService(lambda s: ok(data))
    async with fake_client(app, retry=no_retries()) as client:
        got = await CALLS[call](client)
    if call == "a list page":
        (link,) = got.links
        assert link.description == 'the "error" page \u00e9'
    elif call == "the organization":
        assert got.name == 'the "error" team'
    else:
        assert (got.slug, got.description) == ("abc", 'the "error" page \u00e9')
