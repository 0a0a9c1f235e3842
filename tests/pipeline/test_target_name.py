"""The target is named whole: scheme, host and port, with the profile or target that
named it, in the console, the plan comment (markdown), the reports' run facts and the
alert; never the key, nor the URL's path (it may hold a token). Before, a profile's
``http://127.0.0.1:8443`` read as ``http://127.0.0.1`` in all of them: staging as
production."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from linksync.config import resolve
from linksync.sandbox import DEFAULT_FULL_KEY
from support.cli_runs import run

LINKS = "slug,url\nspring,https://example.com/spring\n"


class Hook:
    """A webhook on 127.0.0.1 keeping the JSON bodies apprise's ``json://`` posts."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        bodies = self.bodies

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length", 0))
                bodies.append(json.loads(self.rfile.read(size)))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"json://127.0.0.1:{self.server.server_address[1]}/hook"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture
def hook() -> Iterator[Hook]:
    got = Hook()
    yield got
    got.close()


@pytest.fixture
def staging(workdir: Path, live_sandbox: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """A profile ``staging`` on the sandbox served at 127.0.0.1:PORT; its name, whole."""
    monkeypatch.setenv("STAGING_KEY", DEFAULT_FULL_KEY)
    (workdir / "linksync.yaml").write_text(
        f"profiles:\n  staging:\n    base_url: {live_sandbox}/\n    api_key_env: STAGING_KEY\n"
        f"targets:\n  spring:\n    base_url: {live_sandbox}\n    api_key_env: STAGING_KEY\n"
        "    files: [links.csv]\n",
        encoding="utf-8",
    )
    (workdir / "links.csv").write_text(LINKS, encoding="utf-8")
    assert live_sandbox.startswith("http://127.0.0.1:")
    return f"{live_sandbox} (profile staging)"


def test_the_console_the_plan_comment_the_report_and_the_alert_keep_the_port(
    staging: str, hook: Hook
) -> None:
    plan = run("plan", "links.csv", "--profile", "staging", "--format", "markdown")
    assert plan.exit_code == 0, plan.output
    assert f"target: {staging}" in plan.stderr
    assert staging in plan.stdout  # the plan comment a pull request shows

    args = ["links.csv", "--profile", "staging", "--yes", "--no-progress", "--report", "r.json"]
    done = run("apply", *args, "--notify", hook.url, "--notify-on", "always")
    assert done.exit_code == 0, done.output
    assert f"target: {staging}" in done.stderr
    assert f"linksync apply: {staging}" in done.stdout  # the summary
    facts = json.loads(Path("r.json").read_text(encoding="utf-8"))["run"]
    assert facts["target"] == staging
    (alert,) = hook.bodies
    assert staging in alert["title"] and f"linksync apply: {staging}" in alert["message"]
    assert DEFAULT_FULL_KEY not in done.output + json.dumps(alert) + json.dumps(facts)


def test_a_target_of_the_targets_block_keeps_its_port(staging: str) -> None:
    whole = staging.replace("(profile staging)", "(target spring)")
    result = run("plan", "--all")
    assert result.exit_code == 0, result.output
    assert f"== spring: {whole} ==" in result.stdout


def test_the_name_is_scheme_host_and_port_never_the_path(tmp_path: Path) -> None:
    env = {"LINKSYNC_API_KEY": "k"}
    url = "https://API.Example.com:8443/t/s3cret-path-token/"
    (tmp_path / "linksync.yaml").write_text(f"base_url: {url}\n", encoding="utf-8")
    target = resolve(env=env, cwd=tmp_path).target
    assert target.label == "https://api.example.com:8443"
    assert target.base_url == url.rstrip("/")  # requests still go to the path
    assert "s3cret" not in target.describe()
    ipv6 = resolve(env=env, cwd=tmp_path, base_url="http://[::1]:8787").target
    assert ipv6.label == "http://[::1]:8787"
