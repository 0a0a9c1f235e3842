"""Reading the sources while the service is asked what the plan needs: against the
sandbox on a real socket (latency injected), the listing of the workspace reaches the
service while the sources are still being read; a source the reading refuses still
sends no write and leaves nothing running; a source a cheap look shows is refusable
sends no request at all; an apply lists nothing while another run holds its lock."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from starlette.types import ASGIApp, Receive, Scope, Send

import linksync
from linksync.config import Settings, resolve
from linksync.errors import FileProblems, LinksyncError, LockError, MirrorRefused, Unauthorized
from linksync.model import LinkSpec
from linksync.model.outcome import EXIT_USAGE, exit_code_for
from linksync.pipeline.lock import acquire_lock
from linksync.sandbox import DEFAULT_FULL_KEY, SandboxSettings
from support.sandbox_helpers import ServerHandle, serve_in_thread

LINKS = "/api/v1/links"
WAIT_S = 10.0  # how long the slow destination waits for the listing (never, before)


class Recorder:
    """An ASGI middleware in front of the sandbox: every request's method and path
    (with its query), in order; ``listed`` is set at the first page of the list."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.seen: list[tuple[str, str]] = []
        self.listed = threading.Event()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            query = scope.get("query_string", b"").decode()
            self.seen.append((scope["method"], f"{scope['path']}?{query}"))
            if scope["method"] == "GET" and scope["path"] == LINKS:
                self.listed.set()
        await self.app(scope, receive, send)

    def writes(self) -> list[tuple[str, str]]:
        return [(m, p) for m, p in self.seen if m not in ("GET", "HEAD")]


@dataclass
class Service:
    handle: ServerHandle
    recorder: Recorder
    settings: Settings = field(init=False)

    def __post_init__(self) -> None:
        self.settings = self.settings_with(DEFAULT_FULL_KEY)

    def settings_with(self, key: str) -> Settings:
        env = {"LINKSYNC_API_KEY": key}
        return resolve(base_url=self.handle.base_url, env=env, cwd=Path.cwd())


@pytest.fixture
def service(workdir: Path) -> Iterator[Service]:
    """The sandbox on 127.0.0.1 with 20 ms of latency per request, behind a Recorder."""
    recorders: list[Recorder] = []

    def wrap(app: ASGIApp) -> ASGIApp:
        recorders.append(Recorder(app))
        return recorders[0]

    settings = SandboxSettings(rate_limit=1_000_000, latency_ms=(20, 20))
    handle = serve_in_thread(settings, ":memory:", wrap=wrap)
    try:
        yield Service(handle, recorders[0])
    finally:
        handle.stop()


class SlowShop(BaseHTTPRequestHandler):
    """A destination that answers only once the sandbox has been asked for a page of
    links (or after ``WAIT_S``), noting which came first."""

    listed: threading.Event
    saw_listing: list[bool]

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def do_HEAD(self) -> None:
        self.saw_listing.append(self.listed.wait(WAIT_S))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_HEAD


@pytest.fixture
def shop(service: Service) -> Iterator[tuple[str, list[bool]]]:
    saw: list[bool] = []
    handler = type("Shop", (SlowShop,), {"listed": service.recorder.listed, "saw_listing": saw})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", saw
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def seed(service: Service, urls: list[str]) -> None:
    specs = [LinkSpec(url=u, slug=f"s{i}") for i, u in enumerate(urls)]
    done = linksync.apply(specs, service.settings, outputs=linksync.Outputs(journal=False))
    assert done.exit_code == 0
    service.recorder.seen.clear()
    service.recorder.listed.clear()


def test_the_listing_reaches_the_service_while_the_sources_are_read(
    service: Service, shop: tuple[str, list[bool]], workdir: Path
) -> None:
    """The reading of the sources (here: its destination check, held by a slow site)
    is still going when the plan's listing of the workspace reaches the service."""
    base, saw = shop
    seed(service, [f"{base}/old/{i}" for i in range(30)])
    Path("links.csv").write_text(f"slug,url\ns1,{base}/old/1\nnew,{base}/new\n", "utf-8")
    planned = linksync.plan(
        ["links.csv"], service.settings, reading=linksync.Reading(check_destinations=True)
    )
    assert saw and saw[0] is True, "the destination check answered before any listing"
    assert planned.exit_code == 0
    assert planned.counts["create"] == 1 and planned.counts["unchanged"] == 1
    assert service.recorder.writes() == []
    listed = [p for m, p in service.recorder.seen if m == "GET" and p.startswith(LINKS + "?")]
    assert len(listed) == 1, "one listing per run: the early page served the plan"


