"""Uploads off the tested path, in headless Chromium: several files chosen at once,
some refused (each file has its own line, a refusal stays said), two files of one name
from different folders (the second is not sent, and the page says why), a folder
dropped (said as a folder, nothing sent), and a file renamed on the computer after it
was chosen (said as such, not as a server gone)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from linksync.config import resolve
from linksync.ui import UiServer, start_ui

CHOOSE = "Choose a campaign file, or drop it here"
TAKES = "the page takes .csv, .xlsx, .xlsm, .yaml and .yml files"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    work = tmp_path_factory.mktemp("ui-uploads")
    with start_ui(resolve(cwd=work, env={}, sandbox=True), runs_dir=work / "ui") as handle:
        yield handle


@pytest.fixture
def page(browser_context: Any, server: UiServer) -> Iterator[Any]:
    tab = browser_context.new_page()
    tab.goto(server.url)
    try:
        yield tab
    finally:
        tab.close()
        for upload in server.state.uploads.list():
            server.state.uploads.remove(upload.upload_id)


def csv(path: Path, slug: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"slug,url\n{slug},https://shop.example.com/{slug}\n", encoding="utf-8")
    return path


def test_each_file_chosen_together_is_said_and_a_second_of_one_name_is_not_sent(
    page: Any, server: UiServer, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    notes = tmp_path / "notes.txt"
    notes.write_text("call Anna about the spring links\n", encoding="utf-8")
    typo = tmp_path / "more.ymal"
    typo.write_text("links:\n  - slug: spring-y\n    url: https://shop.example.com/y\n")
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    march = csv(tmp_path / "march" / "links.csv", "march-a")
    april = csv(tmp_path / "april" / "links.csv", "april-a")

    page.get_by_label(CHOOSE).set_input_files([notes, march, typo, empty, april])
    lines = page.locator("#upload-status .line")
    expect(lines).to_have_text(
        [
            f"notes.txt: {TAKES}",
            f"links.csv received (CSV file, {march.stat().st_size} bytes).",
            f"more.ymal: {TAKES}",
            "empty.csv is empty",
            "links.csv was not sent: another file named links.csv was chosen with it, and "
            "the page holds one file per name. Rename one to use both.",
        ]
    )
    expect(page.locator("#upload-status .line.problem")).to_have_count(4)
    expect(page.locator("#uploads li")).to_have_count(1)
    (kept,) = server.state.uploads.list()
    assert kept.path.read_bytes() == march.read_bytes()  # the first, not replaced by the second
    expect(page.locator("#check .counts")).to_contain_text("1 rows")


def test_a_folder_dropped_is_said_and_nothing_is_sent(
    page: Any, server: UiServer, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    folder = tmp_path / "spring campaign"
    csv(folder / "links.csv", "spring-a")
    box = page.locator("#dropzone").bounding_box()
    at = {"x": box["x"] + box["width"] / 2, "y": box["y"] + box["height"] / 2}
    data = {"items": [], "files": [str(folder)], "dragOperationsMask": 1}
    cdp = page.context.new_cdp_session(page)  # a drag from the file manager, as Chromium gets it
    for kind in ("dragEnter", "dragOver", "drop"):
        cdp.send("Input.dispatchDragEvent", {"type": kind, **at, "data": data})
    expect(page.locator("#upload-status .line.problem")).to_have_text(
        "spring campaign is a folder: the page takes files. Open the folder and drop (or "
        "choose) the files in it."
    )
    expect(page.locator("#uploads li")).to_have_count(0)
    assert server.state.uploads.list() == []


def test_a_file_renamed_after_it_was_chosen_is_said_as_such(
    page: Any, server: UiServer, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    first = csv(tmp_path / "a.csv", "spring-a")
    second = csv(tmp_path / "b.csv", "spring-b")
    renamed = tmp_path / "b-old.csv"

    def rename_then_send(route: Any) -> None:
        if second.exists():  # while the first is on its way, the second is renamed
            second.rename(renamed)
        route.continue_()

    page.route("**/api/uploads?*", rename_then_send)
    page.get_by_label(CHOOSE).set_input_files([first, second])
    expect(page.locator("#upload-status .line")).to_have_text(
        [
            f"a.csv received (CSV file, {first.stat().st_size} bytes).",
            "b.csv could not be read on your computer: it was moved, renamed or changed "
            "after you chose it. Choose it again.",
        ]
    )
    assert [u.name for u in server.state.uploads.list()] == ["a.csv"]


def test_a_name_whose_first_file_was_refused_takes_the_second(
    page: Any, server: UiServer, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    broken = tmp_path / "old" / "links.csv"
    broken.parent.mkdir()
    broken.write_bytes(b"PK\x03\x04\x00\x00 not text")
    good = csv(tmp_path / "new" / "links.csv", "spring-a")
    page.get_by_label(CHOOSE).set_input_files([broken, good])
    expect(page.locator("#upload-status .line")).to_have_text(
        [
            "links.csv is not a text file; a CSV file is text",
            f"links.csv received (CSV file, {good.stat().st_size} bytes).",
        ]
    )
    (kept,) = server.state.uploads.list()
    assert kept.path.read_bytes() == good.read_bytes()


def test_a_link_dropped_instead_of_a_file_is_said(page: Any, server: UiServer) -> None:
    from playwright.sync_api import expect

    transfer = page.evaluate_handle(
        """() => {
            const data = new DataTransfer();
            data.setData("text/uri-list", "https://docs.example.com/spreadsheets/d/abc");
            return data;
        }"""
    )
    page.dispatch_event("#dropzone", "drop", {"dataTransfer": transfer})
    expect(page.locator("#upload-status .line.problem")).to_have_text(
        "Nothing was read: only files can be dropped here (an online sheet: download it "
        "as .xlsx or .csv first)."
    )
    assert server.state.uploads.list() == []
