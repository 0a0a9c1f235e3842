"""The Workspace helper of the CLI tests (a module of its own: test modules import it)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner, Result

from linksync.api import LinkServiceClient
from linksync.cli import cli
from linksync.config import resolve

CLEAN_ENV: dict[str, str | None] = {
    "LINKSYNC_BASE_URL": None,
    "LINKSYNC_API_KEY": None,
    "LINKSYNC_PROFILE": None,
}


@dataclass
class Workspace:
    root: Path
    config: Path

    def write(
        self, profile: dict[str, Any] | None = None, sandbox: dict[str, Any] | None = None
    ) -> None:
        prof: dict[str, Any] = {
            "sandbox": True,
            "sandbox_db": str(self.root / "state" / "sandbox.db"),
        }
        if sandbox:
            box = self.root / "sandbox.yaml"
            box.write_text(yaml.safe_dump(sandbox))
            prof["sandbox_config"] = str(box)
        prof.update(profile or {})
        self.config.write_text(yaml.safe_dump({"profiles": {"test": prof}}))

    def run(
        self, *args: str, env: dict[str, str] | None = None, input: str | None = None
    ) -> Result:
        runner = CliRunner()
        return runner.invoke(
            cli, [*args, "--config", str(self.config)], env={**CLEAN_ENV, **(env or {})},
            input=input, catch_exceptions=False,
        )  # fmt: skip

    def client(self) -> LinkServiceClient:
        return resolve(config=self.config, env={}).open_client()
