"""--check-destinations against real sockets on 127.0.0.1 only: a small http.server
(200, redirect chains, a loop, 404, 500, a slow answer, a refused HEAD, a 429 with
Retry-After, a redirect to another host) and an HTTPS server whose certificate comes
from a CA of the test's own, unknown unless the check is told to trust it."""

from __future__ import annotations

import csv
import json
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

import linksync
from linksync.api.network import Network
from linksync.cli import cli
from linksync.pipeline.events import RunEvents
from linksync.validate.destinations import (
    USER_AGENT,
    Politeness,
    _failure,
    check_urls,
    retry_after,
)

from .pki import make_pki
from .servers import free_port

FAST = Politeness(timeout=0.5, rate=200.0, retry_after_max=1.0, max_redirects=5)


class _Handler(BaseHTTPRequestHandler):
    seen: list[tuple[str, str, str]]  # (method, path, user agent), set per server
    counts: dict[str, int]

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def _answer(self, status: int, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _route(self) -> None:
        path = self.path
        self.seen.append((self.command, path, self.headers.get("User-Agent", "")))
        self.counts[path] = self.counts.get(path, 0) + 1
        port = self.server.server_address[1]
        routes: dict[str, tuple[int, dict[str, str]]] = {
            "/ok": (200, {}),
            "/r1": (301, {"Location": "/r2"}),
            "/r2": (302, {"Location": "/ok"}),
            "/loop-a": (301, {"Location": "/loop-b"}),
            "/loop-b": (301, {"Location": "/loop-a"}),
            "/gone": (404, {}),
            "/removed": (410, {}),
            "/private": (403, {}),
            "/fail": (500, {}),
            "/away": (301, {"Location": f"http://localhost:{port}/ok"}),
        }
        if path == "/slow":
            time.sleep(1.5)
            self._answer(200)
        elif path == "/head-refused":
            self._answer(405 if self.command == "HEAD" else 200)
        elif path == "/busy":
            first = self.counts[path] == 1
            self._answer(429, {"Retry-After": "0"}) if first else self._answer(200)
        elif path.startswith("/many"):
            hops = sum(c for p, c in self.counts.items() if p.startswith("/many"))
            self._answer(301, {"Location": f"/many{hops}x"})
        elif path == "/to-https":
            self._answer(301, {"Location": self.server.https_ok})  # type: ignore[attr-defined]
        elif path in routes:
            status, headers = routes[path]
            self._answer(status, headers)
        else:
            self._answer(404)

    do_HEAD = _route
    do_GET = _route


@dataclass
class Sites:
    http: str
    https: str
    ca_cert: Path
    seen: list[tuple[str, str, str]]


def _serve(server: ThreadingHTTPServer) -> threading.Thread:
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return thread


@pytest.fixture
def sites(tmp_path: Path) -> Iterator[Sites]:
    pki = make_pki(tmp_path)
    seen: list[tuple[str, str, str]] = []
    handler = type("H", (_Handler,), {"seen": seen, "counts": {}})
    https_handler = type("HS", (_Handler,), {"seen": seen, "counts": {}})
    plain = ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    secure = ThreadingHTTPServer(("127.0.0.1", free_port()), https_handler)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(pki.server_cert, pki.server_key)
    secure.socket = context.wrap_socket(secure.socket, server_side=True)
    https = f"https://127.0.0.1:{secure.server_address[1]}"
    plain.https_ok = f"{https}/ok"  # type: ignore[attr-defined]
    secure.https_ok = f"{https}/ok"  # type: ignore[attr-defined]
    threads = [_serve(plain), _serve(secure)]
    try:
        yield Sites(f"http://127.0.0.1:{plain.server_address[1]}", https, pki.ca_cert, seen)
    finally:
        for server in (plain, secure):
            server.shutdown()
            server.server_close()
        for thread in threads:
            thread.join(5)


def test_each_cause_gets_its_constant_and_the_final_url(sites: Sites) -> None:
    base = sites.http
    dead_port = free_port()
    urls = {
        "/ok": None,
        "/r1": None,  # a chain on the same host: nothing to say
        "/gone": "DEST_NOT_FOUND",
        "/removed": "DEST_NOT_FOUND",
        "/private": "DEST_CLIENT_ERROR",
        "/fail": "DEST_SERVER_ERROR",
        "/loop-a": "DEST_REDIRECT_LOOP",
        "/many": "DEST_REDIRECT_LOOP",
        "/slow": "DEST_TIMEOUT",
        "/away": "DEST_OTHER_HOST",
        "/head-refused": None,
        "/busy": None,
    }
    done = check_urls(
        [base + p for p in urls] + [f"http://127.0.0.1:{dead_port}/x"], politeness=FAST
    )
    got = {url.removeprefix(base): v.constant for url, v in done.verdicts.items()}
    assert got == {**urls, f"http://127.0.0.1:{dead_port}/x": "DEST_UNREACHABLE"}
    assert done.verdicts[base + "/r1"].final == base + "/ok"
    assert done.verdicts[base + "/gone"].status == 404
    away = done.verdicts[base + "/away"]
    assert away.final.startswith("http://localhost:") and away.final in away.detail
    assert "loop" in done.verdicts[base + "/loop-a"].detail
    assert "more than 5 redirects" in done.verdicts[base + "/many"].detail
    assert done.checked == 13 and "Checked 13 destination URL(s)" in done.summary()


def test_requests_are_polite_head_first_get_when_refused_retry_after_once(sites: Sites) -> None:
    base = sites.http
    check_urls(
        [base + "/ok", base + "/ok", base + "/head-refused", base + "/busy"], politeness=FAST
    )
    calls = [(m, p) for m, p, _ in sites.seen]
    assert calls.count(("HEAD", "/ok")) == 1, "each distinct URL once"
    assert ("HEAD", "/head-refused") in calls and ("GET", "/head-refused") in calls
    assert calls.count(("HEAD", "/busy")) == 2, "429 with Retry-After: asked once more"
    assert {ua for *_, ua in sites.seen} == {USER_AGENT}


def test_a_certificate_of_an_unknown_ca_is_a_tls_finding_unless_trusted(sites: Sites) -> None:
    url = sites.https + "/ok"
    untrusted = check_urls([url, sites.http + "/to-https"], politeness=FAST)
    assert untrusted.verdicts[url].constant == "DEST_TLS_ERROR"
    assert "certificate" in untrusted.verdicts[url].detail
    trusted = check_urls(
        [url, sites.http + "/to-https"],
        politeness=FAST,
        network=Network(ca_bundle=str(sites.ca_cert)),
    )
    assert trusted.verdicts[url].constant is None
    upgrade = trusted.verdicts[sites.http + "/to-https"]
    assert upgrade.constant == "DEST_HTTPS_AVAILABLE" and upgrade.detail == f"use {url}"


def test_retry_after_reads_seconds_and_dates_and_is_capped() -> None:
    assert retry_after("3", 30) == 3.0
    assert retry_after("120", 30) == 30
    assert retry_after("Wed, 21 Oct 2015 07:28:00 GMT", 30) == 0.0
    assert retry_after("soon", 30) is None and retry_after(None, 30) is None


def _csv(folder: Path, base: str) -> Path:
    path = folder / "links.csv"
    path.write_text(
        f"url,slug\n{base}/ok,fine\n{base}/gone,dead\n{base}/gone,dead-too\n{base}/fail,down\n",
        encoding="utf-8",
    )
    return path


def test_validate_shows_each_finding_on_its_row_as_a_warning(sites: Sites) -> None:
    path = _csv(Path.cwd(), sites.http)
    result = CliRunner().invoke(cli, ["validate", str(path), "--check-destinations"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Checked 3 destination URL(s)" in out
    assert out.count("DEST_NOT_FOUND") == 2 and "DEST_SERVER_ERROR" in out
    assert "row 3" in out and "row 4" in out and "row 5" in out
    paths = [p for m, p, _ in sites.seen]
    assert paths.count("/gone") == 1, "one request for the URL two rows share"


def test_strict_makes_findings_errors_and_the_rows_invalid(sites: Sites) -> None:
    path = _csv(Path.cwd(), sites.http)
    result = CliRunner().invoke(cli, ["validate", str(path), "--check-destinations", "--strict"])
    assert result.exit_code == 1, result.output
    assert "an error under --strict" in result.output


def test_without_the_flag_nothing_is_requested(sites: Sites) -> None:
    path = _csv(Path.cwd(), sites.http)
    result = CliRunner().invoke(cli, ["validate", str(path)])
    assert result.exit_code == 0 and sites.seen == []


def test_plan_checks_before_the_service_and_keeps_warned_rows(sites: Sites) -> None:
    path = _csv(Path.cwd(), sites.http)
    Path("linksync.yaml").write_text("check_destinations: true\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["plan", str(path)])
    assert result.exit_code == 0, result.output
    assert "Checked 3 destination URL(s)" in result.output
    assert "DEST_NOT_FOUND" in result.output
    assert "Plan: 4 create" in result.output, "warnings: the rows are still sent"
    assert result.output.index("Checked 3") < result.output.index("Plan:")


def test_a_host_name_not_found_is_named_as_dns() -> None:
    error = httpx.ConnectError("[Errno -2] Name or service not known")
    error.__cause__ = socket.gaierror(-2, "Name or service not known")
    verdict = _failure("https://no-such-host.invalid/", error)
    assert verdict.constant == "DEST_UNREACHABLE" and verdict.detail.startswith("DNS")


def test_apply_strict_sends_only_the_live_rows_and_reports_the_dead(sites: Sites) -> None:
    path = _csv(Path.cwd(), sites.http)
    args = ["apply", str(path), "--check-destinations", "--strict", "--yes"]
    result = CliRunner().invoke(cli, [*args, "--report", "run.csv"])
    assert result.exit_code == 1, result.output
    report = Path("run.csv").read_text(encoding="utf-8")
    assert report.count("DEST_NOT_FOUND") == 2 and "DEST_SERVER_ERROR" in report
    listed = CliRunner().invoke(cli, ["links", "list", "--json"])
    assert '"fine"' in listed.output and '"dead"' not in listed.output, listed.output


def test_apply_reports_each_warned_row_as_ok_with_its_finding_in_the_message(
    sites: Sites,
) -> None:
    path = _csv(Path.cwd(), sites.http)
    args = ["apply", str(path), "--check-destinations", "--yes"]
    result = CliRunner().invoke(cli, [*args, "--report", "run.csv", "--report", "run.json"])
    assert result.exit_code == 0, result.output
    with Path("run.csv").open(encoding="utf-8-sig", newline="") as f:
        table = {r["slug"]: r for r in csv.DictReader(f)}
    doc = json.loads(Path("run.json").read_text(encoding="utf-8"))
    for rows in (table, {r["slug"]: r for r in doc["results"]}):
        for slug, constant in (("dead", "DEST_NOT_FOUND"), ("down", "DEST_SERVER_ERROR")):
            row = rows[slug]
            assert (row["status"], row["error_constant"] or "") == ("ok", ""), row
            assert row["message"].startswith(f"warning {constant}: "), row
        assert not rows["fine"]["message"], "a live destination says nothing"


def test_a_profile_key_that_is_not_a_boolean_is_a_config_error(sites: Sites) -> None:
    path = _csv(Path.cwd(), sites.http)
    Path("linksync.yaml").write_text("check_destinations: yes please\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["plan", str(path)])
    assert result.exit_code == 2, result.output
    assert "check_destinations must be true or false" in result.output
    assert sites.seen == []


def test_progress_counts_each_distinct_url_once_up_to_the_total(sites: Sites) -> None:
    base = sites.http
    calls: list[tuple[int, int]] = []
    urls = [f"{base}/ok", f"{base}/gone", f"{base}/gone", f"{base}/fail"]
    check_urls(urls, politeness=FAST, progress=lambda done, total: calls.append((done, total)))
    assert calls[0] == (0, 3), "said before the first request"
    assert sorted(done for done, _ in calls) == [0, 1, 2, 3]
    assert {total for _, total in calls} == {3}


class _Recorder(RunEvents):
    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []

    def checking(self, done: int, total: int) -> None:
        self.calls.append((done, total))


def test_a_run_tells_its_events_how_the_check_goes(sites: Sites) -> None:
    path = _csv(Path.cwd(), sites.http)
    events = _Recorder()
    planned = linksync.plan(
        [path],
        reading=linksync.Reading(check_destinations=True),
        hooks=linksync.Hooks(events=events),
    )
    assert sorted(events.calls) == [(0, 3), (1, 3), (2, 3), (3, 3)]
    assert planned.plan.counts["create"] == 4


def test_off_a_terminal_the_cli_prints_only_the_summary_line(sites: Sites) -> None:
    path = _csv(Path.cwd(), sites.http)
    result = CliRunner().invoke(cli, ["validate", str(path), "--check-destinations"])
    assert "Checked 3 destination URL(s)" in result.stderr
    assert "checking destinations" not in result.output
