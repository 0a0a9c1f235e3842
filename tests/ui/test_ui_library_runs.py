"""The page's Apply (``PageApply``: ``linksync.apply`` of the plan shown, as a run of
the page) in-process: the page's feed follows the rows, the page's cancel stops it from
the server's thread (no new requests, the report kept), the uploads are files the run
reads, and the page applies exactly the plan it showed."""

from __future__ import annotations

from pathlib import Path

import pytest
from ui_support import eventually

import linksync
from linksync.config import Settings, resolve
from linksync.errors import ConfigError
from linksync.ui import RunRegistry, RunState, Upload
from linksync.ui.apply_run import PageApply
from linksync.ui.choices import Choices
from linksync.ui.steps import PageFiles, make_plan


def page_apply(settings: Settings, paths: list[Path], tmp_path: Path) -> PageApply:
    """The run the Apply button starts for ``paths`` as uploads, after Show the plan."""
    uploads = tuple(
        Upload(f"u{i}", p.name, p, p.stat().st_size, "CSV file", "") for i, p in enumerate(paths)
    )
    files = PageFiles(uploads)
    shown = make_plan(files, Choices(qr=False), settings)
    return PageApply(settings, files, shown, tmp_path / "journals")


def uploads(tmp_path: Path, rows: int) -> list[Path]:
    folder = tmp_path / "uploads"
    folder.mkdir()
    campaign = folder / "campaign.csv"
    lines = ["slug,url"] + [f"s{i},https://example.com/{i}" for i in range(rows)]
    campaign.write_text("\n".join(lines) + "\n", encoding="utf-8")
    other = folder / "other.csv"
    other.write_text("slug,url\nx,https://example.com/x\n", encoding="utf-8")
    return [campaign, other]


@pytest.fixture
def slow_sandbox(tmp_path: Path) -> Settings:
    (tmp_path / "edge.yaml").write_text("faults:\n  latency_ms: [15, 15]\n", encoding="utf-8")
    (tmp_path / "linksync.yaml").write_text(
        "sandbox_config: edge.yaml\nconcurrency: 1\n", encoding="utf-8"
    )
    return resolve(cwd=tmp_path, env={}, sandbox=True)


def test_cancel_from_the_page_stops_sending_and_keeps_the_report(
    slow_sandbox: Settings, tmp_path: Path
) -> None:
    files = uploads(tmp_path, 40)
    registry = RunRegistry(tmp_path / "runs")
    run = registry.start(page_apply(slow_sandbox, files[:1], tmp_path))
    eventually(lambda: run.feed.done >= 3, timeout=30)
    assert registry.cancel(run.record.run_id)  # the server's thread, not the run's
    eventually(lambda: run.record.state.over, timeout=30)
    record = run.record
    assert record.state is RunState.CANCELLED and record.exit_code == 130
    assert record.progress is not None and record.progress.not_attempted > 0
    assert record.progress.done + record.progress.not_attempted == 40
    report = (run.folder / "results.csv").read_text(encoding="utf-8-sig").splitlines()
    assert len(report) == 41  # every row, the ones never sent as NOT_ATTEMPTED
    assert sum("NOT_ATTEMPTED" in line for line in report) == record.progress.not_attempted
    assert record.summary is not None and record.summary.startswith(
        f"{record.progress.done} created, {record.progress.not_attempted} not attempted."
    )


def test_the_page_applies_the_plan_it_showed_and_never_writes_an_upload(
    settings: Settings, tmp_path: Path
) -> None:
    files = uploads(tmp_path, 3)
    planned = linksync.plan(files[:1], settings=settings)  # the page shows this plan
    assert planned.counts["create"] == 3
    with pytest.raises(ConfigError, match=r"other\.csv"):  # an upload: a file the run reads
        linksync.apply(
            files[:1],
            plan=planned.plan,
            settings=settings,
            outputs=linksync.Outputs(reports=[files[1]], reads=files),
        )
    registry = RunRegistry(tmp_path / "runs")
    source = page_apply(settings, files[:1], tmp_path)
    assert source.shown.planned.counts["create"] == 3
    before = files[0].read_bytes()
    run = registry.start(source)
    eventually(lambda: run.record.state.over, timeout=30)
    assert run.record.state is RunState.FINISHED, run.record.error
    assert run.record.summary == "3 created. Exit code 0: all rows fine."
    assert (
        run.record.files[0] == "campaign-annotated.csv" and "qr-codes.zip" not in run.record.files
    )
    assert files[0].read_bytes() == before
    assert run.record.progress is not None and run.record.progress.done == 3
    assert not linksync.plan(files[:1], settings=settings).has_changes


def test_two_uploads_whose_names_differ_in_case_get_two_annotated_copies(
    settings: Settings, tmp_path: Path
) -> None:
    """``Links.csv`` and ``links.csv`` (from two folders) get copies whose names differ
    beyond case: on macOS and Windows one name would be one file, the second copy
    written over the first while the page offered both."""
    paths = []
    for folder, name, slug in (
        ("march", "Links.csv", "march-a"),
        ("april", "links.csv", "april-a"),
    ):
        path = tmp_path / folder / name
        path.parent.mkdir()
        path.write_text(f"slug,url\n{slug},https://shop.example.com/{slug}\n", encoding="utf-8")
        paths.append(path)
    registry = RunRegistry(tmp_path / "runs")
    run = registry.start(page_apply(settings, paths, tmp_path))
    eventually(lambda: run.record.state.over, timeout=30)
    assert run.record.state is RunState.FINISHED, run.record.error
    copies = [f for f in run.record.files if "-annotated" in f]
    assert copies == ["Links-annotated.csv", "links-annotated-2.csv"]
    march, april = ((run.folder / c).read_text(encoding="utf-8-sig") for c in copies)
    assert "march-a" in march and "april-a" not in march
    assert "april-a" in april and "march-a" not in april
