"""An encrypted workbook on the page, through its API (in-process, no browser): taken
when dropped, its password asked by the Check and sent with each step, a wrong one
said as such, the plan and the apply read it decrypted in memory; no annotated copy of
it (as on the command line), the command line shown naming --workbook-password-file
FILE. The password is in no answer, no log line, and no file the page writes."""

from __future__ import annotations

import asyncio
import csv
import logging
import shlex
from collections.abc import AsyncIterator, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from ui_support import PASSWORD, SAMPLE, contents, encrypt, eventually, page_client, secret_forms

from linksync.config import Settings
from linksync.ui import RunState, UiState


@pytest.fixture(scope="module")
def locked_sample() -> bytes:
    return encrypt(SAMPLE.read_bytes())


class Answers:
    """Every answer body the page's client received."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    async def keep(self, response: httpx.Response) -> None:
        self.bodies.append(await response.aread())


@pytest.fixture
def answers() -> Answers:
    return Answers()


@pytest.fixture
async def page(state: UiState, answers: Answers) -> AsyncIterator[httpx.AsyncClient]:
    async with page_client(state) as http:
        http.event_hooks["response"] = [answers.keep]
        yield http


@pytest.fixture
def logged(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    with caplog.at_level(logging.DEBUG):
        yield caplog


async def drop(client: httpx.AsyncClient, name: str, content: bytes) -> dict[str, Any]:
    answer = await client.post("/api/uploads", params={"name": name}, content=content)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def assert_nowhere(password: str, *, folders: list[Path], answers: Answers, log: str) -> None:
    forms = secret_forms(password)
    for where, data in [(f, d) for folder in folders for f, d in contents(folder)]:
        assert not any(form in data for form in forms), f"the password is in {where}"
    assert answers.bodies, "the answers were kept"
    for body in answers.bodies:
        assert not any(form in body for form in forms), body[:300]
    assert password not in log


async def test_the_page_asks_for_the_password_and_keeps_it_nowhere(
    page: httpx.AsyncClient,
    state: UiState,
    settings: Settings,
    answers: Answers,
    logged: pytest.LogCaptureFixture,
    locked_sample: bytes,
    tmp_path: Path,
) -> None:
    dropped = await drop(page, "campaign.xlsx", locked_sample)
    assert dropped["encrypted"] is True
    assert dropped["said"].startswith("campaign.xlsx received (Excel workbook, encrypted, ")

    asked = (await page.post("/api/check", json={})).json()["data"]
    assert asked["encrypted"] == ["campaign.xlsx"]
    assert asked["error"] == (
        "campaign.xlsx is encrypted: type its password at “Workbook password” in the Check "
        "step to read it"
    )

    wrong = (await page.post("/api/check", json={"password": "Fruehling"})).json()["data"]
    assert wrong["error"] == "the password does not open campaign.xlsx"

    read = (await page.post("/api/check", json={"password": PASSWORD})).json()
    view = read["data"]
    assert view["error"] is None and view["encrypted"] == ["campaign.xlsx"]
    rows = [(p["sheet"], p["row"], p["constant"]) for p in view["problems"] if p["row"]]
    assert rows == [
        ("Spring", 8, "INVALID_URL"),
        ("Spring", 11, "RESERVED_SLUG"),
        ("Summer", 6, "DUPLICATE_IN_SOURCE"),
        ("Summer", 9, "INVALID_EXPIRY"),
    ]
    assert [s["sheet"] for s in view["sheets"]] == ["Spring", "Summer"], "columns previewed"

    unread = await page.post("/api/plan", json={"password": "Fruehling"})
    assert unread.status_code == 400
    assert unread.json()["error"] == "the password does not open campaign.xlsx"
    planned = await page.post("/api/plan", json={"password": PASSWORD})
    shown = planned.json()["data"]
    assert shown["counts"]["create"] == 14 and shown["counts"]["invalid"] == 4
    assert shown["command_line"] == (
        "linksync apply campaign.xlsx --workbook-password-file FILE --qr qr-codes.zip"
    ), "no annotated copy of an encrypted workbook, as on the command line"

    nothing = await page.post("/api/apply", json={"plan_id": shown["plan_id"]})
    assert nothing.status_code == 400
    assert nothing.json()["error"] == (
        "campaign.xlsx is encrypted: type its password at “Workbook password” in the Check "
        "step, then apply"
    )
    other = await page.post("/api/apply", json={"plan_id": shown["plan_id"], "password": "x"})
    assert other.json()["error"] == "the password does not open campaign.xlsx, then apply"
    started = await page.post(
        "/api/apply", json={"plan_id": shown["plan_id"], "password": PASSWORD}
    )
    assert started.status_code == 202, started.text
    run = state.runs.get(started.json()["run_id"])
    assert run is not None
    eventually(lambda: run.record.state.over, timeout=60)
    assert run.record.state is RunState.FINISHED, run.record.error
    assert run.record.summary is not None
    assert run.record.summary.startswith("14 created, 4 invalid.")
    assert (
        "No annotated copy of campaign.xlsx: it is encrypted, and linksync does not write a "
        "decrypted copy of it; the results reports hold its rows."
    ) in run.record.summary
    assert not any("annotated" in name for name in run.record.files)
    assert "qr-codes.zip" in run.record.files
    with (run.folder / "results.csv").open(encoding="utf-8-sig", newline="") as f:
        reported = [r for r in csv.DictReader(f) if r["source"].endswith("campaign.xlsx")]
    assert len(reported) == 18, "every row of the decrypted workbook reported"
    async with settings.open_client() as api:
        assert len(await api.list_links()) == 14
    latest = await page.get("/api/runs/latest")
    assert latest.status_code == 200

    assert_nowhere(
        PASSWORD,
        folders=[tmp_path, state.uploads.folder],
        answers=answers,
        log=logged.text,
    )


async def test_a_workbook_beside_it_keeps_its_copy_and_the_command_line_does_the_same(
    page: httpx.AsyncClient,
    state: UiState,
    locked_sample: bytes,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await drop(page, "campaign.xlsx", locked_sample)  # dropped first...
    csv = b"url,slug\nhttps://example.com/extra,extra\n"
    await drop(page, "extra.csv", csv)
    shown = (await page.post("/api/plan", json={"password": PASSWORD})).json()["data"]
    line = shown["command_line"]
    assert line == (  # ...read last, so that the copies go with the sources in order
        "linksync apply extra.csv campaign.xlsx --workbook-password-file FILE "
        "--annotate extra-annotated.csv --qr qr-codes.zip"
    )
    started = await page.post(
        "/api/apply", json={"plan_id": shown["plan_id"], "password": PASSWORD}
    )
    run = state.runs.get(started.json()["run_id"])
    assert run is not None
    eventually(lambda: run.record.state.over, timeout=60)
    assert run.record.state is RunState.FINISHED, run.record.error
    assert run.record.files[:2] == ("extra-annotated.csv", "qr-codes.zip")

    # The same command in a terminal, FILE a file holding the password: nothing to do.
    (tmp_path / "campaign.xlsx").write_bytes(locked_sample)
    (tmp_path / "extra.csv").write_bytes(csv)
    (tmp_path / "password.txt").write_text(PASSWORD + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    from linksync.cli import cli

    words = [w if w != "FILE" else "password.txt" for w in shlex.split(line)[1:]]
    invoke = partial(CliRunner().invoke, cli, [*words, "--yes", "--no-progress"])
    env = {"LINKSYNC_BASE_URL": None, "LINKSYNC_SANDBOX": "1"}
    result = await asyncio.to_thread(invoke, env=env)
    assert result.exit_code == 1, result.output  # the sample's 4 invalid rows
    assert "15 unchanged" in result.output and "4 invalid" in result.output
    assert (tmp_path / "extra-annotated.csv").is_file()


async def test_a_password_the_page_never_sends_is_refused_without_repeating_it(
    page: httpx.AsyncClient, locked_sample: bytes
) -> None:
    await drop(page, "campaign.xlsx", locked_sample)
    for bad in (["list"], "x" * 2000, "nul\0byte"):
        answer = await page.post("/api/check", json={"password": bad})
        assert answer.status_code == 400
        assert answer.json()["error"] == "password: expected a text of at most 1024 characters"


async def test_a_plain_workbook_needs_no_password_and_a_fake_one_is_still_refused(
    page: httpx.AsyncClient,
) -> None:
    plain = await drop(page, "campaign.xlsx", SAMPLE.read_bytes())
    assert plain["encrypted"] is False
    view = (await page.post("/api/check", json={})).json()["data"]
    assert view["encrypted"] == [] and view["error"] is None
    ole = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600  # an OLE header, nothing inside
    fake = await page.post("/api/uploads", params={"name": "old.xlsx"}, content=ole)
    assert fake.status_code == 415 and "is not an Excel workbook" in fake.json()["error"]
