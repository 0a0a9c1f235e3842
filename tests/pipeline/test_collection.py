"""While a run goes, Python's collector runs less often; afterwards the process's
thresholds are what they were, also when runs overlap (``apply_all``)."""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

import linksync
from linksync.model import Problem
from linksync.pipeline import RunEvents
from linksync.pipeline.collector import YOUNG_THRESHOLD, fewer_collections
from support.two_workspaces import good_env, make_two, settings_of


@pytest.fixture(autouse=True)
def thresholds() -> Iterator[tuple[int, int, int]]:
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield gc.get_threshold()
    gc.set_threshold(*before)


def test_overlapping_runs_put_back_what_the_first_found() -> None:
    first, second = fewer_collections(), fewer_collections()
    first.__enter__()
    assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)
    second.__enter__()
    first.__exit__(None, None, None)  # the first ends while the second still runs
    assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)
    second.__exit__(None, None, None)
    assert gc.get_threshold() == (700, 10, 10)


def test_a_failed_run_puts_them_back_and_collection_turned_off_stays_off() -> None:
    with pytest.raises(RuntimeError), fewer_collections():
        raise RuntimeError("boom")
    assert gc.get_threshold() == (700, 10, 10)
    gc.set_threshold(0, 10, 10)
    with fewer_collections():
        assert gc.get_threshold() == (0, 10, 10)
    assert gc.get_threshold() == (0, 10, 10)


def test_runs_of_two_workspaces_side_by_side_leave_the_process_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    config = make_two(tmp_path)
    seen: list[tuple[int, int, int]] = []

    class Events(RunEvents):
        def problems(self, problems: Sequence[Problem]) -> None:
            seen.append(gc.get_threshold())

    planned = linksync.plan(
        ["links/a.csv"],
        settings=settings_of(config, "brand-a"),
        hooks=linksync.Hooks(events=Events()),
    )
    assert planned.counts["create"] == 3 and seen == [(YOUNG_THRESHOLD, 10, 10)]
    assert gc.get_threshold() == (700, 10, 10)
    done = linksync.apply_all(config=config, env=good_env())
    assert done.exit_code == 0 and done.wrote
    assert gc.get_threshold() == (700, 10, 10)
