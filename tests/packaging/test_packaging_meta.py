"""``python -m linksync`` is the command line; the version is written once (read by the
package metadata from ``linksync._version``); the license is an SPDX string with the
LICENSE file shipped."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from importlib.metadata import metadata, version
from pathlib import Path

import linksync

ROOT = Path(__file__).resolve().parents[2]


def test_python_dash_m_linksync_is_the_command_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "linksync", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"linksync, version {linksync.__version__}"


def test_the_version_is_written_once() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert version("linksync") == linksync.__version__


def test_the_license_is_an_spdx_string_and_the_file_ships() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    project = pyproject["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert metadata("linksync")["License-Expression"] == "MIT"
    package_data = pyproject["tool"]["setuptools"]["package-data"]["linksync"]
    src = ROOT / "src" / "linksync"
    for pattern in package_data:  # every entry names files that exist
        assert list(src.glob(pattern)), pattern
