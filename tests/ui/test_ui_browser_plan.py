"""The Plan step in headless Chromium when the person does not wait: an option or a file
changed while the plan is being made. The plan that comes back was made from what the
page held before, so it is not shown (no Apply button for it): the page says to show
the plan again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from linksync.config import resolve
from linksync.ui import UiServer, start_ui

CHOOSE = "Choose a campaign file, or drop it here"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    work = tmp_path_factory.mktemp("ui-plan")
    with start_ui(resolve(cwd=work, env={}, sandbox=True), runs_dir=work / "ui") as handle:
        yield handle


@pytest.fixture
def page(browser_context: Any, server: UiServer, tmp_path: Path) -> Iterator[Any]:
    from playwright.sync_api import expect

    links = tmp_path / "links.csv"
    links.write_text("slug,url\nspring-a,https://shop.example.com/a\n", encoding="utf-8")
    tab = browser_context.new_page()
    tab.goto(server.url)
    tab.get_by_label(CHOOSE).set_input_files(links)
    expect(tab.locator("#check .counts")).to_contain_text("1 ready")
    try:
        yield tab
    finally:
        tab.close()
        for upload in server.state.uploads.list():
            server.state.uploads.remove(upload.upload_id)


def plan_held(page: Any) -> Any:
    """Click Show the plan, the plan's request held on its way: the held request."""
    held: list[Any] = []

    def hold(route: Any) -> None:
        held.append(route)

    page.route("**/api/plan", hold)
    page.get_by_role("button", name="Show the plan").click()
    while not held:
        page.wait_for_timeout(20)
    return held[0]


def let_go(page: Any, held: Any) -> None:
    """Send the held plan request and wait until the page has taken its answer."""
    from playwright.sync_api import expect

    with page.expect_response("**/api/plan"):
        held.continue_()
    expect(page.get_by_role("button", name="Show the plan")).to_be_enabled()


def test_a_plan_asked_for_before_the_mode_changed_is_not_shown(page: Any) -> None:
    from playwright.sync_api import expect

    held = plan_held(page)
    page.get_by_label("Mode").select_option("create-only")
    let_go(page, held)
    expect(page.locator("#plan-status")).to_have_text("Options changed: show the plan again.")
    expect(page.locator("#apply")).to_have_count(0)

    page.unroute("**/api/plan")
    page.get_by_role("button", name="Show the plan").click()
    expect(page.locator("#apply")).to_have_text("Apply: send 1 change")
    expect(page.locator(".command code")).to_contain_text("--mode create-only")


def test_a_plan_asked_for_before_a_file_was_added_is_not_shown(page: Any, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    more = tmp_path / "more.csv"
    more.write_text("slug,url\nspring-b,https://shop.example.com/b\n", encoding="utf-8")
    held = plan_held(page)
    page.get_by_label(CHOOSE).set_input_files(more)
    expect(page.locator("#check .counts")).to_contain_text("2 ready")
    let_go(page, held)
    expect(page.locator("#plan-status")).to_have_text(
        "Your files, columns or options changed while the plan was made: show the plan again."
    )
    expect(page.locator("#apply")).to_have_count(0)
