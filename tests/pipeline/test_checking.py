"""``linksync.pipeline.checking.check``: the web page's Check step in one call, read
as a run reads (the profile's options under the ones given), nothing sent."""

from __future__ import annotations

from pathlib import Path

import pytest

from linksync.config import Settings, resolve
from linksync.errors import SourceError
from linksync.model import Severity
from linksync.pipeline.checking import check
from linksync.pipeline.request import Reading
from linksync.sources.preview import How

CSV = (
    "Landing page,Key,Approver\n"
    "https://example.com/a,a,Ana\n"
    "https://exa\u200bmple.com/b,b,Bo\n"
    "https://example.com/c,a,Cy\n"
)


def _settings(tmp_path: Path, config: str = "") -> Settings:
    if config:
        (tmp_path / "linksync.yaml").write_text(config, "utf-8")
    return resolve(cwd=tmp_path, env={}, sandbox=True)


def _links(tmp_path: Path) -> Path:
    path = tmp_path / "links.csv"
    path.write_text(CSV, "utf-8")
    return path


def test_problems_come_with_their_cells_and_the_counts(tmp_path: Path) -> None:
    path = _links(tmp_path)
    checked = check([path], _settings(tmp_path), default_domain="go.example.com")
    found = {(f.problem.provenance.row, f.problem.constant): f.value for f in checked.problems}
    assert found[(3, "INVALID_URL")] == "https://exa\u200bmple.com/b"  # as read, unfixed
    assert (4, "DUPLICATE_IN_SOURCE") in found
    assert checked.counts == {"rows": 3, "valid": 1, "invalid": 2, "errors": 2, "warnings": 1}
    (sheet,) = checked.sheets
    assert sheet.source == str(path) == checked.problems[0].problem.provenance.source
    assert [c.how for c in sheet.columns] == [How.ALIAS, How.ALIAS, How.UNMAPPED]


def test_the_page_reading_over_the_profile_columns(tmp_path: Path) -> None:
    settings = _settings(tmp_path, "columns:\n  Approver: tags\n")
    fixed = check(
        [_links(tmp_path)],
        settings,
        Reading(mapping={"Key": "description"}, fix_invisible=True),
        default_domain="go.example.com",
    )
    columns = {c.header: (c.field, c.how) for c in fixed.sheets[0].columns}
    assert columns == {
        "Landing page": ("url", How.ALIAS),
        "Key": ("description", How.CHOSEN),
        "Approver": ("tags", How.CHOSEN),
    }
    (url,) = [f for f in fixed.problems if f.problem.constant == "INVALID_URL"]
    assert url.problem.severity is Severity.WARNING  # the invisible character removed, said
    assert url.value == "https://example.com/b"  # the cell as the run reads it


def _duplicate(settings: Settings, path: Path, domain: str | None = None) -> str:
    (found,) = [
        f.problem.message
        for f in check([path], settings, default_domain=domain).problems
        if f.problem.constant == "DUPLICATE_IN_SOURCE"
    ]
    return found


def test_the_given_default_domain_over_the_profile_one(tmp_path: Path) -> None:
    path = _links(tmp_path)
    bare = tmp_path / "bare"
    bare.mkdir()
    assert _duplicate(_settings(bare), path).startswith("(default domain)/a ")
    profile = _settings(tmp_path, "default_domain: go.example.com\n")
    assert _duplicate(profile, path).startswith("go.example.com/a ")
    assert _duplicate(profile, path, "to.example.org").startswith("to.example.org/a ")


def test_a_file_that_cannot_be_read_raises_as_a_run_does(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no such file"):
        check([tmp_path / "missing.csv"], _settings(tmp_path))
