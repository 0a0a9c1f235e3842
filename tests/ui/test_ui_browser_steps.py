"""The page's steps end to end in a real headless Chromium, against the built-in
sandbox, as a marketer uses them: drop the sample campaign workbook, fix a column
mapping, see the 4 bad rows with their constants, plan, apply, watch the progress
reach the end, download the annotated workbook (its cells and QR images read back with
openpyxl, a QR image decoded) and the QR zip, plan again and see "nothing to do".
A second test cancels a run mid-apply and checks nothing was lost.

The screenshots of each step (``docs/ui/*.png``, shown in ``docs/ui.md``) are taken
here: set ``LINKSYNC_UI_SCREENSHOTS=docs/ui`` to write them there; otherwise they go
to a temporary folder.
"""

from __future__ import annotations

import csv
import io
import os
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from PIL import Image
from ui_support import SAMPLE

from linksync.config import resolve
from linksync.ui import RunState, UiServer, start_ui

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
BAD_ROWS = [
    ("Spring", "8", "INVALID_URL"),
    ("Spring", "11", "RESERVED_SLUG"),
    ("Summer", "6", "DUPLICATE_IN_SOURCE"),
    ("Summer", "9", "INVALID_EXPIRY"),
]


def decode(png: bytes) -> list[str]:
    """Every QR code a real decoder finds in the image (as the QR tests do)."""
    zxingcpp = pytest.importorskip("zxingcpp", reason="pip install zxing-cpp (the test extra)")
    found = zxingcpp.read_barcodes(Image.open(io.BytesIO(png)).convert("L"))
    return [b.text for b in found if b.format == zxingcpp.BarcodeFormat.QRCode]


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    wanted = os.environ.get("LINKSYNC_UI_SCREENSHOTS")
    folder = Path(wanted) if wanted else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    work = tmp_path_factory.mktemp("ui-steps")
    with start_ui(resolve(cwd=work, env={}, sandbox=True), runs_dir=work / "ui") as handle:
        yield handle


@pytest.fixture(scope="module")
def slow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    """A sandbox answering each request after 40 ms, one request at a time: a run of
    60 rows takes a few seconds, time enough to cancel it."""
    work = tmp_path_factory.mktemp("ui-slow")
    (work / "edge.yaml").write_text("faults:\n  latency_ms: [40, 40]\n", encoding="utf-8")
    (work / "linksync.yaml").write_text(
        "sandbox_config: edge.yaml\nconcurrency: 1\n", encoding="utf-8"
    )
    with start_ui(resolve(cwd=work, env={}, sandbox=True), runs_dir=work / "ui") as handle:
        yield handle


def drop(page: Any, path: Path, mime: str) -> None:
    """Drop a file on the page's drop zone, as a file dragged from the desktop."""
    transfer = page.evaluate_handle(
        """([bytes, name, mime]) => {
            const data = new DataTransfer();
            data.items.add(new File([new Uint8Array(bytes)], name, { type: mime }));
            return data;
        }""",
        [list(path.read_bytes()), path.name, mime],
    )
    page.dispatch_event("#dropzone", "drop", {"dataTransfer": transfer})


def download(page: Any, name: str, folder: Path) -> Path:
    """Click the download link ``name``; the file as saved under its own name."""
    with page.expect_download() as waiting:
        page.get_by_role("link", name=name, exact=True).click()
    got = waiting.value
    assert got.suggested_filename == name
    got.save_as(folder / name)
    return folder / name


