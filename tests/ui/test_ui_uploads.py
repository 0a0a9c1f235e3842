"""Uploads through the page's API: what is kept, what is refused and with which words."""

from __future__ import annotations

import io
import zipfile
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from ui_support import SAMPLE

from linksync.ui import UiState, UploadStore
from linksync.ui.uploads import display_name, size_text, too_large


async def test_the_sample_workbook_is_received(client: httpx.AsyncClient, state: UiState) -> None:
    answer = await client.post("/api/uploads?name=campaign.xlsx", content=SAMPLE.read_bytes())
    assert answer.status_code == 201
    body = answer.json()
    assert body["name"] == "campaign.xlsx" and body["kind"] == "Excel workbook"
    assert body["size"] == SAMPLE.stat().st_size
    (kept,) = state.uploads.list()
    assert kept.path.read_bytes() == SAMPLE.read_bytes() and kept.path.name == "campaign.xlsx"
    assert kept.path.is_relative_to(state.uploads.folder)
    listed = (await client.get("/api/state")).json()["uploads"]
    assert [u["name"] for u in listed] == ["campaign.xlsx"]
    page = (await client.get("/")).text
    assert "campaign.xlsx" in page


async def test_too_large_is_refused_from_the_declared_length(
    client: httpx.AsyncClient, state: UiState
) -> None:
    answer = await client.post("/api/uploads?name=big.csv", content=b"x" * 150_000)
    assert answer.status_code == 413
    assert answer.json()["error"] == (
        "big.csv is 150 KB; the page takes files up to 100 KB. Split it, or run "
        "linksync apply big.csv in a terminal, which has no size limit."
    )
    assert state.uploads.list() == [] and list(state.uploads.folder.iterdir()) == []


async def test_too_large_is_cut_off_when_the_length_is_not_declared(
    client: httpx.AsyncClient, state: UiState
) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(20):
            yield b"slug,url\n" * 1000

    answer = await client.post("/api/uploads?name=big.csv", content=chunks())
    assert answer.status_code == 413
    assert "big.csv is larger than 100 KB" in answer.json()["error"]
    assert list(state.uploads.folder.iterdir()) == []


def _not_a_workbook() -> bytes:
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as archive:
        archive.writestr("word/document.xml", "<w/>")
    return data.getvalue()


@pytest.mark.parametrize(
    ("name", "content", "status", "message"),
    [
        ("notes.txt", b"hello", 415, "notes.txt: the page takes .csv, .xlsx, .xlsm, .yaml"),
        ("campaign", b"hello", 415, "campaign: the page takes"),
        (".hidden.csv", b"a,b\n", 415, "the page takes"),
        ("fake.xlsx", b"slug,url\n", 415, "fake.xlsx is not an Excel workbook (.xlsx)"),
        ("doc.xlsx", _not_a_workbook(), 415, "doc.xlsx is not an Excel workbook"),
        ("binary.csv", b"\x00\x01\x02PK", 415, "binary.csv is not a text file"),
        ("empty.yaml", b"", 400, "empty.yaml is empty"),
    ],
)
async def test_files_the_page_does_not_take(
    client: httpx.AsyncClient,
    state: UiState,
    name: str,
    content: bytes,
    status: int,
    message: str,
) -> None:
    answer = await client.post("/api/uploads", params={"name": name}, content=content)
    assert answer.status_code == status
    assert message in answer.json()["error"]
    assert state.uploads.list() == []


async def test_utf16_csv_is_text(client: httpx.AsyncClient) -> None:
    content = "slug\turl\n".encode("utf-16")
    answer = await client.post("/api/uploads?name=excel-unicode.csv", content=content)
    assert answer.status_code == 201


async def test_a_name_cannot_leave_the_upload_folder(
    client: httpx.AsyncClient, state: UiState
) -> None:
    name = "../../../etc/cron.d/evil\u202e.csv"
    answer = await client.post("/api/uploads", params={"name": name}, content=b"slug,url\n")
    assert answer.status_code == 201 and answer.json()["name"] == "evil.csv"
    (kept,) = state.uploads.list()
    assert kept.path.parent.parent == state.uploads.folder


async def test_remove_and_the_file_count_limit(tmp_path: Path) -> None:
    store = UploadStore(1000, max_files=2)

    async def body() -> AsyncIterator[bytes]:
        yield b"slug,url\n"

    first = await store.receive("a.csv", body())
    await store.receive("b.csv", body())
    with pytest.raises(Exception, match="holds 2 files already; remove one first"):
        await store.receive("c.csv", body())
    again = await store.receive("a.csv", body())  # a replacement takes no room of its own
    assert again.replaced and not first.path.exists()
    assert store.remove(again.upload_id) and not again.path.exists()
    assert not store.remove(again.upload_id)
    await store.receive("c.csv", body())
    folder = store.folder
    store.close()
    assert not folder.exists()


def test_sizes_and_names_in_words() -> None:
    assert [size_text(n) for n in (999, 18_400, 1_300_000, 25_000_000)] == [
        "999 bytes",
        "18 KB",
        "1.3 MB",
        "25 MB",
    ]
    assert too_large("a.csv", None, 1000).startswith("a.csv is larger than 1 KB;")
    assert display_name("C:\\Users\\me\\Spring campaign.xlsx") == "Spring campaign.xlsx"
    assert display_name("x" * 300 + ".xlsx").endswith("x.xlsx")
    assert len(display_name("x" * 300 + ".xlsx")) == 120


async def test_two_long_names_that_differ_at_the_end_are_two_files(
    client: httpx.AsyncClient, state: UiState
) -> None:
    """Names past the page's length keep their end: ``..._v1.csv`` does not replace
    ``..._v2.csv`` as if they were one file."""
    stem = "Spring_sale_links_export_" + "Germany_Austria_Switzerland_" * 5
    said = []
    for version in ("v1", "v2"):
        body = f"slug,url\nspring-{version},https://shop.example.com/{version}\n".encode()
        answer = await client.post(
            "/api/uploads", params={"name": f"{stem}{version}.csv"}, content=body
        )
        assert answer.status_code == 201
        said.append(answer.json()["said"])
    names = [u.name for u in state.uploads.list()]
    assert len(names) == 2 and names[0] != names[1]
    assert [n[-7:] for n in names] == ["_v1.csv", "_v2.csv"]
    assert all(len(n) == 120 and n.startswith("Spring_sale_links_export_") for n in names)
    assert "replaced" not in said[1] and said[1].startswith(f"{names[1]} received")
    checked = (await client.post("/api/check", json={})).json()["data"]
    assert checked["counts"]["rows"] == 2
