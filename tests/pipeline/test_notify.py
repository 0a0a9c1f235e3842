"""Alerts at the end of a run (``--notify URL``, ``notify:``; ``linksync.pipeline.notify``),
delivered through apprise's ``json://`` to a webhook receiver on 127.0.0.1: the payload
(title, counts, top errors, never a key nor the notify URL), the conditions (failed,
drift, stopped, always), an undeliverable URL (a warning, the exit code unchanged),
each target's own alert with ``--all``, and the profile keys."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import openpyxl
import pytest

import linksync
import linksync.pipeline
from linksync.config.profiles import parse_profile
from linksync.errors import ConfigError, LinksyncError
from linksync.model import Action, RunInfo
from linksync.pipeline.notify import Alerts, RunEnd, ci_links, conditions, message
from linksync.report.plans import plan_counts, plan_row, plan_rows
from linksync.report.summary import Counts, count_results
from linksync.sandbox.settings import DEFAULT_FULL_KEY
from support.cli_runs import run
from support.two_workspaces import settings_of

TOKEN = "T0KEN-of-the-webhook-0123456789"
BAD_ROWS = "slug,url\nok-one,https://example.com/one\nbroken,not a url\n"
GOOD_ROWS = "slug,url\nok-one,https://example.com/one\n"


class Receiver:
    """A webhook on 127.0.0.1 that keeps every JSON body posted to it."""

    def __init__(self) -> None:
        self.got: list[tuple[str, dict[str, Any]]] = []
        got = self.got

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length", 0))
                got.append((self.path, json.loads(self.rfile.read(size))))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str = "hook") -> str:
        port = self.server.server_address[1]
        return f"json://127.0.0.1:{port}/{path}?token={TOKEN}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    rx = Receiver()
    yield rx
    rx.close()


@pytest.fixture
def closed_url() -> str:
    """A json:// URL on a port of 127.0.0.1 nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"json://127.0.0.1:{port}/hook?token={TOKEN}"


def write(workdir: Path, text: str) -> str:
    (workdir / "links.csv").write_text(text, encoding="utf-8")
    return "links.csv"


def test_failed_rows_alert_with_counts_and_top_errors_and_no_secret(
    workdir: Path, receiver: Receiver
) -> None:
    src = write(workdir, BAD_ROWS)
    res = run("apply", src, "--yes", "--notify", receiver.url(), "--report", "out.csv")
    assert res.exit_code == 1  # the rows' code, the alert changes nothing
    ((path, payload),) = receiver.got
    assert path.startswith("/hook")
    assert (
        payload["title"] == "linksync apply built-in sandbox (.linksync/sandbox.db): 1 row failed"
    )
    body = payload["message"]
    assert "Why this alert: failed" in body
    assert "create        1 (ok 1)" in body and "Status: ok 1, invalid 1" in body
    assert "INVALID_URL x1" in body and "links.csv, row 3" in body
    assert "duration" in body and "out.csv" in body
    assert payload["type"] == "failure"
    assert "notified 1 of 1 (json)" in res.output
    everything = res.output + json.dumps(payload) + Path("out.csv").read_text(encoding="utf-8")
    assert TOKEN not in everything and DEFAULT_FULL_KEY not in everything


def test_an_undeliverable_alert_is_a_warning_and_the_exit_code_stays(
    workdir: Path, receiver: Receiver, closed_url: str
) -> None:
    src = write(workdir, GOOD_ROWS)
    res = run(
        "apply", src, "--yes", "--notify", closed_url, "--notify", receiver.url(),
        "--notify-on", "always",
    )  # fmt: skip
    assert res.exit_code == 0
    assert "Warning: notified 1 of 2 (json): not delivered to json" in res.output
    assert TOKEN not in res.output and "127.0.0.1" not in res.output
    assert len(receiver.got) == 1  # the other URL still got its alert


def test_default_conditions_keep_a_clean_run_quiet_and_drift_and_always_speak(
    workdir: Path, receiver: Receiver
) -> None:
    src = write(workdir, GOOD_ROWS)
    quiet = run("plan", src, "--notify", receiver.url())
    assert quiet.exit_code == 0 and receiver.got == [] and "notified" not in quiet.output
    drift = run("plan", src, "--notify", receiver.url(), "--notify-on", "drift")
    assert drift.exit_code == 0
    ((_, payload),) = receiver.got
    assert payload["title"].endswith(": 1 changes pending")
    assert "Why this alert: drift" in payload["message"] and payload["type"] == "warning"
    assert run("apply", src, "--yes").exit_code == 0
    receiver.got.clear()
    run("plan", src, "--notify", receiver.url(), "--notify-on", "drift")
    assert receiver.got == []  # nothing left to change: no drift
    run("apply", src, "--yes", "--notify", receiver.url(), "--notify-on", "always")
    ((_, payload),) = receiver.got
    assert payload["title"].endswith(": done") and payload["type"] == "info"


