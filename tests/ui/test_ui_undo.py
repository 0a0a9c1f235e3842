"""The page's undo routes (``linksync.ui.undo``) through the app: the reverse plan of
a finished page run, run only as it was shown; what is refused, and why."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import httpx
from ui_support import ScriptedRun, eventually

import linksync
from linksync.ui import RunFeed, RunOutcome, UiState
from linksync.ui.runs import Run

SEED = "slug,url,description\na,https://example.com/a,Alpha\nb,https://example.com/b,Beta\n"


class LibraryApply:
    """A page run that applies ``csv`` with the library, journalled as the page's are."""

    kind = "apply"

    def __init__(self, ui: UiState, csv: Path) -> None:
        self.ui, self.csv = ui, csv

    def run(self, feed: RunFeed, cancel: threading.Event, folder: Path) -> RunOutcome:
        journal = self.ui.journals / f"{folder.name}.jsonl"
        done = linksync.apply(
            [self.csv], self.ui.settings, outputs=linksync.Outputs(journal=journal)
        )
        return RunOutcome("applied", done.exit_code, ())


def finished(ui: UiState, source: Any) -> Run:
    run = ui.runs.start(source)
    eventually(lambda: run.record.state.over, timeout=30)
    return run


async def descriptions(ui: UiState) -> dict[str, str | None]:
    async with ui.settings.open_client() as client:
        return {ln.slug: ln.description for ln in await client.list_links()}


async def test_the_plan_then_the_undo_as_shown(
    state: UiState, client: httpx.AsyncClient, tmp_path: Path
) -> None:
    (tmp_path / "seed.csv").write_text(SEED, encoding="utf-8")
    run = finished(state, LibraryApply(state, tmp_path / "seed.csv"))
    url = f"/api/runs/{run.record.run_id}/undo"
    wrong = await client.post(url, json={"plan_id": "nope"})
    assert wrong.status_code == 409 and "not the undo plan shown last" in wrong.json()["error"]
    shown = await client.post(f"{url}/plan")
    assert shown.status_code == 200, shown.text
    data = shown.json()["data"]
    assert data["counts"] == {"delete": 2} and data["writes"] == 2
    assert "Undo: send 2 changes" in shown.json()["html"]
    assert data["said"][0].startswith("Undo of run ")
    started = await client.post(url, json={"plan_id": data["plan_id"]})
    assert started.status_code == 202 and started.json()["kind"] == "undo"
    undo = state.runs.get(started.json()["run_id"])
    assert undo is not None
    eventually(lambda: undo.record.state.over, timeout=30)
    assert undo.record.summary is not None and "2 deleted" in undo.record.summary
    assert await descriptions(state) == {}
    again = await client.post(url, json={"plan_id": data["plan_id"]})
    assert again.status_code == 409  # an undo plan is run once


async def test_a_workspace_changed_since_the_plan_was_shown_is_not_undone(
    state: UiState, client: httpx.AsyncClient, tmp_path: Path
) -> None:
    (tmp_path / "seed.csv").write_text(SEED, encoding="utf-8")
    run = finished(state, LibraryApply(state, tmp_path / "seed.csv"))
    url = f"/api/runs/{run.record.run_id}/undo"
    data = (await client.post(f"{url}/plan")).json()["data"]
    assert data["writes"] == 2 and data["left_alone"] == []

    async def edit() -> None:
        async with state.settings.open_client() as api:
            await api.update_link("a", {"description": "Edited"}, domain="lnk.test")

    await edit()
    moved = await client.post(url, json={"plan_id": data["plan_id"]})
    assert moved.status_code == 409
    assert "the workspace changed since the undo plan was shown" in moved.json()["error"]
    assert state.runs.latest() is run  # no run started
    shown = (await client.post(f"{url}/plan")).json()
    assert shown["data"]["left_alone"] == ["lnk.test/a"] and shown["data"]["writes"] == 1
    assert "changed since the run: left as it is (description)" in shown["html"]
    # run as shown: the page says the undo is not complete, as the command line does
    started = await client.post(url, json={"plan_id": shown["data"]["plan_id"]})
    assert started.status_code == 202, started.text
    undo = state.runs.get(started.json()["run_id"])
    assert undo is not None
    eventually(lambda: undo.record.state.over, timeout=30)
    summary = undo.record.summary or ""
    assert "Exit code 1: not fully undone: 1 link the run wrote left as it is" in summary


async def test_what_cannot_be_undone(state: UiState, client: httpx.AsyncClient) -> None:
    missing = await client.post("/api/runs/20990101T000000Z-000000/undo/plan")
    assert missing.status_code == 404
    script = ScriptedRun(total=1)
    script.send("end")
    run = finished(state, script)  # an apply that left no journal
    refused = await client.post(f"/api/runs/{run.record.run_id}/undo/plan")
    assert refused.status_code == 409 and "left no journal" in refused.json()["error"]
    no_token = await client.post(
        f"/api/runs/{run.record.run_id}/undo/plan", headers={"X-Linksync-Token": "wrong"}
    )
    assert no_token.status_code == 403
