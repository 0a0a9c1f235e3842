"""Helpers of the action tests: ``linksync sandbox serve`` as a real process, a fake
GitHub REST API (issue comments only) on 127.0.0.1, and the action run locally."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from linksync.sandbox.server import base_url_of, bind, make_server

ROOT = Path(__file__).resolve().parents[2]
ACTION_DIR = ROOT / "action"
BIN = Path(sys.executable).parent
KEY = "k-action-secret-4242"
GH_TOKEN = "gh-test-token"


def env_with_linksync(**extra: str) -> dict[str, str]:
    """This environment with the test virtualenv's bin first on PATH (``linksync``),
    and no target or GitHub settings leaking in from outside."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LINKSYNC_", "GITHUB_"))}
    if "LINKSYNC_STATE_DIR" in os.environ:  # the test's own run locks, not the machine's
        env["LINKSYNC_STATE_DIR"] = os.environ["LINKSYNC_STATE_DIR"]
    env["PATH"] = os.pathsep.join([str(BIN), env.get("PATH", "")])
    env.update(extra)
    return env


@contextmanager
def served_sandbox(tmp: Path) -> Iterator[str]:
    """``linksync sandbox serve`` on a free port (state in memory), as a user starts it."""
    log = (tmp / "sandbox.log").open("w")
    proc = subprocess.Popen(
        [str(BIN / "linksync"), "sandbox", "serve", "--port", "0", "--memory", "--full-key", KEY],
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
        env=env_with_linksync(),
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("linksync sandbox listening on http://127.0.0.1:"), first
        yield first.split()[-1]
    finally:
        proc.terminate()
        proc.communicate(timeout=10)
        log.close()


@dataclass
class FakeGitHub:
    """Issue comments as GitHub's REST API keeps them, and every request it got."""

    comments: list[dict[str, Any]] = field(default_factory=list)
    requests: list[tuple[str, str]] = field(default_factory=list)
    refuse_writes: bool = False
    base_url: str = ""
    _next_id: int = 1000

    def add(self, number: int, body: str, user: str = "someone") -> dict[str, Any]:
        self._next_id += 1
        comment = {"id": self._next_id, "issue": number, "body": body, "user": {"login": user}}
        comment["html_url"] = f"https://github.test/pr/{number}#issuecomment-{self._next_id}"
        self.comments.append(comment)
        return comment

    def app(self) -> Starlette:
        async def listing(request: Request) -> JSONResponse:
            denied = self._check(request)
            if denied is not None:
                return denied
            number = int(request.path_params["number"])
            if request.method == "POST":
                if self.refuse_writes:
                    return JSONResponse({"message": "Resource not accessible"}, 403)
                body = (await request.json())["body"]
                return JSONResponse(self.add(number, body, "github-actions[bot]"), 201)
            per_page = int(request.query_params.get("per_page", 30))
            page = int(request.query_params.get("page", 1))
            mine = [c for c in self.comments if c["issue"] == number]
            return JSONResponse(mine[(page - 1) * per_page : page * per_page])

        async def one(request: Request) -> JSONResponse:
            denied = self._check(request)
            if denied is not None:
                return denied
            if self.refuse_writes:
                return JSONResponse({"message": "Resource not accessible"}, 403)
            found = [c for c in self.comments if c["id"] == int(request.path_params["id"])]
            if not found:
                return JSONResponse({"message": "Not Found"}, 404)
            found[0]["body"] = (await request.json())["body"]
            return JSONResponse(found[0])

        return Starlette(
            routes=[
                Route(
                    "/repos/{owner}/{repo}/issues/{number:int}/comments",
                    listing,
                    methods=["GET", "POST"],
                ),
                Route("/repos/{owner}/{repo}/issues/comments/{id:int}", one, methods=["PATCH"]),
            ]
        )

    def _check(self, request: Request) -> JSONResponse | None:
        self.requests.append((request.method, request.url.path))
        if request.headers.get("authorization") != f"Bearer {GH_TOKEN}":
            return JSONResponse({"message": "Bad credentials"}, 401)
        return None

    def on(self, number: int) -> list[dict[str, Any]]:
        return [c for c in self.comments if c["issue"] == number]


@contextmanager
def fake_github() -> Iterator[FakeGitHub]:
    fake = FakeGitHub()
    sock = bind("127.0.0.1", 0)
    server = make_server(fake.app(), sock)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "fake GitHub did not start"
        time.sleep(0.005)
    fake.base_url = base_url_of(sock)
    try:
        yield fake
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def pull_request_env(tmp: Path, fake: FakeGitHub, number: int) -> dict[str, str]:
    """What the runner sets for the comment step of a pull request's job."""
    event = tmp / f"event-{number}.json"
    event.write_text(json.dumps({"number": number, "pull_request": {"number": number}}))
    return {
        "GITHUB_API_URL": fake.base_url,
        "GITHUB_REPOSITORY": "acme/links",
        "GITHUB_EVENT_PATH": str(event),
    }


@dataclass
class ActionRun:
    code: int
    outputs: dict[str, str]
    stdout: str
    stderr: str
    summary: str


def run_action(
    workdir: Path, *inputs: str, event: str = "push", ref: str = "refs/heads/main", **env: str
) -> ActionRun:
    """The action's steps through action/local.py, as samples/ci/run-locally.sh runs
    them; the key comes from the environment (``--input-env``), never an argument."""
    summary = workdir / "summary.md"
    summary.write_text("")
    args = [sys.executable, str(ACTION_DIR / "local.py"), "--event", event, "--ref", ref]
    outputs_file = workdir / "outputs.json"
    outputs_file.unlink(missing_ok=True)
    args += ["--token", GH_TOKEN, "--workdir", str(workdir), "--outputs", str(outputs_file)]
    args += ["--input", "version=preinstalled", "--input", "python-version="]
    for item in inputs:
        args += (
            ["--input-env", item.removeprefix("env:")]
            if item.startswith("env:")
            else [
                "--input",
                item,
            ]
        )
    proc = subprocess.run(
        args,
        capture_output=True,
        text=True,
        env=env_with_linksync(GITHUB_STEP_SUMMARY=str(summary), **env),
        timeout=120,
        check=False,
    )
    outputs = json.loads(outputs_file.read_text()) if outputs_file.is_file() else {}
    return ActionRun(proc.returncode, outputs, proc.stdout, proc.stderr, summary.read_text())