def test_a_stopped_run_alerts_then_raises(receiver: Receiver, config: Path) -> None:
    settings = settings_of(config, "brand-b")
    settings = replace(settings, target=replace(settings.target, api_key="not-a-key"))
    with pytest.raises(LinksyncError):
        linksync.plan(
            ["links/b.yaml"], settings=settings, notify=linksync.Notify(urls=[receiver.url()])
        )
    ((_, payload),) = receiver.got
    assert payload["title"].endswith(": stopped")
    assert "Why this alert: stopped" in payload["message"]
    assert "Stopped: UNAUTHORIZED" in payload["message"] and "HTTP 401" in payload["message"]
    assert "Duration: " in payload["message"]
    assert "Requests" not in payload["message"]  # not known: not claimed
    assert "not-a-key" not in json.dumps(payload)


def test_with_all_each_target_sends_its_own_alert(
    config: Path, monkeypatch: pytest.MonkeyPatch, receiver: Receiver
) -> None:
    monkeypatch.setenv("BRAND_B_KEY", "not-a-key")
    res = run("apply", "--all", "--yes", "--notify", receiver.url(), "--notify-on", "stopped")
    assert res.exit_code == 1  # brand-a wrote, brand-b was refused
    ((_, payload),) = receiver.got  # brand-a ended well: not an alert of "stopped"
    assert payload["title"].startswith("linksync apply brand-b (built-in sandbox")
    assert payload["title"].endswith(": stopped") and "not-a-key" not in json.dumps(payload)
    assert "[brand-b] notified 1 of 1 (json)" in res.output


def test_a_target_names_its_own_notify_urls(
    config: Path, receiver: Receiver, closed_url: str
) -> None:
    text = config.read_text(encoding="utf-8")
    text = text.replace(
        "    files: [links/a.csv]\n",
        f"    files: [links/a.csv]\n    notify: ['{receiver.url('a')}']\n    notify_on: [always]\n",
    )
    config.write_text(text, encoding="utf-8")
    every = linksync.plan_all(config=config, env={"BRAND_B_KEY": DEFAULT_FULL_KEY})
    assert every.exit_code == 0
    assert [path.partition("?")[0] for path, _ in receiver.got] == ["/a"]
    assert "3 changes pending" in receiver.got[0][1]["title"]


def test_profile_keys_are_checked_and_never_show_a_url() -> None:
    prof = parse_profile("p", {"notify": "json://h/x?t=secret123", "notify_on": "failed,drift"})
    assert prof.notify == ("json://h/x?t=secret123",) and prof.notify_on == ("failed", "drift")
    assert "secret123" not in repr(prof)
    with pytest.raises(ConfigError, match="notify must be a list"):
        parse_profile("p", {"notify": [1]})
    with pytest.raises(ConfigError, match="notify_on nightly: choose among failed, drift"):
        parse_profile("p", {"notify_on": ["nightly"]})


def test_a_url_apprise_cannot_use_is_a_usage_error_before_any_request(workdir: Path) -> None:
    src = write(workdir, GOOD_ROWS)
    res = run("apply", src, "--yes", "--notify", f"nosuchservice://{TOKEN}")
    assert res.exit_code == 2
    assert "notify URL #1 (nosuchservice://...)" in res.output and TOKEN not in res.output
    assert not (workdir / ".linksync" / "runs").exists()  # nothing ran


def test_flags_replace_the_profile_and_the_conditions_default() -> None:
    assert Alerts.of(("json://a",), None).on == ("failed", "stopped")
    assert Alerts.of(("json://a",), ("drift",), ["json://b"]).urls == ("json://b",)
    assert Alerts.of((), ("drift",), notify_on="always, failed").on == ("always", "failed")
    with pytest.raises(ConfigError, match="--notify-on"):
        Alerts.of((), None, notify_on="sometimes")
    long = Alerts(("slack://T0000000000000000/B1111/XXXXXXXXXXXXXXXXXXXXXXXX",)).secrets()
    assert "T0000000000000000" in long and "XXXXXXXXXXXXXXXXXXXXXXXX" in long
    mail = Alerts(("mailtos://alerts:pw-9@smtp.example.com?to=oncall@example.com",))
    assert "pw-9" in mail.secrets()


