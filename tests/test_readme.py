"""The README's Python section runs: every code block of it, in order, in one
namespace, in a fresh folder with the sample links (on the built-in sandbox), so a
name it shows cannot drift from the library."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from linksync.pipeline import Results

ROOT = Path(__file__).resolve().parents[1]


def python_section_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Python API\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)


def test_the_python_section_has_its_code_blocks() -> None:
    blocks = python_section_blocks()
    assert len(blocks) == 3 and "linksync.apply(" in blocks[0]


def test_the_python_section_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(ROOT / "samples" / "links", tmp_path / "links")
    monkeypatch.chdir(tmp_path)
    for name in ("LINKSYNC_BASE_URL", "LINKSYNC_API_KEY", "LINKSYNC_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    namespace: dict[str, object] = {"__name__": "readme"}
    for block in python_section_blocks():
        exec(compile(block, "README.md", "exec"), namespace)
    printed = capsys.readouterr().out
    assert "another run holds the lock" not in printed
    assert (tmp_path / "out" / "links-results.csv").is_file()
    assert (tmp_path / "out" / "links-results.xlsx").is_file()
    results = namespace["results"]
    assert isinstance(results, Results) and results.exit_code in (0, 1)


def test_the_documentation_list_names_each_doc_once() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Documentation\n", 1)[1].split("\n## ", 1)[0]
    entries = re.findall(r"^- `(docs/[^`]+\.md)`", section, flags=re.MULTILINE)
    assert sorted(entries) == sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))
    assert len(entries) == len(set(entries))


def test_the_first_links_file_plans_as_the_readme_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from linksync.cli import cli

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Your first links file\n", 1)[1].split("\n## ", 1)[0]
    (yaml_block,) = re.findall(r"```yaml\n(.*?)```", section, flags=re.DOTALL)
    (command,) = re.findall(r"```bash\n(.*?)\n```", section, flags=re.DOTALL)
    assert command == "linksync plan links.yaml"
    (tmp_path / "links.yaml").write_text(yaml_block, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for name in ("LINKSYNC_BASE_URL", "LINKSYNC_API_KEY", "LINKSYNC_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    # On a terminal the sandbox is the default; CliRunner is not one, so it asks for it.
    monkeypatch.setenv("LINKSYNC_SANDBOX", "1")
    planned = CliRunner().invoke(cli, command.split()[1:], catch_exceptions=False)
    assert planned.exit_code == 0, planned.output
    assert "2 create" in planned.output
    for link in ("lnk.test/spring-sale", "lnk.test/get-app"):
        assert link in planned.output and link in section
    applied = CliRunner().invoke(cli, ["apply", "links.yaml", "--yes"], catch_exceptions=False)
    assert applied.exit_code == 0, applied.output