def test_drop_map_check_plan_apply_download_and_nothing_to_do(
    browser_context: Any, server: UiServer, tmp_path: Path, shots: Path
) -> None:
    from playwright.sync_api import expect

    page = browser_context.new_page()
    page.goto(server.url)
    drop(page, SAMPLE, XLSX)

    # Columns: the header row under the title rows, each column's field and examples.
    columns = page.locator("#columns")
    expect(columns).to_contain_text("campaign.xlsx, sheet Spring")
    expect(columns).to_contain_text("Header found on row 3")
    expect(page.get_by_label("Read column Destination URL as")).to_have_value("url")
    expect(page.get_by_label("Read column Back-half as")).to_have_value("slug")
    examples = columns.locator("tr:has(th:text-is('Back-half')) td.examples").first
    expect(examples).to_have_text("spring-salespring-shoesget-app")
    expect(page.locator(".unmapped-list")).to_have_text(
        "Not mapped, so not read: Approved by. Choose what each holds, or “Not used”."
    )
    expect(page.locator("#problems tbody tr")).to_have_count(5)  # 4 errors, 1 warning
    columns.screenshot(path=shots / "2-columns.png")

    # Fix the mapping: "Approved by" is not a link field; its warning goes.
    page.get_by_label("Read column Approved by as").select_option("ignore")
    expect(page.locator(".unmapped-list")).to_have_count(0)
    expect(page.locator("#problems tbody tr")).to_have_count(4)
    expect(page.get_by_role("button", name="Undo my column choices")).to_be_visible()
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=shots / "1-page.png")  # the top: the target, the file, the columns

    # Check: the 4 bad rows with their constants, the value and what to change.
    check = page.locator("#check")
    expect(check.locator(".counts")).to_contain_text("18 rows")
    expect(check.locator(".counts")).to_contain_text("4 with errors")
    rows = page.locator("#problems tbody tr")
    seen = [
        (r.locator("td").nth(0).inner_text(), r.locator("td").nth(1).inner_text(),
         r.locator(".constant").inner_text())
        for r in rows.all()
    ]  # fmt: skip
    assert seen == BAD_ROWS
    expect(rows.nth(0).locator(".value")).to_contain_text("spring/[U+200B]hats")
    expect(rows.nth(1)).to_contain_text("pick another one")
    page.get_by_label("Problem", exact=True).select_option("RESERVED_SLUG")
    expect(page.locator("#problems tbody tr:visible")).to_have_count(1)
    expect(page.locator("#filter-count")).to_have_text("1 of 4 problems shown")
    page.get_by_label("Problem", exact=True).select_option("")
    check.screenshot(path=shots / "3-check.png")

    # Plan: 14 creates, 4 invalid, the quota as the command line words it.
    page.get_by_role("button", name="Show the plan").click()
    plan = page.locator("#plan")
    expect(plan.locator(".counts")).to_contain_text("14 create")
    expect(plan.locator(".counts")).to_contain_text("4 invalid")
    expect(plan).to_contain_text("Quota: 0/10000 links used, room for 10000: the 14 creates fit")
    expect(plan.locator("#plan-table tr.action-invalid")).to_have_count(4)
    expect(plan.locator("tr", has_text="lnk.test/spring-sale")).to_contain_text(
        "url: https://shop.example.com/spring?utm_source=newsletter"
    )
    expect(plan.locator(".command code")).to_have_text(
        "linksync apply campaign.xlsx --map 'Approved by=ignore' --annotate "
        "campaign-annotated.xlsx --qr qr-codes.zip"
    )
    plan.screenshot(path=shots / "4-plan.png")

    # Apply: one button; the progress reaches the end.
    page.get_by_role("button", name="Apply: send 14 changes").click()
    state = page.locator("#run-state")
    expect(state).to_have_text("Finished", timeout=30_000)
    expect(page.locator("#run-count")).to_have_text("14 of 14 rows")
    assert page.locator("#run-progress").evaluate("p => [p.value, p.max]") == [14, 14]
    expect(page.locator("#run-summary")).to_contain_text("14 created, 4 invalid")
    page.locator("#run").screenshot(path=shots / "5-apply.png")

    # Take it back: the annotated workbook, its cells and QR images.
    book = openpyxl.load_workbook(download(page, "campaign-annotated.xlsx", tmp_path))
    spring = book["Spring"]
    head = [c.value for c in spring[3]]
    assert head[-5:] == ["Short link", "Status", "Error", "Expires", "QR code"]
    link_col = head.index("Short link") + 1
    by_row = {r: [spring.cell(r, link_col + i).value for i in range(3)] for r in range(4, 14)}
    assert by_row[4][:2] == ["https://lnk.test/spring-sale", "created"]
    assert by_row[11][1] == "invalid" and "RESERVED_SLUG" in by_row[11][2]
    images = {img.anchor._from.row + 1: img._data() for img in spring._images}
    assert sorted(images) == [r for r in range(4, 14) if r not in (8, 11)]
    assert decode(images[4]) == ["https://lnk.test/spring-sale"]
    with zipfile.ZipFile(download(page, "qr-codes.zip", tmp_path)) as archive:
        index = list(csv.reader(io.StringIO(archive.read("index.csv").decode("utf-8-sig"))))
        assert len(index) == 1 + 14
        assert decode(archive.read("lnk.test/get-app.png")) == ["https://lnk.test/get-app"]
    report = download(page, "results.csv", tmp_path).read_text(encoding="utf-8-sig")
    assert len(report.splitlines()) == 1 + 18

    # Again: the workspace matches the file.
    page.get_by_role("button", name="Show the plan").click()
    expect(page.locator("#nothing-to-do")).to_contain_text(
        "Nothing to do: the workspace already matches your file (apart from the 4 rows"
    )
    expect(plan.locator(".counts")).to_contain_text("14 unchanged")
    page.close()


