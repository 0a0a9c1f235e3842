"""The scheduler's story, from Python alone (no command line): two runs of
``linksync.apply`` at once on one target, the second refused by the run lock with
nothing left behind; reports written; the next run sends the rows that failed last
time first, and names them as repeats when they fail again."""

from __future__ import annotations

import csv
import threading
from pathlib import Path
from typing import Any

import pytest

import linksync
from linksync.config import Settings, resolve
from linksync.errors import LockError
from linksync.model import Status
from linksync.pipeline import Results, RunEvents
from linksync.sync.plan import Plan
from support.journals import read_journal

SLUGS = [f"row{i}" for i in range(10)]

CONFIG = """\
profiles:
  faulty:                  # an edge that fails a third of the requests; no retries of writes
    sandbox: true
    sandbox_db: sandbox.db
    sandbox_config: faulty-edge.yaml
    concurrency: 1
    retry: {server_error_retries: 1, backoff_base: 0.001, backoff_max: 0.001}
  calm:
    sandbox: true
    sandbox_db: sandbox.db
    concurrency: 1
"""

FAULTY_EDGE = "faults:\n  seed: 11\n  fail_500: 0.35\n"


def write_links(path: Path, description: str) -> None:
    with path.open("w", encoding="utf-8", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(["slug", "url", "description"])
        for slug in SLUGS:
            out.writerow([slug, f"https://example.com/{slug}", description])


def report_rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as fh:
        return list(csv.DictReader(fh))


class HoldTheLock(RunEvents):
    """Confirms its plan only once told to: the run holds the lock until then."""

    def __init__(self) -> None:
        self.holding = threading.Event()
        self.go_on = threading.Event()

    def confirm(self, plan: Plan) -> bool:
        self.holding.set()
        return self.go_on.wait(30)


@pytest.fixture
def targets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Settings, Settings]:
    monkeypatch.chdir(tmp_path)  # the journals go to .linksync/runs here
    (tmp_path / "linksync.yaml").write_text(CONFIG, encoding="utf-8")
    (tmp_path / "faulty-edge.yaml").write_text(FAULTY_EDGE, encoding="utf-8")
    write_links(tmp_path / "links.csv", "first")
    faulty, calm = resolve(profile="faulty"), resolve(profile="calm")
    assert faulty.target.label == calm.target.label  # one workspace, seen two ways
    return faulty, calm


def test_two_applies_at_once_then_the_failed_rows_first(
    targets: tuple[Settings, Settings], tmp_path: Path
) -> None:
    faulty, calm = targets
    holder = HoldTheLock()
    box: dict[str, Any] = {}

    def first_run() -> None:
        try:
            box["results"] = linksync.apply(
                ["links.csv"],
                settings=faulty,
                outputs=linksync.Outputs(reports=["first.csv"]),
                hooks=linksync.Hooks(events=holder),
            )
        except BaseException as exc:  # handed to the test's thread
            box["error"] = exc

    thread = threading.Thread(target=first_run)
    thread.start()
    try:
        assert holder.holding.wait(30), box.get("error")
        # A second run on the same target while the first holds the lock: refused at
        # once, nothing written, no report left behind.
        with pytest.raises(LockError, match="another linksync run holds the lock"):
            linksync.apply(
                ["links.csv"], settings=calm, outputs=linksync.Outputs(reports=["refused.csv"])
            )
        assert not (tmp_path / "refused.csv").exists()
    finally:
        holder.go_on.set()
        thread.join(60)
    assert "error" not in box, box.get("error")
    first: Results = box["results"]
    failed = [r.slug for r in first.failed]
    assert failed and all(r.error_constant == "INTERNAL_ERROR" for r in first.failed)
    assert failed != SLUGS[: len(failed)]  # not simply the first rows: the order shows
    assert first.exit_code == 1 and first.files == (Path("first.csv"),)
    rows = report_rows(tmp_path / "first.csv")
    assert [r["slug"] for r in rows] == SLUGS  # one report row per source row, in order
    assert [r["slug"] for r in rows if r["status"] == "failed"] == failed

    # The next scheduled run: every row changes (a new description), and the rows that
    # failed in the first run are sent before the others.
    write_links(tmp_path / "links.csv", "second")
    second = linksync.apply(
        ["links.csv"], settings=calm, outputs=linksync.Outputs(reports=["second.csv"])
    )
    assert second.exit_code == 0 and not second.failed and second.last_run_id == first.run_id
    assert second.journal is not None
    sent = [e["slug"] for e in read_journal(second.journal) if e["event"] == "request"]
    assert sent == failed + [s for s in SLUGS if s not in failed]
    assert [r["status"] for r in report_rows(tmp_path / "second.csv")] == ["ok"] * len(SLUGS)
    assert {r.status for r in second.rows} == {Status.OK}
