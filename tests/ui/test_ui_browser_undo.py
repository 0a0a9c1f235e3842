"""The page's "Undo this run", in a real headless Chromium against the built-in
sandbox: a page apply of creates, updates and mirror deletes; a link edited by hand
after it; the undo plan shown first (the edited link named, left as it is), confirmed,
run and followed like an apply; the workspace as it was before, link by link (the
edited link as edited); then the undo of that undo brings the apply's result back."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import linksync
from linksync.config import Settings, resolve
from linksync.ui import RunState, UiServer, start_ui

SEED = (
    "slug,url,description,tags\n"
    "keep,https://example.com/keep,Kept,a\n"
    "upd,https://example.com/upd,Old title,a;b\n"
    "edited,https://example.com/edited,Before,\n"
    "gone,https://example.com/gone,Gone,g1;g2\n"
)
SHEET = (
    "slug,url,description,tags\n"
    "keep,https://example.com/keep,Kept,a\n"
    "upd,https://example.com/upd-new,New title,a;c\n"
    "edited,https://example.com/edited-by-run,By the run,\n"
    "new,https://example.com/new,Brand new,n\n"
)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    return tmp_path


@pytest.fixture
def settings(work: Path) -> Settings:
    return resolve(cwd=work, env={}, sandbox=True)


@pytest.fixture
def server(settings: Settings, work: Path) -> Iterator[UiServer]:
    with start_ui(settings, runs_dir=work / "ui") as handle:
        yield handle


@pytest.fixture
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the screenshot goes: ``LINKSYNC_UI_SCREENSHOTS=docs/ui`` for the guide."""
    wanted = os.environ.get("LINKSYNC_UI_SCREENSHOTS")
    folder = Path(wanted) if wanted else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def aside(call: Callable[[], Any]) -> Any:
    """``call`` in a thread of its own (Playwright's loop holds this one)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(call).result()


def links(settings: Settings) -> dict[str, tuple[Any, ...]]:
    async def go() -> dict[str, tuple[Any, ...]]:
        async with settings.open_client() as client:
            return {
                f"{ln.domain}/{ln.slug}": (ln.url, ln.description, tuple(sorted(ln.tags)))
                for ln in await client.list_links()
            }

    return aside(lambda: asyncio.run(go()))


def edit(settings: Settings, slug: str, fields: dict[str, Any]) -> None:
    async def go() -> None:
        async with settings.open_client() as client:
            await client.update_link(slug, fields, domain="lnk.test")

    aside(lambda: asyncio.run(go()))


def test_undo_this_run_shows_the_plan_then_sets_the_workspace_back(
    browser_context: Any, server: UiServer, settings: Settings, work: Path, shots: Path
) -> None:
    from playwright.sync_api import expect

    (work / "seed.csv").write_text(SEED, encoding="utf-8")
    outputs = linksync.Outputs(journal=False)
    aside(lambda: linksync.apply([work / "seed.csv"], settings, outputs=outputs))
    before = links(settings)
    sheet = work / "campaign.csv"
    sheet.write_text(SHEET, encoding="utf-8")

    page = browser_context.new_page()
    page.goto(server.url)
    page.get_by_label("Choose a campaign file, or drop it here").set_input_files(sheet)
    expect(page.locator("#check .counts")).to_contain_text("4 ready")
    page.get_by_label("Mode").select_option("mirror")
    page.get_by_label("Mirror deletes on").fill("lnk.test")
    page.get_by_role("button", name="Show the plan").click()
    page.get_by_role("button", name="Apply: send 4 changes").click()
    expect(page.locator("#run-state")).to_have_text("Finished", timeout=30_000)
    expect(page.locator("#run-summary")).to_contain_text("1 created, 2 updated, 1 deleted")
    after = links(settings)
    assert after != before
    edit(settings, "edited", {"description": "Edited by hand"})

    # The plan first: nothing is sent until the confirm.
    page.get_by_role("button", name="Undo this run").click()
    table = page.locator("#undo-table")
    expect(table.locator("tr.action-skip")).to_contain_text("lnk.test/edited")
    expect(table.locator("tr.action-skip")).to_contain_text(
        "changed since the run: left as it is (description)"
    )
    expect(table.locator("tr.action-update")).to_contain_text(
        "undoes the update of campaign.csv, row 3"
    )
    expect(table.locator("tr.action-delete")).to_contain_text("lnk.test/new")
    expect(table.locator("tr.action-create")).to_contain_text("lnk.test/gone")
    expect(table.locator("tr.action-update")).to_contain_text(
        "url: https://example.com/upd-new -> https://example.com/upd"
    )
    assert links(settings)["lnk.test/new"] == after["lnk.test/new"]  # nothing sent yet
    page.locator("#run").screenshot(path=shots / "7-undo.png")
    page.get_by_role("button", name="Undo: send 3 changes").click()
    expect(page.locator("#run-kind")).to_have_text("Undo")
    expect(page.locator("#run-state")).to_have_text("Finished", timeout=30_000)
    summary = page.locator("#run-summary")
    expect(summary).to_contain_text("1 created, 1 updated, 1 deleted, 1 skipped")
    expect(summary).to_contain_text("Left as they are, changed since the run: lnk.test/edited")
    now = links(settings)
    assert now.pop("lnk.test/edited") == (
        "https://example.com/edited-by-run", "Edited by hand", (),
    )  # fmt: skip
    assert now == {k: v for k, v in before.items() if k != "lnk.test/edited"}
    expect(page.get_by_role("link", name="results.csv", exact=True)).to_be_visible()

    # The undo of the undo: the apply's result back.
    first = server.state.runs.latest()
    assert first is not None
    page.get_by_role("button", name="Undo this run").click()
    page.get_by_role("button", name="Undo: send 3 changes").click()
    expect(page.locator("#run-id")).not_to_contain_text(first.record.run_id)
    expect(page.locator("#run-state")).to_have_text("Finished", timeout=30_000)
    back = links(settings)
    back.pop("lnk.test/edited")
    assert back == {k: v for k, v in after.items() if k != "lnk.test/edited"}
    record = server.state.runs.latest()
    assert record is not None and record.record.kind == "undo"
    assert record.record.state is RunState.FINISHED
    page.close()


def test_a_declined_undo_sends_nothing_and_a_run_that_wrote_nothing_says_so(
    browser_context: Any, server: UiServer, settings: Settings, work: Path
) -> None:
    from playwright.sync_api import expect

    sheet = work / "campaign.csv"
    sheet.write_text(SEED, encoding="utf-8")
    page = browser_context.new_page()
    page.goto(server.url)
    page.get_by_label("Choose a campaign file, or drop it here").set_input_files(sheet)
    page.get_by_role("button", name="Show the plan").click()
    page.get_by_role("button", name="Apply: send 4 changes").click()
    expect(page.locator("#run-state")).to_have_text("Finished", timeout=30_000)
    page.get_by_role("button", name="Undo this run").click()
    expect(page.locator("#undo-table tr.action-delete")).to_have_count(4)
    page.get_by_role("button", name="Keep the run as it is").click()
    expect(page.locator("#undo")).to_be_hidden()
    assert len(links(settings)) == 4

    page.get_by_role("button", name="Show the plan").click()
    page.get_by_role("button", name="Make the downloads again (nothing is sent)").click()
    expect(page.locator("#run-summary")).to_contain_text("4 unchanged", timeout=30_000)
    page.get_by_role("button", name="Undo this run").click()
    expect(page.locator("#nothing-to-undo")).to_be_visible()
    expect(page.locator("#undo")).to_contain_text("Nothing to undo: run")
    page.close()


def test_a_run_cut_short_by_the_server_stopping_can_be_undone(
    browser_context: Any, server: UiServer, settings: Settings, work: Path
) -> None:
    """linksync ui stopped hard during an apply (a closed terminal, a crash): the next
    server shows the run as interrupted, and offers its undo (its journal holds what it
    sent), which deletes the links it created."""
    from playwright.sync_api import expect

    sheet = work / "campaign.csv"
    sheet.write_text(SEED, encoding="utf-8")
    page = browser_context.new_page()
    page.goto(server.url)
    page.get_by_label("Choose a campaign file, or drop it here").set_input_files(sheet)
    page.get_by_role("button", name="Show the plan").click()
    page.get_by_role("button", name="Apply: send 4 changes").click()
    expect(page.locator("#run-state")).to_have_text("Finished", timeout=30_000)
    page.close()
    server.stop()
    run = server.state.runs.latest()
    assert run is not None and len(links(settings)) == 4
    record = run.folder / "run.json"  # as a server that was killed mid-run leaves it
    left = json.loads(record.read_text(encoding="utf-8"))
    record.write_text(json.dumps({**left, "state": "running", "ended_at": None, "summary": None}))

    with start_ui(settings, runs_dir=work / "ui") as again:
        page = browser_context.new_page()
        # undo.js arriving after the page's last run is shown (a slow network) must still
        # offer the undo: the script takes the run already on the page
        page.route("**/static/undo.js", lambda route: (time.sleep(0.5), route.continue_()))
        page.goto(again.url)
        expect(page.locator("#run-state")).to_have_text(
            "Interrupted: the server stopped during this run"
        )
        page.get_by_role("button", name="Undo this run").click()
        expect(page.locator("#undo-table tr.action-delete")).to_have_count(4)
        page.get_by_role("button", name="Undo: send 4 changes").click()
        expect(page.locator("#run-kind")).to_have_text("Undo")
        expect(page.locator("#run-state")).to_have_text("Finished", timeout=30_000)
        assert links(settings) == {}
        page.close()
