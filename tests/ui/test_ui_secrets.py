"""The page plans a YAML file whose password is read from a variable
(``password: {env: VIP_PASSWORD}``) as the command line does: the plan it shows says
where the password comes from, and neither the plan nor any file of the run holds it."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from test_ui_steps import step, upload
from ui_support import eventually

from linksync.ui import RunState, UiState

SECRET = "page-Secret-2026"
LINKS = b"""\
defaults: {domain: lnk.test}
links:
  vip: {url: 'https://example.com/vip', password: {env: VIP_PASSWORD}}
"""


async def test_the_page_says_where_a_password_comes_from_and_writes_it_nowhere(
    client: httpx.AsyncClient, state: UiState, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VIP_PASSWORD", SECRET)
    await upload(client, "links.yaml", LINKS)
    answer = await step(client, "/api/plan", {})
    assert answer.status_code == 200, answer.text
    shown = answer.json()["data"]
    (row,) = shown["rows"]
    assert "password: (set from env VIP_PASSWORD)" in row["fields"]
    assert SECRET not in answer.text

    started = await step(client, "/api/apply", {"plan_id": shown["plan_id"]})
    run = state.runs.get(started.json()["run_id"])
    assert run is not None
    eventually(lambda: run.record.state.over, timeout=30)
    assert run.record.state is RunState.FINISHED, run.record.error
    written = [p for p in Path(run.folder).rglob("*") if p.is_file()]
    written += [p for p in Path(state.journals).rglob("*") if p.is_file()]
    assert any(p.suffix == ".md" for p in written)
    for path in written:
        assert SECRET.encode() not in path.read_bytes(), path