def test_in_github_actions_the_message_links_the_run_and_the_pull_request() -> None:
    env = {
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_REPOSITORY": "acme/links",
        "GITHUB_RUN_ID": "42",
        "GITHUB_REF": "refs/pull/7/merge",
    }
    assert ci_links(env) == (
        "https://github.com/acme/links/actions/runs/42",
        "https://github.com/acme/links/pull/7",
    )
    assert ci_links({"GITHUB_RUN_ID": "42"}) == ()
    end = RunEnd("apply", RunInfo("brand-a"), Counts(), stopped="403 FORBIDDEN")
    met = conditions(Alerts(("json://x",)), end)
    assert met == ("stopped",)
    title, body = message(end, met, env)
    assert title == "linksync apply brand-a: stopped"
    assert "Stopped: 403 FORBIDDEN" in body
    assert "CI: https://github.com/acme/links/pull/7" in body


def test_a_plans_alert_counts_its_rows_making_only_those_with_an_error(workdir: Path) -> None:
    """``plan_counts`` gives what counting every report row of the plan gives, from the
    changes (a row built only as the example of an error constant); no module of the pipeline lists
    a plan's rows (``plan_rows``: only an output that lists rows makes them all)."""
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["slug", "url"])
    for slug, url in [("kept", "https://example.com/k"), ("new", "https://example.com/n")]:
        sheet.append([slug, url])
    sheet.append(["broken", "not a url"])
    sheet.append(["hidden", "https://example.com/h"])
    sheet.row_dimensions[5].hidden = True
    book.save(workdir / "links.xlsx")
    (workdir / "first.csv").write_text("slug,url\nkept,https://example.com/k\n", "utf-8")
    assert linksync.apply(["first.csv"]).exit_code == 0
    made = linksync.plan(["links.xlsx"]).plan
    assert {a: n for a, n in made.counts.items() if n} == {
        "create": 1, "unchanged": 1, "invalid": 1, "skip": 1
    }  # fmt: skip
    erring = [plan_row(ch) for ch in made.changes if ch.action is Action.INVALID]
    assert [r.error_constant for r in erring] == ["INVALID_URL"]
    assert plan_counts(made) == count_results(plan_rows(made))
    pipeline = Path(linksync.pipeline.__file__).parent
    callers = [p.name for p in pipeline.glob("*.py") if "plan_rows(" in p.read_text("utf-8")]
    assert callers == []


def test_an_undo_that_leaves_a_link_as_it_is_alerts_as_failed(
    workdir: Path, receiver: Receiver
) -> None:
    """A rollback job hears of an undo that did not set everything back: its exit code
    is 1, and the default alert ("failed") goes out, saying how many links were left."""
    from linksync.config import resolve

    write(workdir, "slug,url\nu-1,https://example.com/1\nu-2,https://example.com/2\n")
    assert run("apply", "links.csv", "--yes", "--no-progress").exit_code == 0
    write(workdir, "slug,url\nu-1,https://example.com/1b\nu-2,https://example.com/2b\n")
    applied = run("apply", "links.csv", "--yes", "--no-progress")
    assert applied.exit_code == 0, applied.output
    settings = resolve(cwd=workdir, env={}, sandbox=True)

    async def edit_by_hand() -> None:
        async with settings.open_client() as client:
            await client.update_link("u-2", {"url": "https://example.com/by-hand"})

    asyncio.run(edit_by_hand())
    results = linksync.undo(settings=settings, notify=linksync.Notify(urls=[receiver.url()]))
    assert results.exit_code == 1
    ((_, payload),) = receiver.got
    assert payload["title"].endswith(": not fully undone: 1 link left"), payload["title"]
    assert "Why this alert: failed" in payload["message"] and payload["type"] == "failure"


def test_a_run_the_key_stops_says_stopped_once_in_its_alert(
    workdir: Path, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A key that may not write (403 on the first create): the alert's body says the
    run's stop sentence once ('Stopped: the API key may not write ...'), not
    'Stopped: Stopped: ...', and its counts follow."""
    monkeypatch.setenv("LINKSYNC_API_KEY", "sandbox-read-only-key")
    src = write(workdir, "slug,url\nzz1,https://example.com/zz\nzy1,https://example.com/zy\n")
    res = run("apply", src, "--yes", "--notify", receiver.url())
    assert res.exit_code == 2, res.output
    ((_, payload),) = receiver.got
    body = payload["message"]
    assert "Stopped: the API key may not write (403 FORBIDDEN)" in body
    assert "Stopped: Stopped:" not in body and body.count("Stopped:") == 1
    assert "Status: failed 1, skipped 1" in body and payload["type"] == "failure"
