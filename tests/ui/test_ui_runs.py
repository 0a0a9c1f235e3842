"""Runs of the page: progress (with the rate-limit wait), cancel, files, the event
stream, and a record that outlives the tab and the server."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import httpx
import pytest
from ui_support import ScriptedRun, eventually, failed_row, ok_row

from linksync.ui import RunBusy, RunFeed, RunOutcome, RunRegistry, RunState, UiState
from linksync.ui.runs import Run, RunRecord


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_feed_counts_rate_eta_and_the_rate_limit_wait() -> None:
    clock = Clock()
    feed = RunFeed(clock=clock)
    assert feed.snapshot().done == 0 and feed.snapshot().rate is None
    wait = [0.0]  # what the client's rate limiter says: seconds still to wait
    feed.start(10, lambda: wait[0])
    clock.now += 2
    for n in range(3):
        feed.advance(ok_row(n))
    feed.advance(failed_row(9))
    snap = feed.snapshot()
    assert (snap.done, snap.total, snap.failed, snap.state) == (4, 10, 1, RunState.RUNNING)
    assert snap.rate == pytest.approx(2.0) and snap.eta_s == pytest.approx(3.0)
    wait[0] = 4.5
    waiting = feed.snapshot()
    assert waiting.state is RunState.WAITING and waiting.wait_s == 4.5
    assert feed.snapshot(RunState.CANCELLING).state is RunState.CANCELLING
    assert feed.snapshot(RunState.FINISHED).wait_s == 0.0
    wait[0] = 0.0
    assert feed.snapshot().state is RunState.RUNNING


def test_a_run_goes_in_the_background_and_is_kept_on_disk(tmp_path: Path) -> None:
    registry = RunRegistry(tmp_path / "runs")
    assert registry.latest() is None
    script = ScriptedRun(total=3)
    run = registry.start(script)
    with pytest.raises(RunBusy, match="still going"):
        registry.start(ScriptedRun())
    script.send("row")
    script.send("fail")
    eventually(lambda: run.current().progress.done == 2)  # type: ignore[union-attr]
    script.send("end")
    eventually(lambda: run.record.state.over)
    record = registry.latest().record  # type: ignore[union-attr]
    assert record.state is RunState.FINISHED and record.summary == "2 rows applied"
    assert record.files == ("results.csv",) and record.exit_code == 0
    assert record.progress is not None and record.progress.failed == 1
    assert registry.file_path(record.run_id, "results.csv") == run.folder / "results.csv"
    for name in ("run.json", "../run.json", "nope.csv", "/etc/passwd"):
        assert registry.file_path(record.run_id, name) is None
    # A new server on the same folder shows the same last run.
    again = RunRegistry(tmp_path / "runs")
    assert again.latest().record.to_dict() == record.to_dict()  # type: ignore[union-attr]


class SlowDisk(RunRegistry):
    """A registry whose disk takes its time with a run's last record: the save of an
    ended run waits until the test lets it go, while the test looks at what a page
    would see meanwhile."""

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self.writing_last = threading.Event()
        self.go_on = threading.Event()

    def _write(self, run: Run, record: RunRecord) -> None:
        if record.state.over:
            self.writing_last.set()
            assert self.go_on.wait(10)
        super()._write(run, record)


def test_a_run_is_over_for_a_reader_only_once_its_record_is_saved(tmp_path: Path) -> None:
    registry = SlowDisk(tmp_path / "runs")
    script = ScriptedRun(total=1)
    run = registry.start(script)
    script.send("row")
    script.send("end")
    assert registry.writing_last.wait(10)
    # The last record is on its way to disk: every reader still sees the run going.
    seen = registry.latest()
    assert seen is not None and not seen.current().state.over and not run.ended.is_set()
    on_disk = json.loads((run.folder / "run.json").read_text(encoding="utf-8"))
    assert on_disk["state"] == "running"
    registry.go_on.set()
    eventually(lambda: run.record.state.over)
    on_disk = json.loads((run.folder / "run.json").read_text(encoding="utf-8"))
    assert on_disk["state"] == "finished" and on_disk["summary"] == run.record.summary
    again = RunRegistry(tmp_path / "runs").latest()
    assert again is not None and again.record.to_dict() == run.record.to_dict()


def test_cancel_stops_the_run_and_keeps_its_files(tmp_path: Path) -> None:
    registry = RunRegistry(tmp_path / "runs")
    script = ScriptedRun()
    run = registry.start(script)
    script.send("row")
    eventually(lambda: run.feed.done == 1)
    assert registry.cancel(run.record.run_id)
    eventually(lambda: run.record.state.over)
    assert run.record.state is RunState.CANCELLED
    assert run.record.summary == "cancelled after 1 rows" and run.record.files == ("results.csv",)
    assert not registry.cancel(run.record.run_id)  # over: nothing to cancel


def test_a_run_that_breaks_is_shown_failed_with_why(tmp_path: Path) -> None:
    registry = RunRegistry(tmp_path / "runs")
    script = ScriptedRun()
    run = registry.start(script)
    script.send("boom")
    eventually(lambda: run.record.state.over)
    assert run.record.state is RunState.FAILED
    assert run.record.error == "RuntimeError: the test run broke"


class ListsAFileItDidNotWrite:
    kind = "apply"

    def run(self, feed: RunFeed, cancel: threading.Event, folder: Path) -> RunOutcome:
        return RunOutcome("done", 0, ("../../secret.txt",))


def test_a_run_cannot_offer_a_file_outside_its_folder(tmp_path: Path) -> None:
    registry = RunRegistry(tmp_path / "runs")
    run = registry.start(ListsAFileItDidNotWrite())
    eventually(lambda: run.record.state.over)
    assert run.record.state is RunState.FAILED and run.record.files == ()


def test_a_run_cut_short_by_the_server_end_is_shown_interrupted(tmp_path: Path) -> None:
    registry = RunRegistry(tmp_path / "runs")
    script = ScriptedRun()
    run = registry.start(script)
    script.send("row")
    eventually(lambda: run.feed.done == 1)
    # What a killed server leaves: the record as the periodic save wrote it.
    registry._save(run)
    reopened = RunRegistry(tmp_path / "runs")
    record = reopened.latest().record  # type: ignore[union-attr]
    assert record.state is RunState.INTERRUPTED
    assert record.progress is not None and record.progress.done == 1
    saved = json.loads((run.folder / "run.json").read_text())
    assert saved["state"] == "interrupted"
    registry.close(timeout=5)
    assert run.record.state is RunState.CANCELLED  # the server's own end cancels it


def _events(text: str) -> list[tuple[str, dict[str, object]]]:
    out = []
    for block in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        out.append((lines["event"], json.loads(lines["data"])))
    return out


async def test_progress_as_server_sent_events_then_the_end(
    client: httpx.AsyncClient, state: UiState
) -> None:
    assert (await client.get("/api/runs/latest")).status_code == 404
    script = ScriptedRun(total=2)
    run = state.runs.start(script)
    script.send("row")
    script.send("wait", 3.0)
    script.send("row")
    eventually(lambda: run.feed.done == 2)
    threading.Timer(0.6, script.send, args=("end",)).start()
    answer = await client.get(f"/api/runs/{run.record.run_id}/events")
    assert answer.headers["content-type"].startswith("text/event-stream")
    events = _events(answer.text)
    assert events[0][0] == "progress" and events[0][1]["state"] == "waiting"
    assert events[0][1]["progress"]["wait_s"] == 3.0  # type: ignore[index]
    name, last = events[-1]
    assert name == "end" and last["state"] == "finished" and last["files"] == ["results.csv"]
    latest = (await client.get("/api/runs/latest")).json()
    assert latest["run_id"] == run.record.run_id and latest["summary"] == "2 rows applied"
    download = await client.get(f"/runs/{run.record.run_id}/files/results.csv")
    assert download.status_code == 200 and download.text == "rows\n2\n"
    assert download.headers["content-disposition"].startswith("attachment")
    missing = await client.get(f"/runs/{run.record.run_id}/files/run.json")
    assert missing.status_code == 404


async def test_cancel_through_the_api_needs_a_going_run(
    client: httpx.AsyncClient, state: UiState
) -> None:
    script = ScriptedRun()
    run = state.runs.start(script)
    answer = await client.post(f"/api/runs/{run.record.run_id}/cancel")
    assert answer.status_code == 202 and answer.json()["state"] == "cancelling"
    eventually(lambda: run.record.state.over)
    again = await client.post(f"/api/runs/{run.record.run_id}/cancel")
    assert again.status_code == 409
    assert (await client.get("/api/runs/nope/events")).status_code == 404
