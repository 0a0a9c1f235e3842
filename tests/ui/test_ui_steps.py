"""The page's steps through its API (in-process, no browser): the columns a sheet's
header gives and a mapping changes, the Check table, the plan, and Apply refusing what
was not shown (another plan, other files, a plan over a safety limit not confirmed).
The command line the page shows does what the page does."""

from __future__ import annotations

import asyncio
import shlex
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from ui_support import SAMPLE, eventually

import linksync
from linksync.config import Settings
from linksync.errors import ERRORS
from linksync.errors.advice import ADVICE
from linksync.ui import RunState, UiState
from linksync.ui.fixes import fix_for, visible


def csv_bytes(rows: int, *, first: int = 0) -> bytes:
    lines = ["Spring campaign", "", "Landing page;Key;Approver"]
    lines += [f"https://example.com/p{i};p{i};Ana" for i in range(first, first + rows)]
    return ("sep=;\n" + "\n".join(lines) + "\n").encode()


async def upload(client: httpx.AsyncClient, name: str, content: bytes) -> str:
    answer = await client.post("/api/uploads", params={"name": name}, content=content)
    assert answer.status_code == 201, answer.text
    return str(answer.json()["id"])


async def step(client: httpx.AsyncClient, path: str, body: dict[str, Any]) -> httpx.Response:
    return await client.post(path, json=body)


async def test_columns_follow_the_header_and_the_mapping(client: httpx.AsyncClient) -> None:
    await upload(client, "spring.csv", csv_bytes(4))
    first = (await step(client, "/api/check", {})).json()["data"]
    (sheet,) = first["sheets"]
    assert sheet["header_rows"] == [4, 4]  # under the sep= line, a title and a blank row
    by_header = {c["header"]: c for c in sheet["columns"]}
    assert by_header["Landing page"]["field"] == "url"
    assert by_header["Landing page"]["examples"] == [f"https://example.com/p{i}" for i in range(3)]
    assert by_header["Key"]["field"] == "slug"
    assert sheet["unmapped"] == ["Approver"]
    assert first["counts"] == {"rows": 4, "valid": 4, "invalid": 0, "errors": 0, "warnings": 1}

    mapped = await step(client, "/api/check", {"mapping": {"Approver": "tags"}})
    data = mapped.json()["data"]
    owner = {c["header"]: c for c in data["sheets"][0]["columns"]}["Approver"]
    assert (owner["field"], owner["how"]) == ("tags", "your choice")
    assert data["sheets"][0]["unmapped"] == [] and data["counts"]["warnings"] == 0
    assert 'data-header="Approver"' in mapped.json()["html"]["columns"]

    wrong = await step(client, "/api/check", {"mapping": {"Approver": "colour"}})
    assert wrong.status_code == 400 and "'colour': unknown field" in wrong.json()["error"]


async def test_check_names_each_bad_cell_without_a_request(
    client: httpx.AsyncClient, settings: Settings
) -> None:
    await upload(client, "campaign.xlsx", SAMPLE.read_bytes())
    await upload(client, "links.yaml", b"links:\n  - url: https://example.com/y\n    slug: y\n")
    data = (await step(client, "/api/check", {"mapping": {"Approved by": "ignore"}})).json()
    view = data["data"]
    assert [s["kind"] for s in view["sheets"]] == ["table", "table", "yaml"]
    assert [(p["sheet"], p["row"], p["constant"]) for p in view["problems"]] == [
        ("Spring", 8, "INVALID_URL"),
        ("Spring", 11, "RESERVED_SLUG"),
        ("Summer", 6, "DUPLICATE_IN_SOURCE"),
        ("Summer", 9, "INVALID_EXPIRY"),
    ]
    url = view["problems"][0]
    assert url["value"].startswith("https://shop.example.com/spring/[U+200B]hats")
    assert url["source"] == "campaign.xlsx" and "/tmp" not in str(view)
    assert "Fix invisible characters" in url["fix"]
    assert 'data-constant="RESERVED_SLUG"' in data["html"]["check"]
    fixed = (await step(client, "/api/check", {"fix_invisible": True})).json()["data"]
    assert fixed["counts"]["invalid"] == 3
    listed = await _workspace(settings)
    assert listed == set()  # checking sends nothing


async def _workspace(settings: Settings) -> set[str]:
    async with settings.open_client() as api:
        return {link.slug for link in await api.list_links()}


