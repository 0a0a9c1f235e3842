"""The tests' folders mirror the packages of ``src/linksync/`` (``tests/README.md``): a
folder of ``tests/`` is named for a package of the source (or a module of its root, as
``config/`` for ``config.py`` until it is a package) or is one of the few suites that
test the whole program, so a test of a module is where its path says, not where the
issue that asked for it was filed."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
PACKAGES = ROOT / "src" / "linksync"

#: Folders that test the whole program (or hold shared helpers), not one package.
WHOLE_PROGRAM = {"action", "network", "packaging", "reliability", "support"}


def _folders(root: Path) -> set[str]:
    return {p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))}


def test_every_test_folder_is_a_package_or_a_whole_program_suite() -> None:
    packages = {name for name in _folders(PACKAGES) if (PACKAGES / name / "__init__.py").exists()}
    packages |= {p.stem for p in PACKAGES.glob("*.py") if not p.stem.startswith("_")}
    strays = {
        name
        for name in _folders(TESTS) - packages - WHOLE_PROGRAM
        if any((TESTS / name).rglob("*.py"))  # a folder left empty by a move is no test's
    }
    assert strays == set()
