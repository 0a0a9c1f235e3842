"""Two workspaces for the runs over several targets: two built-in sandboxes (one state
file each: the sandbox is one organization per instance; each target asks for it with
``sandbox: true``, as a job without a terminal must), named ``brand-a`` and
``brand-b`` in a config file's ``targets:`` block. ``brand-b`` takes its key from
``$BRAND_B_KEY`` (the sandbox's full-access key, or a wrong one to see a refused key).
"""

from __future__ import annotations

import asyncio
import csv
from pathlib import Path

from linksync.config import Settings
from linksync.config.targets import load_workspaces
from linksync.sandbox.settings import DEFAULT_FULL_KEY

CONFIG = """\
profiles:
  shared:
    owner_tag: managed
    limits: {max_deletes: 5, min_existing: 10}
targets:
  brand-a:
    profile: shared
    sandbox: true
    sandbox_db: a.db
    files: [links/a.csv]
  brand-b:
    profile: shared
    sandbox: true
    sandbox_db: b.db
    api_key_env: BRAND_B_KEY
    files: [links/b.yaml]
    mode: mirror
    limits: {max_deletes: 1}
"""

A_SLUGS = ["a1", "a2", "a3"]
B_SLUGS = ["b1", "b2"]


def make_two(folder: Path) -> Path:
    """The config, ``links/a.csv`` (3 links) and ``links/b.yaml`` (2 links) in
    ``folder``; returns the config's path."""
    (folder / "links").mkdir(exist_ok=True)
    with (folder / "links" / "a.csv").open("w", encoding="utf-8", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(["slug", "url"])
        out.writerows([s, f"https://example.com/{s}"] for s in A_SLUGS)
    (folder / "links" / "b.yaml").write_text(
        "links:\n" + "".join(f"  {s}: https://example.com/{s}\n" for s in B_SLUGS),
        encoding="utf-8",
    )
    config = folder / "linksync.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    return config


def good_env() -> dict[str, str]:
    return {"BRAND_B_KEY": DEFAULT_FULL_KEY}


def settings_of(config: Path, name: str) -> Settings:
    (workspace,) = load_workspaces(config, [name], env=good_env(), cwd=config.parent)
    return workspace.settings(env=good_env(), cwd=config.parent)


def remote_slugs(config: Path, name: str) -> list[str]:
    """The slugs the workspace of target ``name`` holds (read with its own key)."""
    settings = settings_of(config, name)

    async def go() -> list[str]:
        async with settings.open_client() as client:
            return sorted(link.slug for link in await client.list_links())

    return asyncio.run(go())


def report_rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as fh:
        return list(csv.DictReader(fh))
