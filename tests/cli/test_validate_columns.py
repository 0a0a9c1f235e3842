"""``linksync validate`` and ``linksync plan`` print the column mapping they used: a
"Columns:" section in validate's text, a ``columns`` key in its JSON, a line per
sheet on plan's stderr (its ``--format json`` stays JSON on stdout); YAML files have none."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from linksync.cli import cli


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _sheet(workdir: Path) -> Path:
    path = workdir / "links.csv"
    path.write_text(
        "Destination URL,Back-half,Notes,Budget\nhttps://e.com/a,col-a,Hero,100\n",
        encoding="utf-8",
    )
    return path


LINE = '"Destination URL" -> url, "Back-half" -> slug, "Notes" -> description (guess), '


def test_validate_text_has_a_columns_section(workdir: Path) -> None:
    path = _sheet(workdir)
    result = run("validate", str(path), "--map", "Budget=ignore")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    at = lines.index("Columns:")
    assert lines[at + 1] == f'  {path}: {LINE}not read: "Budget"'
    assert result.stderr == ""  # printed once, in the output itself


def test_validate_json_has_a_columns_key_and_yaml_none(workdir: Path) -> None:
    yaml = workdir / "links.yaml"
    yaml.write_text("links:\n  - {slug: y, url: https://e.com/y}\n", encoding="utf-8")
    doc = json.loads(run("validate", str(yaml), "--json").stdout)
    assert doc["columns"] == []
    text = run("validate", str(yaml)).stdout
    assert "Columns:" not in text
    doc = json.loads(run("validate", str(_sheet(workdir)), "--json").stdout)
    assert [c["line"] for c in doc["columns"]] == [
        f'{workdir / "links.csv"}: {LINE}not read: "Budget" (unknown)'
    ]


def test_plan_prints_the_mapping_beside_its_json(workdir: Path) -> None:
    path = _sheet(workdir)
    result = run("plan", str(path), "--format", "json")
    assert result.exit_code == 0, result.output
    json.loads(result.stdout)  # stdout stays machine-readable
    assert f"{path}: {LINE}" in result.stderr
