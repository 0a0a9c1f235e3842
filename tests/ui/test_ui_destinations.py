"""The page's control for the destination check: ticked, the Check
step and the plan the page makes request each destination URL once (a local
http.server on 127.0.0.1 answering 200 and 404) and show the findings like the other
problems; unticked, no request goes to the destinations; the box starts as the
profile's ``check_destinations:`` says."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from ui_support import eventually

from linksync.config import Settings, resolve
from linksync.errors import ConfigError
from linksync.ui import RunState, UiState
from linksync.ui.choices import Choices


class _Site(BaseHTTPRequestHandler):
    seen: list[str]

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def do_HEAD(self) -> None:
        self.seen.append(self.path)
        self.send_response(200 if self.path == "/live" else 404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_HEAD


@pytest.fixture
def site(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, list[str]]]:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    seen: list[str] = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), type("S", (_Site,), {"seen": seen}))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def _csv(base: str) -> bytes:
    return f"url,slug\n{base}/live,live\n{base}/gone,gone\n".encode()


async def _upload(client: httpx.AsyncClient, base: str) -> None:
    answer = await client.post("/api/uploads", params={"name": "c.csv"}, content=_csv(base))
    assert answer.status_code == 201, answer.text


async def test_ticked_the_check_step_shows_the_dead_destination_on_its_row(
    client: httpx.AsyncClient, site: tuple[str, list[str]]
) -> None:
    base, seen = site
    await _upload(client, base)
    answer = await client.post("/api/check", json={"check_destinations": True})
    assert answer.status_code == 200, answer.text
    view = answer.json()["data"]
    found = [(p["row"], p["constant"], p["severity"]) for p in view["problems"]]
    assert found == [(3, "DEST_NOT_FOUND", "warning")]
    assert f"{base}/gone" in view["problems"][0]["message"]
    assert view["counts"]["warnings"] == 1 and view["counts"]["invalid"] == 0
    assert sorted(set(seen)) == ["/gone", "/live"]
    assert view["notes"][0].startswith("Checked 2 destination URL(s) in ")
    html = answer.json()["html"]["check"]
    assert "DEST_NOT_FOUND" in html and "Checked 2 destination URL(s)" in html


async def test_unticked_no_request_goes_to_the_destinations(
    client: httpx.AsyncClient, site: tuple[str, list[str]]
) -> None:
    base, seen = site
    await _upload(client, base)
    view = (await client.post("/api/check", json={"check_destinations": False})).json()["data"]
    assert view["problems"] == [] and view["notes"] == []
    page = (await client.get("/")).text
    assert 'id="opt-dest" name="check_destinations">' in page  # not ticked by default
    assert seen == []


async def test_the_plan_and_apply_the_page_run_carry_the_finding_and_the_flag(
    client: httpx.AsyncClient, state: UiState, site: tuple[str, list[str]]
) -> None:
    base, seen = site
    await _upload(client, base)
    answer = await client.post("/api/plan", json={"check_destinations": True})
    assert answer.status_code == 200, answer.text
    plan = answer.json()["data"]
    gone = [r for r in plan["rows"] if "gone" in r["link"]]
    assert len(gone) == 1 and "destination is not found" in gone[0]["message"]
    assert gone[0]["action"] == "create"  # a warning: the row is still sent
    assert "--check-destinations" in plan["command_line"].split()
    assert seen.count("/gone") == 1

    started = await client.post("/api/apply", json={"plan_id": plan["plan_id"]})
    assert started.status_code == 202, started.text
    run = state.runs.get(started.json()["run_id"])
    assert run is not None
    eventually(lambda: run.record.state.over, timeout=30)
    assert run.record.state is RunState.FINISHED, run.record.error
    assert seen.count("/gone") == 1, (
        "apply runs the plan checked and shown: the files are read for their passwords only"
    )


class TestTheProfileTicksTheBox:
    @pytest.fixture
    def settings(self, tmp_path: Path) -> Settings:
        (tmp_path / "linksync.yaml").write_text("check_destinations: true\n", encoding="utf-8")
        return resolve(cwd=tmp_path, env={}, sandbox=True)

    async def test_ticked_on_the_page_and_run_when_the_page_sends_nothing(
        self, client: httpx.AsyncClient, site: tuple[str, list[str]]
    ) -> None:
        base, seen = site
        page = (await client.get("/")).text
        assert 'id="opt-dest" name="check_destinations" checked>' in page
        await _upload(client, base)
        view = (await client.post("/api/check", json={})).json()["data"]
        assert [p["constant"] for p in view["problems"]] == ["DEST_NOT_FOUND"]
        unticked = await client.post("/api/check", json={"check_destinations": False})
        assert unticked.json()["data"]["problems"] == []
        ticked = await client.post("/api/plan", json={"check_destinations": True})
        assert "check-destinations" not in ticked.json()["data"]["command_line"]
        off = await client.post("/api/plan", json={"check_destinations": False})
        assert "--no-check-destinations" in off.json()["data"]["command_line"].split()
        assert sorted(set(seen)) == ["/gone", "/live"]


def test_choices_parse_the_box_and_refuse_what_is_not_true_or_false() -> None:
    assert Choices.from_json({}).reading.check_destinations is None
    assert Choices.from_json({"check_destinations": True}).reading.check_destinations
    off = Choices.from_json({"check_destinations": False})
    assert "--no-check-destinations" in off.command_line(["c.csv"]).split()
    assert "check-destinations" not in Choices.from_json({}).command_line(["c.csv"])
    with pytest.raises(ConfigError, match="check_destinations: expected true or false"):
        Choices.from_json({"check_destinations": "yes"})
