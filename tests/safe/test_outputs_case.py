"""Two outputs of one run whose paths differ only in letter case (``--report r.csv
--report R.csv``, two targets ``Brand-A`` and ``brand-a`` of one ``{target}`` pattern)
are one file on the disks most people's laptops have (macOS, Windows): the second
report replaced the first in silence. They are refused before anything is sent,
naming both, as two outputs on one path are."""

from __future__ import annotations

from pathlib import Path

from support.cli_runs import Source, remote_links, run


def test_outputs_differing_only_in_case_are_refused(workdir: Path, source: Source) -> None:
    result = run("apply", "links.csv", "--yes", "--report", "out/r.csv", "--report", "out/R.CSV")
    assert result.exit_code == 2, result.output
    assert "--report out/R.CSV and --report out/r.csv differ only in letter case" in result.output
    assert "nothing was done" in result.output
    assert not (workdir / "out").exists()
    assert remote_links(workdir) == []
    assert source.untouched()


def test_a_report_and_a_journal_of_one_name_in_two_cases(workdir: Path, source: Source) -> None:
    result = run("apply", "links.csv", "--yes", "--report", "run.jsonl", "--journal", "RUN.jsonl")
    assert result.exit_code == 2, result.output
    assert "differ only in letter case" in result.output
    assert source.untouched()


def test_outputs_with_names_of_their_own_still_run(workdir: Path, source: Source) -> None:
    result = run("apply", "links.csv", "--yes", "--report", "r.csv", "--report", "r2.CSV")
    assert result.exit_code == 0, result.output
    assert (workdir / "r.csv").is_file() and (workdir / "r2.CSV").is_file()
