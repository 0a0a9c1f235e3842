"""Which files the page reads: a corrected file dropped again under the same name
replaces the earlier one (and the page says so), and each opening of the page starts
with no file chosen; an earlier visit's uploads are listed as earlier, and read only
once they are used again. Through the page's API, in-process."""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import openpyxl
from ui_support import page_client

from linksync.ui import UiState

XLSX = "Excel workbook"


def campaign(rows: list[tuple[str, str]]) -> bytes:
    """A campaign workbook as a marketer makes one: a title row, then the table."""
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "Links"
    sheet.append(["Autumn campaign"])
    sheet.append(["Destination URL", "Back-half"])
    for url, slug in rows:
        sheet.append([url, slug])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


#: 12 rows, 3 of them with a broken URL; the corrected sheet has the same 12 slugs.
FIRST = campaign(
    [(f"https://shop.example.com/p{i}" if i % 4 else "htps://typo", f"p{i}") for i in range(12)]
)
CORRECTED = campaign([(f"https://shop.example.com/p{i}", f"p{i}") for i in range(12)])


async def drop(http: httpx.AsyncClient, name: str, content: bytes) -> dict[str, Any]:
    answer = await http.post("/api/uploads", params={"name": name}, content=content)
    assert answer.status_code == 201, answer.text
    data: dict[str, Any] = answer.json()
    return data


@contextlib.asynccontextmanager
async def visit(state: UiState) -> AsyncIterator[tuple[httpx.AsyncClient, str]]:
    """Open the page (a new visit): a client sending its visit id, and the page."""
    async with page_client(state) as http:
        page = (await http.get("/")).text
        found = re.search(r'<meta name="linksync-visit" content="([0-9a-f]+)">', page)
        assert found is not None
        http.headers["X-Linksync-Visit"] = found[1]
        yield http, page


async def test_a_corrected_file_dropped_again_replaces_the_earlier_one(state: UiState) -> None:
    async with visit(state) as (http, _):
        first = await drop(http, "campaign.xlsx", FIRST)
        assert first["said"].startswith("campaign.xlsx received (Excel workbook, ")
        before = (await http.post("/api/check", json={})).json()["data"]
        assert before["counts"]["rows"] == 12 and before["counts"]["invalid"] == 3

        again = await drop(http, "campaign.xlsx", CORRECTED)
        assert again["replaced"] is True
        assert again["said"] == (
            f"campaign.xlsx replaced the earlier upload of the same name "
            f"({XLSX}, {again['size_text']})."
        )
        state_now = (await http.get("/api/state")).json()
        assert [u["id"] for u in state_now["uploads"]] == [again["id"]]
        assert state_now["earlier"] == []
        after = (await http.post("/api/check", json={})).json()["data"]
        assert after["counts"]["rows"] == 12 and after["counts"]["invalid"] == 0
        assert after["problems"] == []  # no DUPLICATE_IN_SOURCE: one file, read once
        plan = (await http.post("/api/plan", json={})).json()["data"]
        assert plan["counts"]["create"] == 12
        assert plan["command_line"].startswith("linksync apply campaign.xlsx --annotate")
    assert [u.name for u in state.uploads.list()] == ["campaign.xlsx"]
    assert len(list(state.uploads.folder.iterdir())) == 1  # the old file is deleted


async def test_a_plan_shown_before_the_file_was_replaced_is_not_applied(state: UiState) -> None:
    async with visit(state) as (http, _):
        await drop(http, "campaign.xlsx", FIRST)
        shown = (await http.post("/api/plan", json={})).json()["data"]
        await drop(http, "campaign.xlsx", CORRECTED)
        refused = await http.post("/api/apply", json={"plan_id": shown["plan_id"]})
    assert refused.status_code == 409
    assert "the files changed since the plan was shown" in refused.json()["error"]


async def test_a_new_visit_starts_with_no_file_and_lists_the_earlier_ones(
    state: UiState,
) -> None:
    async with visit(state) as (yesterday, _):
        old = await drop(yesterday, "campaign.xlsx", FIRST)
        await drop(yesterday, "extra.csv", b"url,slug\nhttps://shop.example.com/x,x\n")

    async with visit(state) as (today, page):
        # the page: nothing chosen, both listed as earlier uploads
        chosen = page.split('id="uploads"', 1)[1].split("</ul>", 1)[0]
        assert "<li" not in chosen
        earlier = page.split('id="earlier-uploads"', 1)[1].split("</ul>", 1)[0]
        assert "campaign.xlsx" in earlier and "extra.csv" in earlier and "Use again" in earlier
        listed = (await today.get("/api/state")).json()
        assert listed["uploads"] == []
        assert [u["name"] for u in listed["earlier"]] == ["extra.csv", "campaign.xlsx"]
        # nothing is read until a file is picked again
        empty = await today.post("/api/check", json={})
        assert empty.status_code == 409 and "drop or choose a file first" in empty.json()["error"]

        used = await today.post(f"/api/uploads/{old['id']}/use")
        assert used.status_code == 200
        assert used.json()["said"] == "campaign.xlsx is one of your files again."
        check = (await today.post("/api/check", json={})).json()["data"]
        assert [s["source"] for s in check["sheets"]] == ["campaign.xlsx"]  # not extra.csv
        plan = (await today.post("/api/plan", json={})).json()["data"]
        assert plan["counts"] == {**plan["counts"], "create": 9, "invalid": 3}

        gone = await today.post("/api/uploads/not-an-upload/use")
        assert gone.status_code == 404


async def test_each_visit_reads_its_own_files(state: UiState) -> None:
    async with visit(state) as (one, _), visit(state) as (two, _):
        await drop(one, "spring.csv", b"url,slug\nhttps://shop.example.com/a,a\n")
        await drop(two, "summer.csv", b"url,slug\nhttps://shop.example.com/b,b\n")
        first = (await one.post("/api/check", json={})).json()["data"]
        second = (await two.post("/api/check", json={})).json()["data"]
    assert [s["source"] for s in first["sheets"]] == ["spring.csv"]
    assert [s["source"] for s in second["sheets"]] == ["summer.csv"]


async def test_a_visit_id_the_page_never_sends_is_refused(state: UiState) -> None:
    async with page_client(state, **{"X-Linksync-Visit": "../../etc"}) as http:
        answer = await http.post("/api/uploads", params={"name": "a.csv"}, content=b"url\n")
        assert answer.status_code == 400 and "reload the page" in answer.json()["error"]
        assert (await http.get("/api/state")).status_code == 400
    assert state.uploads.list() == []


async def test_removing_an_earlier_upload_deletes_it(state: UiState, tmp_path: Path) -> None:
    async with visit(state) as (before, _):
        old = await drop(before, "campaign.xlsx", FIRST)
    async with visit(state) as (now, _):
        assert (await now.delete(f"/api/uploads/{old['id']}")).status_code == 204
        assert (await now.get("/api/state")).json()["earlier"] == []
    assert state.uploads.list() == []
