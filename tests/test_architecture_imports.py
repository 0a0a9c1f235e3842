"""The layers hold: an import goes down, never up, and no import circle anywhere.

The rules are the contracts of ``[tool.importlinter]`` in ``pyproject.toml`` (the
layers of ``docs/architecture.md``, no circle between siblings at any depth, the facade
for the front ends only, click and starlette where they belong); import-linter checks
them over every import, those made for type hints only included. Beside them: the
package root holds the facade only, every package stands in exactly one layer, each
package's docstring says what it may import, and the doc's table of layers is the
contract's."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "linksync"
CONTRACTS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
    "importlinter"
]["contracts"]
FACADE = {"__init__.py", "__main__.py", "_version.py"}


def _layers() -> list[list[str]]:
    """The layers contract, top to bottom, each layer as its packages."""
    [contract] = [c for c in CONTRACTS if c["id"] == "layers"]
    return [re.split(r"\s*[|:]\s*", layer.strip()) for layer in contract["layers"]]


def _packages() -> set[str]:
    return {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}


def test_import_contracts_are_kept(capsys: pytest.CaptureFixture[str]) -> None:
    code = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True)
    report = capsys.readouterr().out
    assert code == 0, report
    assert f"Contracts: {len(CONTRACTS)} kept, 0 broken." in report


def test_package_root_holds_the_facade_and_packages_only() -> None:
    loose = {p.name for p in PACKAGE.glob("*.py")} - FACADE
    assert loose == set()


def test_every_package_stands_in_one_layer() -> None:
    placed = [name for layer in _layers() for name in layer]
    assert sorted(placed) == sorted(_packages())


@pytest.mark.parametrize("package", sorted(_packages()))
def test_every_package_says_what_it_may_import(package: str) -> None:
    init = PACKAGE / package / "__init__.py"
    docstring = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
    assert "may import" in " ".join(docstring.split()), f"{init}: say what it may import"


def test_the_docs_table_of_layers_is_the_contract() -> None:
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+) \| (.+?) \| .+ \|$", doc, flags=re.MULTILINE)
    drawn = [re.findall(r"`(\w+)/`", packages) for _, packages in rows]
    assert [int(n) for n, _ in rows] == list(range(1, len(rows) + 1))
    assert drawn == _layers()
