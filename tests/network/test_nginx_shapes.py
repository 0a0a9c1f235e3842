"""The workload through nginx configured as small deployments have it: compressed
answers, short-lived keep-alive, unbuffered chunked answers, a connection per request."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import Stack, chunked
from .servers import Access, Nginx, Site
from .workload import CREATES, apply_then_plan, assert_workload_done


def _api(nginx: Nginx) -> list[Access]:
    lines = [line for line in nginx.access_lines() if line.target.startswith("/api/")]
    assert lines, "no API request reached nginx"
    return lines


def test_gzip_answers_arrive_compressed_and_are_decoded(stack: Stack) -> None:
    nginx = stack.nginx(Site(directives="gzip on; gzip_types application/json; gzip_min_length 0;"))
    outcome = apply_then_plan(Path.cwd(), nginx.base_url, env={})
    assert_workload_done(outcome, stack.sandbox_url)
    # nginx compresses answers of status 200 only (not 201): the list pages and patches
    ok = [x for x in _api(nginx) if x.status == 200]
    assert {x.method for x in ok} == {"GET", "PATCH"}
    plain = [(x.method, x.target) for x in ok if x.content_encoding != "gzip"]
    assert plain == [], f"answers sent uncompressed: {plain}"


@pytest.mark.parametrize(
    ("idle", "flags"),
    [("5ms", ()), ("1ms", ("--concurrency", "1"))],
    ids=["5ms-default-concurrency", "1ms-one-at-a-time"],
)
def test_keepalive_closed_after_7_requests_or_a_few_ms_idle(
    stack: Stack, idle: str, flags: tuple[str, ...]
) -> None:
    # nginx closes a connection after its 7th answer and any connection idle for a few
    # ms: a client reusing one just as nginx closes it must neither lose a row nor send a
    # create twice. One request at a time with 1 ms, a request is often written to a
    # connection nginx is closing (seen as a row with 2 attempts in 2 of 3 runs).
    site = Site(directives=f"keepalive_requests 7; keepalive_timeout {idle};")
    nginx = stack.nginx(site)
    outcome = apply_then_plan(Path.cwd(), nginx.base_url, *flags, env={})
    assert_workload_done(outcome, stack.sandbox_url)
    lines = _api(nginx)
    created = [x for x in lines if x.method == "POST" and x.status == 201]
    assert len(created) == CREATES
    assert max(x.connection_requests for x in lines) <= 7


def test_unbuffered_chunked_answers(stack: Stack) -> None:
    stack.sandbox(wrap=chunked)  # the sandbox answers without Content-Length
    nginx = stack.nginx(Site(directives="proxy_buffering off;"))
    outcome = apply_then_plan(Path.cwd(), nginx.base_url, env={})
    assert_workload_done(outcome, stack.sandbox_url)
    sized = [(x.method, x.target) for x in _api(nginx) if x.transfer_encoding != "chunked"]
    assert sized == [], f"answers not chunked: {sized}"


def test_connection_close_on_every_answer(stack: Stack) -> None:
    nginx = stack.nginx(Site(directives="keepalive_timeout 0;"))  # "Connection: close"
    outcome = apply_then_plan(Path.cwd(), nginx.base_url, env={})
    assert_workload_done(outcome, stack.sandbox_url)
    lines = _api(nginx)
    assert all(x.connection_requests == 1 for x in lines)
    assert len({x.connection for x in lines}) == len(lines)