def test_cancel_mid_apply_loses_nothing(
    browser_context: Any, slow_server: UiServer, tmp_path: Path, shots: Path
) -> None:
    from playwright.sync_api import expect

    campaign = tmp_path / "launch.csv"
    lines = ["Destination URL,Slug"] + [f"https://example.com/p{i},p{i}" for i in range(60)]
    campaign.write_text("\n".join(lines) + "\n", encoding="utf-8")
    page = browser_context.new_page()
    page.goto(slow_server.url)
    page.get_by_label("Choose a campaign file, or drop it here").set_input_files(campaign)
    expect(page.locator("#check .counts")).to_contain_text("60 ready")
    page.get_by_role("button", name="Show the plan").click()
    page.get_by_role("button", name="Apply: send 60 changes").click()
    expect(page.locator("#run-count")).to_contain_text(" of 60 rows")
    page.get_by_role("button", name="Cancel the run").click()
    expect(page.locator("#run-state")).to_have_text("Cancelled", timeout=30_000)
    page.locator("#run").screenshot(path=shots / "6-cancelled.png")

    record = slow_server.state.runs.latest()
    assert record is not None and record.record.state is RunState.CANCELLED
    progress = record.record.progress
    assert progress is not None and 0 < progress.not_attempted < 60
    assert progress.done + progress.not_attempted == 60
    expect(page.locator("#run-count")).to_have_text(
        f"{progress.done} of 60 rows, {progress.not_attempted} not attempted"
    )

    # Every row is in the report: sent (ok) or NOT_ATTEMPTED, none lost.
    report = list(csv.DictReader(io.StringIO(
        download(page, "results.csv", tmp_path).read_text(encoding="utf-8-sig")
    )))  # fmt: skip
    assert len(report) == 60
    sent = {r["slug"] for r in report if r["status"] == "ok"}
    left = {r["slug"] for r in report if r["error_constant"] == "NOT_ATTEMPTED"}
    assert len(sent) == progress.done and len(left) == progress.not_attempted

    # The workspace matches the report: planning again creates exactly the rows left.
    page.get_by_role("button", name="Show the plan").click()
    counts = page.locator("#plan .counts")
    expect(counts).to_contain_text(f"{len(left)} create")
    expect(counts).to_contain_text(f"{len(sent)} unchanged")
    created = page.locator("#plan-table tr.action-create td:nth-child(2)").all_inner_texts()
    assert {c.removeprefix("lnk.test/") for c in created} == left
    page.close()
