"""The action's ``notify`` and ``check-destinations`` inputs, run locally as
action/local.py runs action.yml: alerts reach a webhook receiver on 127.0.0.1 through
apprise's json://, the notify URL never shows in the job's log, summary or outputs; the
destinations are checked against the same local server (a page that answers 404)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from action_helpers import KEY, run_action, served_sandbox

TOKEN = "N0TIFY-token-of-the-webhook-987654321"


class Site:
    """127.0.0.1: answers 404 on /gone and 200 elsewhere (HEAD, GET), and keeps each
    JSON body posted to it (the alerts)."""

    def __init__(self) -> None:
        self.alerts: list[dict[str, Any]] = []
        alerts = self.alerts

        class Handler(BaseHTTPRequestHandler):
            def do_HEAD(self) -> None:
                self.send_response(404 if self.path == "/gone" else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_HEAD

            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length", 0))
                alerts.append(json.loads(self.rfile.read(size)))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.notify_url = f"json://127.0.0.1:{self.server.server_address[1]}/hook?token={TOKEN}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture
def site() -> Iterator[Site]:
    s = Site()
    yield s
    s.close()


def links_repo(tmp_path: Path, site: Site) -> Path:
    work = tmp_path / "repo"
    (work / "links").mkdir(parents=True)
    (work / "links" / "links.yaml").write_text(
        "links:\n"
        f"  - {{slug: live-page, url: {site.base}/live}}\n"
        f"  - {{slug: gone-page, url: {site.base}/gone}}\n",
        encoding="utf-8",
    )
    return work


def test_apply_alerts_once_and_never_shows_the_notify_url(tmp_path: Path, site: Site) -> None:
    repo = links_repo(tmp_path, site)
    out = tmp_path / "out"
    with served_sandbox(tmp_path) as base_url:
        run = run_action(
            repo,
            "files=links/",
            f"base-url={base_url}",
            "env:api-key=LINKSYNC_TEST_KEY",
            "env:notify=LINKSYNC_TEST_NOTIFY",
            "check-destinations=true",
            "args=--notify-on always",
            f"output-dir={out}",
            LINKSYNC_TEST_KEY=KEY,
            LINKSYNC_TEST_NOTIFY=f"{site.notify_url}\n",
        )
    assert run.code == 0, run.stderr
    assert run.outputs["command"] == "apply" and run.outputs["exitcode"] == "0"
    assert run.outputs["creates"] == "2"
    # the plan before the apply does not alert: one alert, the apply's
    assert len(site.alerts) == 1, site.alerts
    assert "linksync" in site.alerts[0]["title"]
    assert "alerts: 1 notify URL(s) (not shown: secrets)" in run.stderr
    # both runs checked the destinations; the dead one is a warning on its row
    commands = [line for line in run.stderr.splitlines() if line.startswith("$ linksync ")]
    assert len(commands) == 2
    assert all("--check-destinations" in c for c in commands), commands
    assert "::warning" in run.stdout and "DEST_NOT_FOUND" in run.stdout
    files = [p.read_text(encoding="utf-8") for p in out.rglob("*") if p.is_file()]
    for text in (run.stdout, run.stderr, run.summary, json.dumps(run.outputs), *files):
        assert TOKEN not in text and KEY not in text


def test_validate_checks_the_destinations(tmp_path: Path, site: Site) -> None:
    run = run_action(
        links_repo(tmp_path, site), "files=links/", "command=validate", "check-destinations=true"
    )
    assert run.code == 0, run.stderr  # a dead destination is a warning, not a failure
    assert "Checked 2 destination URL(s)" in run.stderr
    (line,) = [x for x in run.stdout.splitlines() if "DEST_NOT_FOUND" in x]
    assert line.startswith("::warning file=links/links.yaml,line=3::DEST_NOT_FOUND"), line
    assert "alerts:" not in run.stderr and site.alerts == []


def test_without_the_input_nothing_is_requested(tmp_path: Path, site: Site) -> None:
    run = run_action(links_repo(tmp_path, site), "files=links/", "command=validate")
    assert run.code == 0, run.stderr
    assert "Checked" not in run.stderr and "DEST_NOT_FOUND" not in run.stdout


def test_check_destinations_must_be_true_or_false(tmp_path: Path, site: Site) -> None:
    run = run_action(
        links_repo(tmp_path, site), "files=links/", "command=validate", "check-destinations=yes"
    )
    assert run.code == 2
    assert "::error::check-destinations must be true or false (got 'yes')" in run.stdout
