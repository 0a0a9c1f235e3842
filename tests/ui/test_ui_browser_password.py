"""The page in headless Chromium, for what a terminal run has and the page lacked: an
encrypted workbook asks for its password in the Check step (a password box, nothing
remembered), a wrong one is said as such, the right one reads it through check, plan
and apply; the password is in no answer, no file the page writes, and nothing the
server logs. The time zone of dates written without one is chosen in the Options: the
Check runs again, an unknown zone is a clear message, the plan and the command line
name the zone."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ui_support import PASSWORD, SAMPLE, contents, encrypt, secret_forms

from linksync.config import resolve
from linksync.ui import RunState, UiServer, start_ui

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]+")


@pytest.fixture
def locked(tmp_path: Path) -> Path:
    path = tmp_path / "desktop" / "campaign.xlsx"
    path.parent.mkdir()
    path.write_bytes(encrypt(SAMPLE.read_bytes()))
    return path


def test_an_encrypted_workbook_from_drop_to_apply_and_the_password_kept_nowhere(
    browser_context: Any,
    tmp_path: Path,
    locked: Path,
    capfd: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    from playwright.sync_api import expect

    caplog.set_level(logging.DEBUG)
    work = tmp_path / "work"
    work.mkdir()
    with start_ui(resolve(cwd=work, env={}, sandbox=True), runs_dir=work / "ui") as server:
        page = browser_context.new_page()
        sent: list[str] = []
        page.on("request", lambda r: sent.append(r.post_data or "") if r.method == "POST" else 0)
        page.goto(server.url)
        page.get_by_label("Choose a campaign file, or drop it here").set_input_files(locked)
        expect(page.locator("#upload-status")).to_contain_text(
            "campaign.xlsx received (Excel workbook, encrypted,"
        )

        # The Check says it is encrypted, and asks: a password box, nothing remembered.
        box = page.get_by_label("Workbook password")
        expect(box).to_be_visible()
        expect(box).to_have_attribute("type", "password")
        expect(box).to_have_attribute("autocomplete", "off")
        expect(page.locator("#check-body")).to_have_text(
            "campaign.xlsx is encrypted: type its password at “Workbook password” in the Check "
            "step to read it"
        )
        assert FLAG.search(page.locator("#check").inner_text()) is None
        box.fill("Fruehling")
        page.get_by_role("button", name="Open the workbook").click()
        expect(page.locator("#check-body")).to_have_text("the password does not open campaign.xlsx")
        box.fill(PASSWORD)
        box.press("Enter")
        expect(page.locator("#problems tbody tr")).to_have_count(5)  # 4 errors, 1 warning
        expect(page.locator("#unlock-status")).to_have_text("Opened: campaign.xlsx.")
        expect(page.locator("#columns")).to_contain_text("campaign.xlsx, sheet Spring")

        # Plan and apply read it again with the password the tab holds.
        page.get_by_role("button", name="Show the plan").click()
        expect(page.locator("#plan .counts")).to_contain_text("14 create")
        expect(page.locator(".command code")).to_have_text(
            "linksync apply campaign.xlsx --workbook-password-file FILE --qr qr-codes.zip"
        )
        page.get_by_role("button", name="Apply: send 14 changes").click()
        expect(page.locator("#run-state")).to_have_text("Finished", timeout=60_000)
        expect(page.locator("#run-summary")).to_contain_text(
            "No annotated copy of campaign.xlsx: it is encrypted"
        )
        files = page.locator("#run-files a").all_inner_texts()
        assert "qr-codes.zip" in files and not [f for f in files if "annotated" in f]
        run = server.state.runs.latest()
        assert run is not None and run.record.state is RunState.FINISHED
        assert PASSWORD not in page.content(), "never in the page's markup"
        assert sum(PASSWORD in body for body in sent) == 3, "sent with check, plan, apply"

        # A reload forgets it: the earlier upload, used again, asks again.
        page.reload()
        expect(page.get_by_label("Workbook password")).to_be_hidden()
        page.get_by_role("button", name="Use again").click()
        expect(page.get_by_label("Workbook password")).to_have_value("")
        expect(page.locator("#check-body")).to_contain_text("campaign.xlsx is encrypted")

        # What the server serves afterwards: the page, its state, the run's record.
        served = [page.content().encode()]
        for where in ("/", "/api/state", "/api/runs/latest"):
            answer = page.request.get(server.url.rstrip("/") + where)
            assert answer.ok, where
            served.append(answer.body())
        page.close()
    secret = secret_forms(PASSWORD)
    assert b"campaign.xlsx" in served[0] and b"campaign.xlsx" in served[2]
    for body in served:
        assert not any(s in body for s in secret), body[:300]
    for where, data in contents(work):
        assert not any(s in data for s in secret), f"the password is in {where}"
    out, err = capfd.readouterr()
    assert PASSWORD not in out + err and PASSWORD not in caplog.text


DATED = (
    "Destination URL,Back-half,Expiry\n"
    "https://shop.example.com/a,autumn-a,2030-12-31 23:59\n"
    "https://shop.example.com/b,autumn-b,2030-03-31 02:30\n"  # skipped in Paris (DST starts)
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    work = tmp_path_factory.mktemp("ui-zones")
    with start_ui(resolve(cwd=work, env={}, sandbox=True), runs_dir=work / "ui") as handle:
        yield handle


def test_the_time_zone_of_dates_is_chosen_on_the_page(
    browser_context: Any, server: UiServer, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    sheet = tmp_path / "autumn.csv"
    sheet.write_text(DATED, encoding="utf-8")
    page = browser_context.new_page()
    page.goto(server.url)
    page.get_by_label("Choose a campaign file, or drop it here").set_input_files(sheet)
    expect(page.locator("#check .counts")).to_contain_text("2 ready")
    zone = page.get_by_label("Time zone of your dates")
    expect(zone).to_have_value("UTC")
    assert page.locator("#timezones option[value='Europe/Paris']").count() == 1

    zone.fill("Europe/Paris")
    zone.blur()  # changed: the Check runs again
    problem = page.locator("#problems tbody tr")
    expect(problem).to_have_count(1)
    expect(problem).to_contain_text("2030-03-31 02:30 does not exist in Europe/Paris")

    zone.fill("Mars/Olympus")
    zone.blur()
    expect(page.locator("#check-body")).to_have_text(
        "unknown time zone 'Mars/Olympus': give an IANA name such as America/New_York, "
        "Europe/Paris or UTC"
    )

    zone.fill("America/New_York")
    zone.blur()
    expect(page.locator("#check .counts")).to_contain_text("2 ready")
    page.get_by_role("button", name="Show the plan").click()
    expect(page.locator("#plan-table")).to_contain_text(
        "expires 2030-12-31 23:59 America/New_York = 2031-01-01T04:59:00.000Z"
    )
    expect(page.locator(".command code")).to_contain_text("--timezone America/New_York")
    page.close()
