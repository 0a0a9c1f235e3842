"""The files a run of the page writes name each upload as the user named it: the
results reports in every format, the annotated copy, the journal and the run's summary
say ``Q1 #promo 50%"é?.csv``, never the server's temporary path (which would tell the
server's folder layout to whoever the report is forwarded to, and names the file with
the characters a file name may not hold replaced). A run of the command line names
its sources as they were typed."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import quote

import httpx
import openpyxl
import pytest
from click.testing import CliRunner
from ui_support import eventually

from linksync.ui import RunState, UiState

NAME = 'Q1 #promo 50%"\u00e9?.csv'
#: Two links, and a row whose URL is not one: the messages name the file too.
SHEET = (
    b"slug,url\n"
    b"spring-a,https://shop.example.com/a\n"
    b"spring-b,https://shop.example.com/b\n"
    b"spring-c,not a url\n"
)


async def _applied(client: httpx.AsyncClient, state: UiState) -> tuple[str, dict[str, bytes]]:
    """Upload ``SHEET`` as ``NAME``, show the plan, apply it: the run's id and each file
    downloaded from the page, by name."""
    answer = await client.post("/api/uploads", params={"name": NAME}, content=SHEET)
    assert answer.status_code == 201, answer.text
    shown = (await client.post("/api/plan", json={})).json()["data"]
    started = await client.post("/api/apply", json={"plan_id": shown["plan_id"]})
    assert started.status_code == 202, started.text
    run = state.runs.get(started.json()["run_id"])
    assert run is not None
    eventually(lambda: run.record.state.over, timeout=30)
    assert run.record.state is RunState.FINISHED, run.record.error
    downloads = {}
    for name in run.record.files:
        got = await client.get(f"/runs/{run.record.run_id}/files/{quote(name)}")
        assert got.status_code == 200, name
        downloads[name] = got.content
    return run.record.run_id, downloads


async def test_every_report_of_the_page_names_the_upload_as_the_user_named_it(
    client: httpx.AsyncClient, state: UiState
) -> None:
    run_id, files = await _applied(client, state)
    tmp = "linksync-ui-uploads"
    assert str(state.uploads.folder).split("/")[-1].startswith(tmp)
    for name, data in files.items():
        for needle in (tmp, str(state.uploads.folder), "50%_\u00e9_"):
            assert needle.encode() not in data, (name, needle)

    rows = list(csv.DictReader(io.StringIO(files["results.csv"].decode("utf-8-sig"))))
    assert [r["source"] for r in rows] == [NAME] * 3
    assert [r["status"] for r in rows] == ["ok", "ok", "invalid"]

    book = openpyxl.load_workbook(io.BytesIO(files["results.xlsx"]), read_only=True)
    sheet = book["Results"]
    table = [list(r) for r in sheet.iter_rows(values_only=True)]
    column = table[0].index("source")
    assert [r[column] for r in table[1:4]] == [NAME] * 3

    document = json.loads(files["results.json"])
    assert [r["source"] for r in document["results"]] == [NAME] * 3
    lines = [json.loads(x) for x in files["results.jsonl"].decode().splitlines()]
    assert [x["source"] for x in lines if "slug" in x] == [NAME] * 3

    markdown = files["results.md"].decode()
    assert f"{NAME}, row 4" in markdown  # the invalid row, named where it is

    suite = ET.fromstring(files["results.xml"])
    cases = suite.findall(".//testcase")
    assert len(cases) == 3 and {c.get("classname") for c in cases} == {NAME}

    copy = files['Q1 #promo 50%"\u00e9?-annotated.csv'].decode("utf-8-sig")
    annotated = list(csv.reader(io.StringIO(copy)))
    status = annotated[0].index("Status")
    assert [r[status] for r in annotated[1:]] == ["created", "created", "invalid"]

    journal = (state.journals / f"{run_id}.jsonl").read_text(encoding="utf-8")
    events = [json.loads(x) for x in journal.splitlines()]
    assert {e["source"] for e in events if e["event"] == "result"} == {NAME}
    assert tmp not in journal


def test_a_command_line_run_names_its_source_as_typed(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from linksync.cli import cli

    (workdir / "data").mkdir()
    (workdir / "data" / "q1.csv").write_bytes(SHEET)
    typed = "./data/q1.csv"
    result = CliRunner().invoke(
        cli, ["apply", typed, "--yes", "--no-progress", "--report", "out.csv"]
    )
    assert result.exit_code == 1, result.output
    rows = list(csv.DictReader(io.StringIO((workdir / "out.csv").read_text("utf-8-sig"))))
    assert [r["source"] for r in rows] == [typed] * 3


async def test_an_annotated_workbook_of_an_odd_name_gets_its_rows(
    client: httpx.AsyncClient, state: UiState
) -> None:
    """The annotated copy finds its rows by the name they carry: the upload's name,
    which differs from the name the server kept it under (``:``, ``"``, ``<>``)."""
    name = 'Mai-Kampagne: "Sommer" <DE>.xlsx'
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "Sommer"
    sheet.append(["Destination URL", "Slug"])
    sheet.append(["https://shop.example.de/sommer", "sommer-de"])
    sheet.append(["https://shop.example.de/see", "see-de"])
    sheet.auto_filter.ref = "A1:B3"
    data = io.BytesIO()
    book.save(data)
    answer = await client.post("/api/uploads", params={"name": name}, content=data.getvalue())
    assert answer.status_code == 201, answer.text
    (upload,) = state.uploads.list()
    assert upload.path.name != name  # kept under a name the server's disk takes
    shown = (await client.post("/api/plan", json={})).json()["data"]
    started = await client.post("/api/apply", json={"plan_id": shown["plan_id"]})
    run = state.runs.get(started.json()["run_id"])
    assert run is not None
    eventually(lambda: run.record.state.over, timeout=30)
    assert run.record.state is RunState.FINISHED, run.record.error
    copy_name = 'Mai-Kampagne: "Sommer" <DE>-annotated.xlsx'
    assert run.record.files[0] == copy_name
    got = await client.get(f"/runs/{run.record.run_id}/files/{quote(copy_name)}")
    copy = openpyxl.load_workbook(io.BytesIO(got.content))["Sommer"]
    table = [list(r) for r in copy.iter_rows(values_only=True)]
    status, short = table[0].index("Status"), table[0].index("Short link")
    assert [r[status] for r in table[1:]] == ["created", "created"]
    assert [r[short] for r in table[1:]] == [
        "https://lnk.test/sommer-de",
        "https://lnk.test/see-de",
    ]
    report = await client.get(f"/runs/{run.record.run_id}/files/results.csv")
    rows = list(csv.DictReader(io.StringIO(report.content.decode("utf-8-sig"))))
    assert [(r["source"], r["sheet"]) for r in rows] == [(name, "Sommer")] * 2
