"""What the CLI imports: ``linksync --help`` loads no command module, ``plan --help`` no
pandas, a plan of a YAML file no spreadsheet reader; the summaries ``--help`` lists
(from a table, without importing the commands) are the commands' own. Each case runs
in a fresh interpreter and reads its sys.modules at exit."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from linksync.cli import COMMANDS, cli
from support.imports import modules_after

HEAVY = ("pandas", "numpy", "python_calamine", "openpyxl", "xlsxwriter")


def test_help_imports_no_command_module(tmp_path: Path) -> None:
    modules, proc = modules_after(tmp_path, "--help")
    assert proc.returncode == 0 and "Commands:" in proc.stdout
    assert all(name in proc.stdout for name in COMMANDS)
    command_modules = {lazy.target.split(":")[0] for lazy in COMMANDS.values()}
    assert not modules & command_modules
    assert not modules & set(HEAVY)


@pytest.mark.parametrize("command", ["plan", "apply"])
def test_plan_and_apply_help_do_not_import_pandas(tmp_path: Path, command: str) -> None:
    modules, proc = modules_after(tmp_path, command, "--help")
    assert proc.returncode == 0 and "--mode" in proc.stdout
    assert f"Usage: linksync {command}" in proc.stdout
    assert not modules & set(HEAVY)


def test_plan_of_a_yaml_file_does_not_import_pandas(tmp_path: Path) -> None:
    """The spreadsheet readers (pandas, calamine) load only when a spreadsheet is read.
    numpy stays: the links are held as columns and validated over them, the one
    validation for every source."""
    (tmp_path / "links.yaml").write_text(
        "links:\n  - slug: spring\n    url: https://example.com/spring\n", encoding="utf-8"
    )
    modules, proc = modules_after(tmp_path, "plan", "links.yaml", "--sandbox")
    assert proc.returncode == 0, proc.stderr
    assert "spring" in proc.stdout
    assert not modules & (set(HEAVY) - {"numpy"})


def test_help_summaries_are_the_commands_own() -> None:
    ctx = click.Context(cli)
    for name, lazy in COMMANDS.items():
        command = cli.get_command(ctx, name)
        assert command is not None
        assert command.get_short_help_str(10_000) == lazy.summary, name
