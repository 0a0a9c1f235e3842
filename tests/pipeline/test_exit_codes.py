"""Exit codes that say what happened: 2 only when nothing was written remotely.

The service is the sandbox on 127.0.0.1, behind a small ASGI middleware that changes
its answers mid-run the way a real workspace can (a key revoked, write permission
taken away) or does something on the side (the user's sync client removing the source
while linksync writes)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from starlette.types import ASGIApp, Receive, Scope, Send

from linksync.api import LinkServiceClient
from linksync.sandbox import DEFAULT_FULL_KEY, DEFAULT_READ_KEY, SandboxSettings
from support.cli_runs import Source, run
from support.sandbox_helpers import ServerHandle, serve_in_thread

pytestmark = pytest.mark.usefixtures("_umask")  # umask 022 for the files runs create

ROWS = 15


class AfterPosts:
    """Lets ``after`` link creations through untouched, then calls ``then(scope)`` on
    every later one (which may change the request, or the world)."""

    def __init__(self, app: ASGIApp, after: int, then: Callable[[Scope], Scope]) -> None:
        self.app, self.after, self.then, self.posts = app, after, then, 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and (scope["method"], scope["path"]) == (
            "POST",
            "/api/v1/links",
        ):
            self.posts += 1
            if self.posts > self.after:
                scope = self.then(scope)
        await self.app(scope, receive, send)


def with_key(key: str) -> Callable[[Scope], Scope]:
    def swap(scope: Scope) -> Scope:
        headers = [(k, v) for k, v in scope["headers"] if k != b"authorization"]
        return {**scope, "headers": [*headers, (b"authorization", f"Bearer {key}".encode())]}

    return swap


@pytest.fixture
def serve() -> Iterator[Callable[[int, Callable[[Scope], Scope]], str]]:
    handles: list[ServerHandle] = []

    def start(after: int, then: Callable[[Scope], Scope]) -> str:
        handle = serve_in_thread(
            SandboxSettings(rate_limit=1_000_000),
            wrap=lambda app: AfterPosts(app, after, then),
        )
        handles.append(handle)
        return handle.base_url

    yield start
    for handle in handles:
        handle.stop()


@pytest.fixture
def campaign(workdir: Path, monkeypatch: pytest.MonkeyPatch) -> Source:
    monkeypatch.setenv("LINKSYNC_API_KEY", DEFAULT_FULL_KEY)
    path = workdir / "campaign.csv"
    rows = "".join(f"c{i:02d},https://example.com/{i}\n" for i in range(ROWS))
    path.write_text("slug,url\n" + rows, encoding="utf-8")
    return Source.of(path)


def slugs(base_url: str) -> list[str]:
    async def go() -> list[str]:
        async with LinkServiceClient(base_url, DEFAULT_FULL_KEY) as client:
            return sorted(link.slug for link in await client.list_links())

    return asyncio.run(go())


def apply(base_url: str, *extra: str) -> tuple[int, str, str]:
    result = run("apply", "campaign.csv", "--yes", "--no-progress", "--base-url", base_url, *extra)
    return result.exit_code, result.stdout, result.stderr


def test_forbidden_after_ten_creates_exits_1_and_says_ten_were_created(
    serve: Callable[[int, Callable[[Scope], Scope]], str], campaign: Source, workdir: Path
) -> None:
    url = serve(10, with_key(DEFAULT_READ_KEY))
    code, out, _ = apply(url, "--report", "r.json", "--concurrency", "1")
    assert code == 1, out
    assert (
        "Stopped: the API key may not write (403 FORBIDDEN), after 10 created; "
        "4 row(s) not attempted." in out
    )
    assert "Exit code 1" in out and "nothing done" not in out
    assert len(slugs(url)) == 10
    rows = json.loads((workdir / "r.json").read_text())["results"]
    assert sum(r["status"] == "ok" for r in rows) == 10
    assert {r["error_constant"] for r in rows if r["status"] != "ok"} <= {
        "FORBIDDEN",
        "NOT_ATTEMPTED",
    }
    assert campaign.untouched()


def test_key_revoked_mid_run_exits_1_not_2(
    serve: Callable[[int, Callable[[Scope], Scope]], str], campaign: Source
) -> None:
    url = serve(4, with_key("revoked-key"))
    code, out, _ = apply(url)
    assert code == 1, out
    assert "Stopped: the API key was refused (401 UNAUTHORIZED), after 4 created" in out
    assert len(slugs(url)) == 4
    assert campaign.untouched()


def test_forbidden_from_the_first_write_is_exit_2_nothing_done(
    serve: Callable[[int, Callable[[Scope], Scope]], str], campaign: Source
) -> None:
    url = serve(0, with_key(DEFAULT_READ_KEY))
    code, out, _ = apply(url)
    assert code == 2, out
    assert "after nothing written" in out
    assert "Exit code 2: usage, config or auth error (nothing done)" in out
    assert slugs(url) == []
    assert campaign.untouched()


def test_an_error_after_writes_is_exit_1_and_names_what_was_written(
    serve: Callable[[int, Callable[[Scope], Scope]], str], campaign: Source, workdir: Path
) -> None:
    """The source disappears while linksync writes (a sync client, a colleague): the
    annotated copy cannot be made after the links were created. Not exit 2."""
    source = workdir / "campaign.csv"

    def remove_source(scope: Scope) -> Scope:
        source.unlink(missing_ok=True)
        return scope

    url = serve(3, remove_source)
    code, _, err = apply(url, "--annotate", "copy.csv")
    assert code == 1, err
    assert f"Before this error the run wrote to the workspace: {ROWS} created" in err
    assert "the journal .linksync/runs/" in err
    assert len(slugs(url)) == ROWS
    assert not (workdir / "copy.csv").exists()


def test_exit_2_when_the_lock_is_held_and_nothing_is_written(
    campaign: Source, workdir: Path, serve: Callable[[int, Callable[[Scope], Scope]], str]
) -> None:
    from linksync.config import resolve
    from linksync.config.identity import read_workspace_identity
    from linksync.pipeline.lock import acquire_lock, default_lock_path

    url = serve(1_000, with_key(DEFAULT_FULL_KEY))
    settings = resolve(base_url=url, env={"LINKSYNC_API_KEY": DEFAULT_FULL_KEY}, cwd=workdir)
    identity = asyncio.run(read_workspace_identity(settings))  # the workspace's own lock
    with acquire_lock(default_lock_path(identity), target="the other run"):
        code, _, err = apply(url, "--lock-wait", "0.2", "--report", "r.csv")
    assert code == 2
    assert "another linksync run holds the lock" in err and "(target the other run)" in err
    assert "waited 0.2 s" in err and "Nothing was done" in err
    assert slugs(url) == []
    # Nothing left behind: no report, no temporary file, no journal.
    assert sorted(p.name for p in workdir.iterdir()) == ["campaign.csv"]
    code, _, _ = apply(url)
    assert code == 0 and len(slugs(url)) == ROWS
