"""The page in a real headless Chromium (Playwright for Python driving the OS package
``chromium``): the target banner, uploads accepted and refused, the live progress of a
run fed by the test, cancel, downloads, and the last run shown again after a reload.

One browser for the module (``conftest.browser_context``), one page server for the
module; each test opens a page.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ui_support import SAMPLE, ScriptedRun

from linksync.config import resolve
from linksync.ui import RunState, UiServer, start_ui

MAX_BYTES = 100_000


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    work = tmp_path_factory.mktemp("ui-browser")
    settings = resolve(cwd=work, env={}, sandbox=True)
    handle = start_ui(settings, max_upload_bytes=MAX_BYTES, runs_dir=work / "ui")
    try:
        yield handle
    finally:
        handle.stop()


@pytest.fixture
def page(browser_context: Any, server: UiServer) -> Iterator[Any]:
    tab = browser_context.new_page()
    try:
        yield tab
    finally:
        tab.close()


def test_page_shows_the_sandbox_target_loudly(page: Any, server: UiServer) -> None:
    from playwright.sync_api import expect

    page.goto(server.url)
    banner = page.get_by_role("banner")
    expect(banner).to_contain_text("SANDBOX")
    expect(banner).to_contain_text("built-in sandbox")
    expect(page.get_by_label("Choose a campaign file, or drop it here")).to_be_visible()
    page.keyboard.press("Tab")  # keyboard users get the skip link first
    expect(page.locator(".skip")).to_be_focused()
    assert server.state.target.api_key not in page.content()


def test_upload_the_sample_workbook_and_refuse_an_oversized_file(
    page: Any, server: UiServer, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    page.goto(server.url)
    page.get_by_label("Choose a campaign file, or drop it here").set_input_files(SAMPLE)
    expect(page.get_by_role("status").first).to_have_text(
        "campaign.xlsx received (Excel workbook, 8 KB)."
    )
    expect(page.locator("#uploads li")).to_contain_text(["campaign.xlsx"])
    assert [u.name for u in server.state.uploads.list()] == ["campaign.xlsx"]

    big = tmp_path / "big campaign.csv"
    big.write_bytes(b"slug,url\n" + b"x,https://example.com\n" * 8000)
    page.get_by_label("Choose a campaign file, or drop it here").set_input_files(big)
    expect(page.locator("#upload-status")).to_have_text(
        "big campaign.csv is 176 KB; the page takes files up to 100 KB. Split it, or run "
        "linksync apply big campaign.csv in a terminal, which has no size limit."
    )
    expect(page.locator("#uploads li")).to_have_count(1)

    page.get_by_role("button", name="Remove campaign.xlsx").click()
    expect(page.locator("#uploads li")).to_have_count(0)
    assert server.state.uploads.list() == []


def test_live_progress_then_downloads_and_the_last_run_after_a_reload(
    page: Any, server: UiServer
) -> None:
    from playwright.sync_api import expect

    script = ScriptedRun(total=4)
    run = server.state.runs.start(script)
    page.goto(server.url)
    expect(page.locator("#run-kind")).to_have_text("Apply")
    script.send("row")
    script.send("fail")
    expect(page.locator("#run-count")).to_have_text("2 of 4 rows, 1 failed")
    expect(page.locator("#run-rate")).to_contain_text("rows/s, about")
    script.send("wait", 7.0)
    state = page.locator("#run-state")
    expect(state).to_have_text("Waiting for the rate limit: 7 s left")
    script.send("resume")
    script.send("row")
    expect(state).to_have_text("Running")
    expect(page.locator("#run-count")).to_have_text("3 of 4 rows, 1 failed")
    script.send("row")
    script.send("end")
    expect(state).to_have_text("Finished")
    expect(page.locator("#run-summary")).to_have_text("4 rows applied")
    expect(page.get_by_role("button", name="Cancel the run")).to_be_hidden()

    with page.expect_download() as waiting:
        page.get_by_role("link", name="results.csv").click()
    download = waiting.value
    assert download.suggested_filename == "results.csv"
    assert Path(download.path()).read_text(encoding="utf-8") == "rows\n4\n"

    page.reload()  # the tab closed and opened again: the last run is still there
    expect(page.locator("#run-state")).to_have_text("Finished")
    expect(page.get_by_role("link", name="results.csv")).to_be_visible()
    assert run.record.state is RunState.FINISHED


def test_cancel_from_the_page(page: Any, server: UiServer) -> None:
    from playwright.sync_api import expect

    script = ScriptedRun(total=10)
    run = server.state.runs.start(script)
    page.goto(server.url)
    script.send("row")
    expect(page.locator("#run-count")).to_have_text("1 of 10 rows")
    page.get_by_role("button", name="Cancel the run").click()
    expect(page.locator("#run-state")).to_have_text("Cancelled")
    expect(page.locator("#run-summary")).to_have_text("cancelled after 1 rows")
    expect(page.get_by_role("link", name="results.csv")).to_be_visible()
    assert run.record.state is RunState.CANCELLED
