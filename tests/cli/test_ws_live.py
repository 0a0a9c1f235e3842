"""The commands against `sandbox serve` on a real socket (127.0.0.1), as a user runs them:
base URL from the environment, key from a file, rate limit shared between processes."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from ws_helpers import Workspace

from linksync.sandbox import SandboxSettings
from support.sandbox_helpers import serve_in_thread

SECRET = "live-secret-key-5a4b3c2d1e"
NO_RETRY = {"rate_limited_retries": 0, "server_error_retries": 0, "unavailable_retries": 0}


def test_every_command_over_http(ws: Workspace, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    # the client's request log (the "linksync" logger may not propagate: setup_logging)
    api_log = logging.getLogger("linksync.api")
    api_log.addHandler(caplog.handler)
    caplog.set_level(logging.DEBUG, logger="linksync.api")
    keyfile = ws.root / "key.txt"
    keyfile.write_text(SECRET + "\n")
    settings = SandboxSettings(full_key=SECRET)
    with serve_in_thread(settings) as server:
        env = {"LINKSYNC_BASE_URL": server.base_url}
        flags = ("--api-key-file", str(keyfile))
        outputs = []

        def run(*args: str) -> str:
            r = ws.run(*args, *flags, env=env)
            outputs.append(r.output)
            assert r.exit_code == 0, r.output
            assert r.stderr.splitlines()[0] == f"target: {server.base_url} (profile test)"
            return r.stdout

        assert json.loads(run("org", "--json"))["plan"] == "sandbox"
        run("members", "invite", "ana@example.com", "--role", "member")
        assert "ana@example.com" in run("members", "list")
        dom = json.loads(run("domains", "add", "go.example.com", "--json"))
        run("domains", "verify", dom["id"])
        assert "go.example.com" in run("domains", "list")
        run("links", "create", "https://example.com/a", "--slug", "a", "--domain", "go.example.com")
        run("links", "update", "a", "--domain", "go.example.com", "--tag", "t")
        assert json.loads(run("links", "get", "a", "--domain", "go.example.com", "--json"))[
            "tags"
        ] == ["t"]
        assert len(json.loads(run("links", "list", "--tag", "t", "--json"))) == 1
        assert run("ai", "slug", "https://example.com/blog/post").strip()
        assert "title:" in run("ai", "og", "https://example.com/blog/post")
        run("links", "delete", "a", "--domain", "go.example.com", "--yes")
        run("domains", "remove", dom["id"], "--yes")
        bad = ws.run("links", "get", "a", *flags, env=env)
        outputs.append(bad.output)
        assert bad.exit_code == 1 and "LINK_NOT_FOUND" in bad.stderr
    api_log.removeHandler(caplog.handler)
    logs = "\n".join(rec.getMessage() for rec in caplog.records)
    assert SECRET not in "\n".join(outputs) and SECRET not in logs
    assert "GET /api/v1/organizations/current -> HTTP 200" in logs  # requests were logged


def test_rate_limited_after_the_announced_retries(ws: Workspace) -> None:
    ws.write(profile={"retry": NO_RETRY})
    settings = SandboxSettings(rate_limit=1, rate_window_s=60)
    with serve_in_thread(settings) as server:
        env = {"LINKSYNC_BASE_URL": server.base_url, "LINKSYNC_API_KEY": settings.full_key}
        assert ws.run("org", env=env).exit_code == 0
        r = ws.run("org", env=env)  # another process, same window: 429 at once
    assert r.exit_code == 1
    assert "RATE_LIMITED" in r.stderr and "HTTP 429" in r.stderr and "code 42901" in r.stderr
    assert "requestId" in r.stderr


def test_plain_http_is_fine_on_loopback_only(ws: Workspace, tmp_path: Path) -> None:
    r = ws.run("org", "--base-url", "http://192.0.2.1:8787", env={"LINKSYNC_API_KEY": SECRET})
    assert r.exit_code == 2 and "refusing to send the API key over plain http" in r.stderr
    assert SECRET not in r.output
