"""The export command end to end through click, against the built-in sandbox."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from linksync.cli import cli
from linksync.config import Profile, sandbox_target
from linksync.config.connect import open_client

UNSET_ENV: dict[str, str | None] = {
    "LINKSYNC_BASE_URL": None,
    "LINKSYNC_API_KEY": None,
    "LINKSYNC_PROFILE": None,
}


async def _seed(here: Path, db: Path) -> None:
    async with open_client(sandbox_target(here, Profile(sandbox_db=str(db)), None)) as client:
        await client.create_link({"slug": "007", "url": "https://example.com/bond", "tags": ["no"]})
        await client.create_link(
            {"slug": "vip", "url": "https://example.com/vip", "password": "pw-123456"}
        )


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    """A config whose default profile is the built-in sandbox with its state in tmp."""
    db = tmp_path / "state" / "sandbox.db"
    asyncio.run(_seed(tmp_path, db))
    path = tmp_path / "linksync.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "default_profile": "local",
                "profiles": {"local": {"sandbox": True, "sandbox_db": str(db)}},
            }
        )
    )
    return path


def test_export_command_writes_yaml(config_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "links" / "links.yaml"
    result = CliRunner(env=UNSET_ENV).invoke(
        cli, ["export", "--config", str(config_file), str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "built-in sandbox" in result.stderr
    assert f"Exported 2 link(s) to {out}" in result.stdout
    assert "1 link(s) have a password" in result.stdout
    text = out.read_text()
    assert "pw-123456" not in text
    doc = yaml.safe_load(text)
    assert doc["links"]["007"] == {"url": "https://example.com/bond", "tags": ["no"]}


def test_export_command_json_and_split(config_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner(env=UNSET_ENV).invoke(
        cli,
        [
            "export",
            "--config",
            str(config_file),
            "--format",
            "csv",
            "--split-by",
            "domain",
            "--json",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    info = json.loads(result.stdout)
    assert info["files"] == [str(out / "lnk.test.csv")]
    assert info["links"] == 2
    assert info["with_password"] == ["lnk.test/vip"]


def test_export_command_refuses_split_into_a_file(config_file: Path, tmp_path: Path) -> None:
    taken = tmp_path / "taken.yaml"
    taken.write_text("")
    result = CliRunner(env=UNSET_ENV).invoke(
        cli, ["export", "--config", str(config_file), "--split-by", "tag", str(taken)]
    )
    assert result.exit_code == 2
    assert "is a file; a folder is needed here" in result.stderr


def test_export_writes_the_schema_its_files_point_at(config_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "repo" / "links"
    runner = CliRunner(env=UNSET_ENV)
    args = ["export", "--config", str(config_file), "--split-by", "domain", str(out)]
    result = runner.invoke(cli, args)
    assert result.exit_code == 0, result.output
    first_line = (out / "lnk.test.yaml").read_text().splitlines()[0]
    assert first_line == "# yaml-language-server: $schema=links.schema.json"
    schema = json.loads((out / "links.schema.json").read_text())
    assert schema["$id"] == "urn:linksync:link-file:v1"
    assert f"Schema for editors: {out / 'links.schema.json'}" in result.stdout
    # a reference one folder up puts the schema there, as the editor will look for it
    up = runner.invoke(
        cli, [*args[:-1], "--schema-ref", "../links.schema.json", "--json", "--force", str(out)]
    )
    assert up.exit_code == 0, up.output
    assert json.loads(up.stdout)["schemas"] == [str(tmp_path / "repo" / "links.schema.json")]
    assert (tmp_path / "repo" / "links.schema.json").read_text() == (
        out / "links.schema.json"
    ).read_text()


def test_export_keeps_a_foreign_file_where_the_schema_would_go(
    config_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "links.yaml"
    (tmp_path / "links.schema.json").write_text('{"mine": true}\n')
    result = CliRunner(env=UNSET_ENV).invoke(
        cli, ["export", "--config", str(config_file), str(out)]
    )
    assert result.exit_code == 0, result.output
    assert (tmp_path / "links.schema.json").read_text() == '{"mine": true}\n'
    assert "is not a linksync schema; left as it is" in result.stderr
    args = [
        "export",
        "--config",
        str(config_file),
        "--format=csv",
        "--json",
        str(tmp_path / "l.csv"),
    ]
    csv = CliRunner(env=UNSET_ENV).invoke(cli, args)
    assert json.loads(csv.stdout)["schemas"] == []