def test_the_apply_lists_while_reading_and_writes_after(
    service: Service, shop: tuple[str, list[bool]], workdir: Path
) -> None:
    base, saw = shop
    seed(service, [f"{base}/old/{i}" for i in range(30)])
    Path("links.csv").write_text(f"slug,url\ns1,{base}/moved\nnew,{base}/new\n", "utf-8")
    done = linksync.apply(
        ["links.csv"],
        service.settings,
        reading=linksync.Reading(check_destinations=True),
        outputs=linksync.Outputs(journal=False),
    )
    assert saw and all(saw), "the destination check answered before any listing"
    assert done.exit_code == 0 and done.counts.get("failed", 0) == 0
    seen = service.recorder.seen
    first_write = next(i for i, (m, _) in enumerate(seen) if m in ("POST", "PATCH"))
    listed = [i for i, (m, p) in enumerate(seen) if m == "GET" and p.startswith(LINKS + "?")]
    assert len(listed) == 1 and listed[0] < first_write, seen


async def test_a_refused_source_sends_no_write_and_leaves_nothing_running(
    service: Service, workdir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The reading refuses the mirror after the calls started: the same refusal as
    ever, no write, no task left, no warning of a task destroyed or a session left open."""
    await asyncio.to_thread(seed, service, [f"https://example.com/{i}" for i in range(30)])
    Path("links.yaml").write_text("links: 5\n", encoding="utf-8")  # no look finds it wrong
    mirror = linksync.SyncPolicy(mode="mirror", scope_domains=["lnk.test"])
    caplog.set_level(logging.DEBUG, logger="asyncio")
    with pytest.raises((FileProblems, MirrorRefused)) as got:
        await linksync.apply_async(
            ["links.yaml"], service.settings, sync=mirror, outputs=linksync.Outputs(journal=False)
        )
    assert "links: must be a list" in str(got.value)
    assert exit_code_for(got.value) == EXIT_USAGE
    assert asyncio.all_tasks() == {asyncio.current_task()}
    await asyncio.sleep(0.1)  # a call left running would reach the service now
    assert service.recorder.writes() == []
    warned = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert not [r for r in warned if getattr(r, "event", None) != "run_end"], caplog.text


@pytest.mark.parametrize(
    "name,text",
    [("links.csv", "slug,url\n"), ("links.csv", None), ("links.csv", "\0\0binary")],
    ids=["header-alone", "missing", "binary"],
)
def test_a_source_a_look_refuses_sends_no_request_at_all(
    service: Service, workdir: Path, name: str, text: str | None
) -> None:
    if text is not None:
        Path(name).write_text(text, encoding="utf-8")
    mirror = linksync.SyncPolicy(mode="mirror", scope_domains=["lnk.test"])
    with pytest.raises((LinksyncError, OSError)):
        linksync.apply(
            [name], service.settings, sync=mirror, outputs=linksync.Outputs(journal=False)
        )
    assert service.recorder.seen == []


def test_a_bad_file_still_wins_over_a_bad_key(service: Service, workdir: Path) -> None:
    """Both wrong: the apply says what it always said first, the file's error."""
    Path("links.yaml").write_text("links: 5\n", encoding="utf-8")
    wrong = service.settings_with("sk_wrong_key_000000000000")
    with pytest.raises(FileProblems, match="links: must be a list"):
        linksync.apply(["links.yaml"], wrong, outputs=linksync.Outputs(journal=False))
    Path("links.yaml").write_text("links:\n  - {slug: a, url: https://e.com/a}\n", "utf-8")
    with pytest.raises(Unauthorized):
        linksync.apply(["links.yaml"], wrong, outputs=linksync.Outputs(journal=False))
    assert service.recorder.writes() == []


def test_an_apply_lists_nothing_while_another_run_holds_its_lock(
    service: Service, workdir: Path
) -> None:
    Path("links.csv").write_text("slug,url\na,https://example.com/a\n", encoding="utf-8")
    with acquire_lock("run.lock", target="another run"), pytest.raises(LockError):
        linksync.apply(
            ["links.csv"],
            service.settings,
            outputs=linksync.Outputs(journal=False, lock="run.lock"),
        )
    assert [p for _, p in service.recorder.seen if p.startswith(LINKS)] == []


def test_a_client_that_cannot_open_does_not_hide_the_file_error(workdir: Path) -> None:
    """The sandbox's state folder cannot be made (a file stands in its way) and the
    source is wrong: the apply says what it always said first, the file's error."""
    Path("blocker").write_text("a file where a folder should be", encoding="utf-8")
    settings = resolve(sandbox=True, env={}, cwd=workdir)
    target = replace(settings.target, sandbox_db=str(workdir / "blocker" / "s.db"))
    settings = replace(settings, target=target)
    Path("links.yaml").write_text("links: 5\n", encoding="utf-8")
    with pytest.raises(FileProblems, match="links: must be a list"):
        linksync.apply(["links.yaml"], settings, outputs=linksync.Outputs(journal=False))
    Path("links.yaml").write_text("links:\n  - {slug: a, url: https://e.com/a}\n", "utf-8")
    with pytest.raises((LinksyncError, OSError)) as got:
        linksync.apply(["links.yaml"], settings, outputs=linksync.Outputs(journal=False))
    assert "blocker" in str(got.value)


class HeldShop(BaseHTTPRequestHandler):
    """A destination that holds every request until ``release`` is set."""

    arrived: threading.Event
    release: threading.Event

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def do_HEAD(self) -> None:
        self.arrived.set()
        self.release.wait(30)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_HEAD


def test_a_run_cancelled_while_reading_ends_without_waiting_for_the_reading(
    service: Service, workdir: Path
) -> None:
    """A Ctrl-C (the run's task cancelled) while the sources are being read ends the
    run at once: the reading is left to end on its own, it does not hold the exit."""
    arrived, release = threading.Event(), threading.Event()
    handler = type("Held", (HeldShop,), {"arrived": arrived, "release": release})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    seed(service, [f"https://example.com/{i}" for i in range(30)])
    Path("links.csv").write_text(f"slug,url\nnew,{base}/new\n", "utf-8")

    async def main() -> None:
        run = asyncio.create_task(
            linksync.plan_async(
                ["links.csv"], service.settings, reading=linksync.Reading(check_destinations=True)
            )
        )
        assert await asyncio.to_thread(arrived.wait, 10), "the reading never reached the shop"
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run

    try:
        asyncio.run(main())
        reading = [t for t in threading.enumerate() if t.name == "linksync-read"]
        assert reading and reading[0].is_alive(), "the run waited for the reading to end"
        assert reading[0].daemon
    finally:
        release.set()
        for t in threading.enumerate():
            if t.name == "linksync-read":
                t.join(30)
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("run", ["plan", "apply"])
def test_a_run_that_reads_its_file_first_lists_each_page_once(
    service: Service, workdir: Path, run: str
) -> None:
    """A short file is read before the early calls get going (an apply's first waits
    for the workspace's identity and the run lock): the run then lists the workspace
    itself, and no page is asked for a second time by calls started late."""
    seed(service, [f"https://example.com/old/{i}" for i in range(450)])
    rows = "".join(f"s{i},https://example.com/moved/{i}\n" for i in range(0, 450, 45))
    Path("links.csv").write_text("slug,url\n" + rows, encoding="utf-8")
    if run == "plan":
        planned = linksync.plan(["links.csv"], service.settings)
        assert planned.exit_code == 0 and planned.counts["update"] == 10
    else:
        off = linksync.Outputs(journal=False)
        done = linksync.apply(["links.csv"], service.settings, outputs=off)
        assert done.exit_code == 0 and done.counts["ok"] == 10
    listed = [p for m, p in service.recorder.seen if m == "GET" and p.startswith(LINKS + "?")]
    assert sorted(listed) == sorted(set(listed)), listed
    assert len(listed) == 5, listed
