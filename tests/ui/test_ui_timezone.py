"""The time zone of dates written without one, on the page (in-process, no browser):
the box starts from the profile's ``timezone:`` (UTC without one), an unknown zone is a
clear refusal, the Check and the plan read the file's dates in the zone chosen, and the
command line shown names ``--timezone`` only when the page's zone is not the profile's."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from ui_support import eventually, make_state, page_client

from linksync.config import Settings, resolve
from linksync.ui import RunState, UiState

DATED = (
    b"Destination URL,Back-half,Expiry\n"
    b"https://shop.example.com/a,autumn-a,2030-12-31 23:59\n"
    b"https://shop.example.com/b,autumn-b,2030-03-31 02:30\n"  # skipped in Paris (DST starts)
)


def _state(folder: Path, profile: str) -> UiState:
    (folder / "linksync.yaml").write_text(profile, encoding="utf-8")
    return make_state(resolve(cwd=folder, env={}, sandbox=True), folder)


@pytest.fixture
def paris(tmp_path: Path) -> Iterator[UiState]:
    state = _state(tmp_path, "timezone: Europe/Paris\n")
    yield state
    state.runs.close(timeout=5)
    state.uploads.close()


@pytest.fixture
async def in_paris(paris: UiState) -> AsyncIterator[httpx.AsyncClient]:
    async with page_client(paris) as http:
        yield http


async def _drop(client: httpx.AsyncClient) -> None:
    answer = await client.post("/api/uploads", params={"name": "autumn.csv"}, content=DATED)
    assert answer.status_code == 201, answer.text


def _box(page: str) -> str:
    found = re.search(r'<input id="opt-timezone"[^>]*>', page)
    assert found is not None, "the time zone box"
    return found.group(0)


async def test_the_box_starts_from_the_profiles_zone_or_utc(
    client: httpx.AsyncClient, in_paris: httpx.AsyncClient
) -> None:
    plain = (await client.get("/")).text
    assert 'value="UTC"' in _box(plain) and 'list="timezones"' in _box(plain)
    assert '<label for="opt-timezone">Time zone of your dates</label>' in plain
    for zone in ("Europe/Paris", "America/New_York", "Asia/Tokyo"):
        assert f'<option value="{zone}">' in plain
    assert 'value="Europe/Paris"' in _box((await in_paris.get("/")).text)


async def test_an_unknown_zone_is_refused_with_what_to_give(client: httpx.AsyncClient) -> None:
    await _drop(client)
    for step in ("/api/check", "/api/plan"):
        answer = await client.post(step, json={"timezone": "Mars/Olympus"})
        assert answer.status_code == 400
        assert answer.json()["error"] == (
            "unknown time zone 'Mars/Olympus': give an IANA name such as America/New_York, "
            "Europe/Paris or UTC"
        )


async def test_dates_are_read_in_the_zone_chosen_and_the_command_line_says_it(
    client: httpx.AsyncClient,
) -> None:
    await _drop(client)
    utc = (await client.post("/api/check", json={})).json()["data"]
    assert utc["problems"] == [] and utc["counts"]["valid"] == 2

    paris = (await client.post("/api/check", json={"timezone": "Europe/Paris"})).json()["data"]
    (gap,) = paris["problems"]
    assert (gap["row"], gap["constant"]) == (3, "INVALID_EXPIRY")
    assert "2030-03-31 02:30 does not exist in Europe/Paris" in gap["message"]

    shown = (await client.post("/api/plan", json={"timezone": "America/New_York"})).json()
    plan = shown["data"]
    fields = [f for row in plan["rows"] for f in row["fields"]]
    assert "expires 2030-12-31 23:59 America/New_York = 2031-01-01T04:59:00.000Z" in fields
    assert "--timezone America/New_York" in plan["command_line"]
    default = (await client.post("/api/plan", json={"timezone": "UTC"})).json()["data"]
    assert "--timezone" not in default["command_line"], "UTC is the default: no flag"
    assert "expires 2030-12-31 23:59 UTC = 2030-12-31T23:59:00.000Z" in [
        f for row in default["rows"] for f in row["fields"]
    ]


async def test_the_command_line_names_the_zone_only_when_it_is_not_the_profiles(
    in_paris: httpx.AsyncClient,
) -> None:
    await _drop(in_paris)
    same = (await in_paris.post("/api/plan", json={"timezone": "Europe/Paris"})).json()["data"]
    assert "--timezone" not in same["command_line"]
    assert same["counts"]["invalid"] == 1, "the profile's zone reads the gap"
    other = (await in_paris.post("/api/plan", json={"timezone": "UTC"})).json()["data"]
    assert "--timezone UTC" in other["command_line"]
    assert other["counts"]["invalid"] == 0


async def test_a_date_read_in_paris_is_planned_and_sent_as_the_utc_instant_of_paris(
    client: httpx.AsyncClient, state: UiState, settings: Settings
) -> None:
    answer = await client.post(
        "/api/uploads",
        params={"name": "winter.csv"},
        content=b"Destination URL,Back-half,Expiry\n"
        b"https://shop.example.com/w,winter-w,31/12/2030 23:59\n"
        b"https://shop.example.com/s,summer-s,30/06/2030 09:00\n",
    )
    assert answer.status_code == 201, answer.text
    chosen = {"timezone": "Europe/Paris", "date_format": "dmy"}
    shown = (await client.post("/api/plan", json=chosen)).json()["data"]
    fields = [f for row in shown["rows"] for f in row["fields"]]
    assert "expires 2030-12-31 23:59 Europe/Paris = 2030-12-31T22:59:00.000Z" in fields
    assert "expires 2030-06-30 09:00 Europe/Paris = 2030-06-30T07:00:00.000Z" in fields
    assert "--timezone Europe/Paris" in shown["command_line"]

    started = await client.post("/api/apply", json={"plan_id": shown["plan_id"]})
    assert started.status_code == 202, started.text
    run = state.runs.get(started.json()["run_id"])
    assert run is not None
    eventually(lambda: run.record.state.over, timeout=60)
    assert run.record.state is RunState.FINISHED, run.record.error
    async with settings.open_client() as api:
        sent = {link.slug: link.expires_at for link in await api.list_links()}
    assert sent == {
        "winter-w": "2030-12-31T22:59:00.000Z",
        "summer-s": "2030-06-30T07:00:00.000Z",
    }, "the run sends the instants the plan showed"
