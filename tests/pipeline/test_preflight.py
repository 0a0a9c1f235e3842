"""Every output path of a run is checked before the first request: each hostile path
below is a usage error (exit 2) naming the problem, the source stays byte-for-byte the
same file (same inode), nothing is created in the workspace, and no output appears."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from support.cli_runs import Source, remote_links, run

pytestmark = pytest.mark.usefixtures("_umask")  # umask 022 for the files runs create

Setup = Callable[[Path], tuple[list[str], str]]
APPLY = ["apply", "links.csv", "--yes", "--no-progress"]


def _report_is_source(w: Path) -> tuple[list[str], str]:
    return [*APPLY, "--report", "links.csv"], "--report links.csv would replace the source"


def _report_is_source_by_another_name(w: Path) -> tuple[list[str], str]:
    (w / "sub").mkdir()
    return [*APPLY, "--report", "sub/../links.csv"], "would replace the source links.csv"


def _report_is_symlink_to_source(w: Path) -> tuple[list[str], str]:
    (w / "alias.csv").symlink_to(w / "links.csv")
    return [*APPLY, "--report", "alias.csv"], "alias.csv is a symbolic link to the source"


def _report_is_hard_link_to_source(w: Path) -> tuple[list[str], str]:
    os.link(w / "links.csv", w / "hard.csv")
    return [*APPLY, "--report", "hard.csv"], "hard.csv is a hard link to the source links.csv"


def _lock_is_source(w: Path) -> tuple[list[str], str]:
    return [*APPLY, "--lock", "links.csv"], "--lock links.csv would replace the source"


def _journal_is_source(w: Path) -> tuple[list[str], str]:
    return [*APPLY, "--journal", "links.csv"], "--journal links.csv would replace the source"


def _journal_is_foreign_jsonl(w: Path) -> tuple[list[str], str]:
    (w / "data.jsonl").write_text('{"customer": 1}\n', encoding="utf-8")
    return [*APPLY, "--journal", "data.jsonl"], "data.jsonl exists and is not a linksync journal"


def _lock_is_symlink(w: Path) -> tuple[list[str], str]:
    (w / "elsewhere.lock").write_text("", encoding="utf-8")
    (w / "run.lock").symlink_to(w / "elsewhere.lock")
    return [*APPLY, "--lock", "run.lock"], "--lock run.lock is a symbolic link"


def _annotate_xlsx_of_csv(w: Path) -> tuple[list[str], str]:
    return [*APPLY, "--annotate", "a.xlsx"], "a.xlsx: use a file name ending in .csv"


def _annotate_onto_input(w: Path) -> tuple[list[str], str]:
    return [*APPLY, "--annotate", "links.csv"], "links.csv would replace the source links.csv"


def _annotate_twice_one_source(w: Path) -> tuple[list[str], str]:
    args = [*APPLY, "--annotate", "a.csv", "--annotate", "b.csv"]
    return args, "--annotate given 2 times, but the run has 1 spreadsheet source"


def _report_unknown_extension(w: Path) -> tuple[list[str], str]:
    return [*APPLY, "--report", "out.txt"], "out.txt: use a file name ending in .csv or .xlsx"


def _report_under_a_file(w: Path) -> tuple[list[str], str]:
    (w / "blocker").write_text("x", encoding="utf-8")
    return [*APPLY, "--report", "blocker/deep/r.csv"], "blocker is a file, not a folder"


def _report_where_nothing_can_be_written(w: Path) -> tuple[list[str], str]:
    return [*APPLY, "--report", "/proc/linksync-report.csv"], "cannot write in /proc"


def _report_read_only(w: Path) -> tuple[list[str], str]:
    (w / "ro.csv").write_text("kept\n", encoding="utf-8")
    (w / "ro.csv").chmod(0o444)
    return [*APPLY, "--report", "ro.csv"], "--report ro.csv is read-only; not replacing it"


def _report_is_a_folder(w: Path) -> tuple[list[str], str]:
    (w / "out").mkdir()
    return [*APPLY, "--report", "out.csv", "--report", "out"], "--report out is a folder"


def _two_reports_one_path(w: Path) -> tuple[list[str], str]:
    (w / "sub").mkdir()
    args = [*APPLY, "--report", "r.csv", "--report", "sub/../r.csv"]
    return args, "--report sub/../r.csv and --report r.csv are the same file"


def _report_and_journal_one_path(w: Path) -> tuple[list[str], str]:
    args = [*APPLY, "--report", "run.jsonl", "--journal", "run.jsonl"]
    return args, "--journal run.jsonl and --report run.jsonl are the same file"


def _lock_is_a_folder(w: Path) -> tuple[list[str], str]:
    (w / "locks").mkdir()
    return [*APPLY, "--lock", "locks"], "--lock locks is a folder, not a file"


def _lock_in_source_folder(w: Path) -> tuple[list[str], str]:
    (w / "tree" / "team").mkdir(parents=True)
    (w / "tree" / "team" / "a.yaml").write_text("- {slug: t1, url: 'https://e.com/t'}\n")
    args = ["apply", "tree", "links.csv", "--yes", "--lock", "tree/team/a.yaml"]
    return args, "would replace the source tree/team/a.yaml"


def _report_is_the_config(w: Path) -> tuple[list[str], str]:
    (w / "linksync.yaml").write_text("default_domain: lnk.test\n", encoding="utf-8")
    (w / "cfg.json").symlink_to(w / "linksync.yaml")
    return [*APPLY, "--report", "cfg.json"], "is a symbolic link to the config file"


def _lock_is_the_sandbox_db(w: Path) -> tuple[list[str], str]:
    (w / ".linksync").mkdir()
    (w / ".linksync" / "sandbox.db").write_bytes(b"")
    return [*APPLY, "--lock", ".linksync/sandbox.db"], "would replace the sandbox database"


def _report_is_the_saved_plan(w: Path) -> tuple[list[str], str]:
    assert run("plan", "links.csv", "--out", "plan.json").exit_code == 0
    args = ["apply", "--plan", "plan.json", "--yes", "--report", "plan.json"]
    return args, "--report plan.json would replace the saved plan"


def _report_is_the_key_file(w: Path) -> tuple[list[str], str]:
    (w / "key.json").write_text("sandbox-full-access-key\n", encoding="utf-8")
    args = [*APPLY, "--api-key-file", "key.json", "--report", "key.json"]
    return args, "--report key.json would replace the API key file"


def _state_dir_is_a_file(w: Path) -> tuple[list[str], str]:
    (w / "state-file").write_text("", encoding="utf-8")
    os.environ["LINKSYNC_STATE_DIR"] = str(w / "state-file")
    return APPLY, "the run lock (move it with LINKSYNC_STATE_DIR or --lock FILE)"


def _journal_wrong_extension(w: Path) -> tuple[list[str], str]:
    return [*APPLY, "--journal", "run.log"], "--journal run.log: use a file name ending in .jsonl"


def _report_name_too_long(w: Path) -> tuple[list[str], str]:
    return [*APPLY, "--report", "r" * 300 + ".csv"], "File name too long"


CASES: list[Setup] = [
    _report_is_source,
    _report_is_source_by_another_name,
    _report_is_symlink_to_source,
    _report_is_hard_link_to_source,
    _lock_is_source,
    _journal_is_source,
    _journal_is_foreign_jsonl,
    _lock_is_symlink,
    _annotate_xlsx_of_csv,
    _annotate_onto_input,
    _annotate_twice_one_source,
    _report_unknown_extension,
    _report_under_a_file,
    _report_where_nothing_can_be_written,
    _report_read_only,
    _report_is_a_folder,
    _two_reports_one_path,
    _report_and_journal_one_path,
    _lock_is_a_folder,
    _lock_in_source_folder,
    _report_is_the_config,
    _lock_is_the_sandbox_db,
    _report_is_the_saved_plan,
    _report_is_the_key_file,
    _state_dir_is_a_file,
    _journal_wrong_extension,
    _report_name_too_long,
]


def _files(folder: Path) -> dict[str, bytes]:
    out = {}
    for p in sorted(folder.rglob("*")):
        rel = str(p.relative_to(folder))
        # The remote state (the sandbox's file) is checked through the client instead.
        if rel.startswith((".linksync/runs", ".linksync/sandbox.db", "state")):
            continue
        if p.is_file() and not p.is_symlink():
            out[rel] = p.read_bytes()
    return out


@pytest.mark.parametrize("setup", CASES, ids=[c.__name__.lstrip("_") for c in CASES])
def test_hostile_output_is_refused_before_any_request(
    setup: Setup, workdir: Path, source: Source, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LINKSYNC_STATE_DIR", os.environ["LINKSYNC_STATE_DIR"])
    args, expected = setup(workdir)
    before = _files(workdir)
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert "nothing was done" in result.stderr
    assert expected in result.stderr
    assert source.untouched()
    # Nothing was written anywhere: no file changed or appeared, no link was created.
    assert _files(workdir) == before
    assert not (workdir / ".linksync" / "runs").exists()
    assert remote_links(workdir) == []


def test_every_problem_is_named_at_once(workdir: Path, source: Source) -> None:
    result = run(*APPLY, "--report", "links.csv", "--report", "x.doc", "--journal", "links.csv")
    assert result.exit_code == 2
    lines = [ln.strip() for ln in result.stderr.splitlines() if ln.startswith("  ")]
    for expected in (
        "--report links.csv would replace the source links.csv",
        "--report x.doc: use a file name ending in .csv or .xlsx",
        "--journal links.csv: use a file name ending in .jsonl",
        "--journal links.csv would replace the source links.csv",
        "--journal links.csv and --report links.csv are the same file",
    ):
        assert any(line.startswith(expected) for line in lines), (expected, lines)
    assert source.untouched()
    assert remote_links(workdir) == []


def test_plan_out_onto_the_source_is_refused(workdir: Path, source: Source) -> None:
    result = run("plan", "links.csv", "--out", "links.csv")
    assert result.exit_code == 2
    assert "--out links.csv: use a file name ending in .json" in result.stderr
    assert "--out links.csv would replace the source links.csv" in result.stderr
    assert source.untouched()


def test_plan_out_is_written_atomically_over_a_link(workdir: Path, source: Source) -> None:
    (workdir / "keep.json").write_text("{}", encoding="utf-8")
    (workdir / "plan.json").symlink_to(workdir / "keep.json")
    result = run("plan", "links.csv", "--out", "plan.json")
    assert result.exit_code == 0, result.output
    # The link was replaced by the plan, never followed into keep.json.
    assert not (workdir / "plan.json").is_symlink()
    assert json.loads((workdir / "plan.json").read_text())["counts"]["create"] == 3
    assert (workdir / "keep.json").read_text() == "{}"
    assert [p.name for p in workdir.iterdir() if p.name.startswith(".plan")] == []
    assert source.untouched()


def test_a_link_at_the_journal_path_is_replaced_not_followed(workdir: Path, source: Source) -> None:
    (workdir / "elsewhere.jsonl").write_text("", encoding="utf-8")
    (workdir / "j.jsonl").symlink_to(workdir / "elsewhere.jsonl")
    result = run(*APPLY, "--journal", "j.jsonl")
    assert result.exit_code == 0, result.output
    assert not (workdir / "j.jsonl").is_symlink()
    assert '"event": "start"' in (workdir / "j.jsonl").read_text(encoding="utf-8")
    assert (workdir / "elsewhere.jsonl").read_text(encoding="utf-8") == ""
    assert source.untouched()


def test_outputs_that_can_be_written_are_written(workdir: Path, source: Source) -> None:
    (workdir / "old.csv").symlink_to(workdir / "links.csv")
    result = run(*APPLY, "--report", "out/deep/r.csv", "--annotate", "out/copy.csv")
    assert result.exit_code == 0, result.output
    assert (workdir / "out/deep/r.csv").read_bytes().startswith(b"\xef\xbb\xbf")
    assert "Short link" in (workdir / "out/copy.csv").read_text(encoding="utf-8")
    assert len(remote_links(workdir)) == 3
    assert source.untouched()
