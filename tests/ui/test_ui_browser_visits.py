"""The page in headless Chromium, as a marketer corrects a sheet: a day-first date is
pointed at the page's own “Dates in your file” (never a command-line flag) and reads
once “Day first” is chosen; the corrected workbook dropped again under the same name
replaces the first one, and the page says so; a reload starts with no file chosen, the
earlier upload listed, read again only when used again."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from linksync.config import resolve
from linksync.ui import UiServer, start_ui

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]+")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    work = tmp_path_factory.mktemp("ui-visits")
    with start_ui(resolve(cwd=work, env={}, sandbox=True), runs_dir=work / "ui") as handle:
        yield handle


def workbook(path: Path, rows: list[tuple[str, str, str]]) -> Path:
    """A campaign workbook as Excel users make one: a title row above the table."""
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "Links"
    sheet.append(["Autumn campaign"])
    sheet.append(["Destination URL", "Back-half", "Expiry"])
    for row in rows:
        sheet.append(list(row))
    path.parent.mkdir(parents=True, exist_ok=True)
    book.save(path)
    return path


def test_dates_a_corrected_file_and_a_new_visit(
    browser_context: Any, server: UiServer, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    first = workbook(
        tmp_path / "monday" / "campaign.xlsx",
        [
            ("https://shop.example.com/a", "autumn-a", "31/12/2030"),
            ("https://shop.example.com/b", "autumn-b", "2030-12-31"),
            ("https://shop.example.com/c", "autumn-c", ""),
        ],
    )
    corrected = workbook(
        tmp_path / "tuesday" / "campaign.xlsx",
        [
            ("https://shop.example.com/a", "autumn-a", "2030-12-31"),
            ("https://shop.example.com/b", "autumn-b", "2030-12-31"),
            ("https://shop.example.com/c", "autumn-c", ""),
            ("https://shop.example.com/d", "autumn-d", ""),
        ],
    )
    page = browser_context.new_page()
    chooser = page.get_by_label("Choose a campaign file, or drop it here")
    page.goto(server.url)
    chooser.set_input_files(first)
    expect(page.locator("#upload-status")).to_contain_text("campaign.xlsx received (Excel")

    # The day-first date: the advice names the page's control, never a flag.
    problem = page.locator("#problems tbody tr")
    expect(problem).to_have_count(1)
    expect(problem).to_contain_text("INVALID_EXPIRY")
    expect(problem).to_contain_text(
        "choose “Day first” or “Month first” at “Dates in your file” in the Options"
    )
    assert FLAG.search(page.locator("#check").inner_text()) is None
    page.get_by_label("Dates in your file").select_option(label="Day first (31/12/2026)")
    expect(page.locator("#check .ok-line")).to_have_text("No problems found: every row is ready.")
    page.get_by_role("button", name="Show the plan").click()
    expect(page.locator(".command code")).to_contain_text("--date-format dmy")

    # The corrected workbook, dropped again under the same name: it replaces the first.
    chooser.set_input_files(corrected)
    status = page.locator("#upload-status")
    expect(status).to_have_text(
        re.compile(
            r"^campaign\.xlsx replaced the earlier upload of the same name "
            r"\(Excel workbook, \d+ KB\)\.$"
        )
    )
    expect(page.locator("#uploads li")).to_have_count(1)
    expect(page.locator("#check .counts")).to_contain_text("4 rows")
    expect(page.locator("#check .counts")).to_contain_text("4 ready")
    assert [u.name for u in server.state.uploads.list()] == ["campaign.xlsx"]

    # Another day, the page opened again: no file chosen; the earlier one is listed.
    page.reload()
    expect(page.locator("#uploads li")).to_have_count(0)
    expect(page.locator("#check")).to_be_hidden()
    earlier = page.locator("#earlier")
    expect(earlier).to_be_visible()
    expect(earlier.locator("li")).to_have_count(1)
    expect(earlier).to_contain_text("campaign.xlsx")
    page.get_by_role("button", name="Use again campaign.xlsx").click()
    expect(status).to_have_text("campaign.xlsx is one of your files again.")
    expect(page.locator("#uploads li")).to_have_count(1)
    expect(earlier).to_be_hidden()
    expect(page.locator("#check .counts")).to_contain_text("4 rows")
    page.close()