async def test_apply_runs_the_plan_shown_and_the_command_line_does_the_same(
    client: httpx.AsyncClient,
    state: UiState,
    settings: Settings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await upload(client, "spring.csv", csv_bytes(3))
    shown = (await step(client, "/api/plan", {"mapping": {"Approver": "ignore"}})).json()["data"]
    assert shown["counts"]["create"] == 3 and shown["writes"] == 3
    line = shown["command_line"]
    assert line == (
        "linksync apply spring.csv --map Approver=ignore --annotate spring-annotated.csv "
        "--qr qr-codes.zip"
    )
    stale = await step(client, "/api/apply", {"plan_id": "not-this-one"})
    assert stale.status_code == 409 and "not the plan shown last" in stale.json()["error"]

    started = await step(client, "/api/apply", {"plan_id": shown["plan_id"]})
    assert started.status_code == 202
    run = state.runs.get(started.json()["run_id"])
    assert run is not None
    eventually(lambda: run.record.state.over, timeout=30)
    assert run.record.state is RunState.FINISHED, run.record.error
    assert run.record.files[:2] == ("spring-annotated.csv", "qr-codes.zip")
    formats = (".csv", ".xlsx", ".json", ".jsonl", ".md", ".xml")
    assert set(run.record.files[2:]) == {f"results{e}" for e in formats}
    assert (state.journals / f"{run.record.run_id}.jsonl").is_file()
    again = await step(client, "/api/apply", {"plan_id": shown["plan_id"]})
    assert again.status_code == 409  # a plan is applied once

    # The same command in a terminal, on the same workspace: the next rows, created.
    (tmp_path / "spring.csv").write_bytes(csv_bytes(2, first=3))
    monkeypatch.chdir(tmp_path)  # the settings' folder: its sandbox
    from linksync.cli import cli

    words = [*shlex.split(line)[1:], "--yes", "--no-progress"]
    invoke = partial(CliRunner().invoke, cli, words, catch_exceptions=False)
    # A terminal's default target is the sandbox; CliRunner is no terminal: asked for.
    env = {"LINKSYNC_BASE_URL": None, "LINKSYNC_SANDBOX": "1"}
    result = await asyncio.to_thread(invoke, env=env)
    assert result.exit_code == 0, result.output
    assert await _workspace(settings) == {"p0", "p1", "p2", "p3", "p4"}


@pytest.fixture
def workspace_of_20(settings: Settings, tmp_path: Path) -> None:
    seed = tmp_path / "seed.csv"
    seed.write_bytes(csv_bytes(20))
    linksync.apply(
        [seed],
        settings=settings,
        reading=linksync.Reading(mapping={"Approver": "ignore"}),
        outputs=linksync.Outputs(journal=False),
    )


async def test_a_plan_over_a_safety_limit_needs_confirming(
    client: httpx.AsyncClient, state: UiState, workspace_of_20: None
) -> None:
    upload_id = await upload(client, "keep.csv", csv_bytes(5))
    unscoped = await step(client, "/api/plan", {"mode": "mirror"})
    assert unscoped.status_code == 400 and "explicit scope" in unscoped.json()["error"]
    mirror = {"mode": "mirror", "scope": "lnk.test"}
    answer = await step(client, "/api/plan", mirror)
    assert answer.status_code == 200, answer.text
    shown = answer.json()["data"]
    assert shown["counts"]["delete"] == 15 and shown["refused"]
    assert "Apply refuses this plan unless you confirm it" in answer.json()["html"]["plan"]
    refused = await step(client, "/api/apply", {"plan_id": shown["plan_id"]})
    assert refused.status_code == 409 and "safety limit" in refused.json()["error"]

    await client.delete(f"/api/uploads/{upload_id}")
    await upload(client, "keep.csv", csv_bytes(5))
    changed = await step(client, "/api/apply", {"plan_id": shown["plan_id"], "force": True})
    assert changed.status_code == 409 and "files changed" in changed.json()["error"]

    again = (await step(client, "/api/plan", mirror)).json()["data"]
    forced = await step(client, "/api/apply", {"plan_id": again["plan_id"], "force": True})
    assert forced.status_code == 202
    run = state.runs.get(forced.json()["run_id"])
    assert run is not None
    eventually(lambda: run.record.state.over, timeout=30)
    assert run.record.summary is not None and run.record.summary.startswith(
        "15 deleted, 5 unchanged"
    )


async def test_steps_need_files_and_the_token(client: httpx.AsyncClient, state: UiState) -> None:
    answer = await step(client, "/api/check", {})
    assert answer.status_code == 409 and "drop or choose a file first" in answer.json()["error"]
    bad = await client.post("/api/plan", content=b"[1, 2]")
    assert bad.status_code == 400
    from ui_support import page_client

    async with page_client(state, token=None) as anonymous:
        assert (await anonymous.post("/api/check", json={})).status_code == 403


def test_every_fix_names_a_constant_of_the_error_table() -> None:
    assert set(ADVICE) <= set(ERRORS)
    assert fix_for("NOT_A_CONSTANT") == "" and fix_for(None) == ""
    assert fix_for("NOT_FOUND") == ADVICE["NOT_FOUND"]
    assert visible("a\u200bb\u00a0c\td") == "a[U+200B]b[U+00A0]c[U+0009]d"
