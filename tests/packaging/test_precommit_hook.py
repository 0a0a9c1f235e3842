"""The pre-commit hook (.pre-commit-hooks.yaml): its entry run as pre-commit runs it,
on the files its pattern selects, offline and without a key."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def hook() -> dict[str, Any]:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    (found,) = [h for h in hooks if h["id"] == "linksync-validate"]
    return dict(found)


def selected(hook: dict[str, Any], paths: list[str]) -> list[str]:
    """The paths pre-commit passes to the hook (its ``files`` pattern, re.search)."""
    return [p for p in paths if re.search(hook["files"], p)]


def run_entry(
    hook: dict[str, Any], files: list[str], cwd: Path
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LINKSYNC_")}
    env["PATH"] = os.pathsep.join([str(BIN), env.get("PATH", "")])
    # an unreachable target: the hook must not need one
    env["LINKSYNC_BASE_URL"] = "http://127.0.0.1:9"
    cmd = [*shlex.split(hook["entry"]), *hook.get("args", []), *files]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)


def test_hook_declaration(hook: dict[str, Any]) -> None:
    assert hook["language"] == "python" and hook["pass_filenames"] is True
    assert shlex.split(hook["entry"]) == ["linksync", "validate"]
    pick = selected(
        hook,
        [
            "links/a.yaml",
            "site/links/b.yml",
            "links/sheet.xlsx",
            "links/c.csv",
            "links/README.md",
            ".github/workflows/ci.yml",
            "configs/linksync.example.yaml",
            "samples/campaign.csv",
        ],
    )
    assert pick == ["links/a.yaml", "site/links/b.yml", "links/sheet.xlsx", "links/c.csv"]


def test_entry_passes_on_the_sample_link_files(hook: dict[str, Any]) -> None:
    tracked = [str(p.relative_to(ROOT)) for p in (ROOT / "samples").rglob("*") if p.is_file()]
    files = selected(hook, tracked)
    assert sorted(files) == [
        "samples/ci/links/campaigns.yaml",
        "samples/links/docs.yaml",
        "samples/links/product.yaml",
        "samples/links/team/events.yml",
    ]
    result = run_entry(hook, files, ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "4 sheet(s)/file(s), 13 row(s): 13 valid, 0 invalid" in result.stdout


def test_entry_fails_a_commit_with_bad_rows_and_names_them(
    hook: dict[str, Any], tmp_path: Path
) -> None:
    (tmp_path / "links").mkdir()
    shutil.copy(ROOT / "samples" / "campaign.csv", tmp_path / "links" / "campaign.csv")
    shutil.copy(ROOT / "samples" / "campaign.xlsx", tmp_path / "links" / "campaign.xlsx")
    (tmp_path / "links" / "ok.yaml").write_text("links:\n  fine: https://example.com/fine\n")
    files = selected(hook, ["links/campaign.csv", "links/campaign.xlsx", "links/ok.yaml"])
    assert len(files) == 3
    result = run_entry(hook, files, tmp_path)
    assert result.returncode == 1
    assert 'RESERVED_SLUG: links/campaign.csv, row 11, column "Back-half"' in result.stdout
    assert "links/campaign.xlsx, sheet " in result.stdout
    assert "links/ok.yaml" in result.stdout  # checked too, and fine


def test_entry_reads_only_the_files_it_is_given(hook: dict[str, Any], tmp_path: Path) -> None:
    """pre-commit passes the staged files: a broken file beside them, not staged, is not
    the commit's business (and not read: the hook stays fast in a big repository)."""
    (tmp_path / "links").mkdir()
    (tmp_path / "links" / "staged.yaml").write_text("links:\n  fine: https://example.com/f\n")
    (tmp_path / "links" / "broken.yaml").write_text("links:\n  bad: [\n")
    (tmp_path / "links" / "sheet.csv").write_text("slug,url\nadmin,https://example.com\n")
    result = run_entry(hook, ["links/staged.yaml"], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 sheet(s)/file(s), 1 row(s): 1 valid, 0 invalid" in result.stdout
    assert "broken" not in result.stdout + result.stderr
    assert "sheet.csv" not in result.stdout + result.stderr
