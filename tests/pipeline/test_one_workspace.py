"""One workspace, one identity: a real ``linksync sandbox serve`` reached as
``http://127.0.0.1:PORT`` and as ``http://localhost:PORT`` with one key is one
workspace. Two targets that spell it two ways are refused before anything is written
(exit 2, both named); two single runs under the two spellings share one run lock."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

import linksync
from linksync.config import Settings, resolve
from linksync.config.identity import read_workspace_identity
from linksync.errors import ConfigError
from linksync.pipeline.lock import acquire_lock, default_lock_path
from support.cli_runs import run
from support.served_sandbox import ServedSandbox, sandbox_process

KEY = "k-one-workspace-7e1"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServedSandbox]:
    with sandbox_process(tmp_path, key=KEY) as served:
        yield served


def settings_at(url: str, folder: Path) -> Settings:
    return resolve(base_url=url, env={"LINKSYNC_API_KEY": KEY}, cwd=folder)


def slugs(url: str, folder: Path) -> list[str]:
    settings = settings_at(url, folder)

    async def go() -> list[str]:
        async with settings.open_client() as client:
            return sorted(link.slug for link in await client.list_links())

    return asyncio.run(go())


def seed(url: str, folder: Path, slug: str) -> None:
    settings = settings_at(url, folder)

    async def go() -> None:
        async with settings.open_client() as client:
            await client.create_link({"slug": slug, "url": f"https://example.com/{slug}"})

    asyncio.run(go())


def two_spellings(folder: Path, server: ServedSandbox) -> Path:
    """A config of two mirror targets, one per spelling of the server, each keeping
    its own links; both keys are the one key of the server's workspace."""
    (folder / "links").mkdir()
    for name in ("a", "b"):
        (folder / "links" / f"{name}.yaml").write_text(
            f"links:\n  {name}1: https://example.com/{name}1\n", encoding="utf-8"
        )
    config = folder / "linksync.yaml"
    config.write_text(
        "targets:\n"
        f"  by-ip:\n    base_url: {server.url}\n    api_key_env: KEY_A\n"
        "    files: [links/a.yaml]\n    mode: mirror\n    scope_domains: [lnk.test]\n"
        f"  by-name:\n    base_url: {server.url_as('localhost')}\n    api_key_env: KEY_B\n"
        "    files: [links/b.yaml]\n    mode: mirror\n    scope_domains: [lnk.test]\n",
        encoding="utf-8",
    )
    return config


def test_two_targets_spelling_one_workspace_two_ways_are_refused(
    server: ServedSandbox, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed(server.url, workdir, "by-hand")
    config = two_spellings(workdir, server)
    monkeypatch.setenv("KEY_A", KEY)
    monkeypatch.setenv("KEY_B", KEY)
    result = run("apply", "--all", "--yes", "--config", str(config))
    assert result.exit_code == 2, result.output
    said = " ".join(result.stderr.split())
    assert "targets by-ip and by-name are one workspace (organization org_sandbox" in said
    assert f"{server.url} (target by-ip)" in said
    assert f"{server.url_as('localhost')} (target by-name)" in said
    assert KEY not in result.output
    # Nothing written: neither target created its link nor deleted the other's.
    assert slugs(server.url, workdir) == ["by-hand"]
    # The library refuses the same, before any write, and so does a plan.
    with pytest.raises(ConfigError, match="targets by-ip and by-name are one workspace"):
        linksync.apply_all(config=config, env={"KEY_A": KEY, "KEY_B": KEY}, cwd=workdir)
    assert run("plan", "--all", "--config", str(config)).exit_code == 2
    assert slugs(server.url, workdir) == ["by-hand"]


def test_each_target_alone_runs(
    server: ServedSandbox, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = two_spellings(workdir, server)
    monkeypatch.setenv("KEY_A", KEY)
    result = run("apply", "--target", "by-ip", "--yes", "--config", str(config))
    assert result.exit_code == 0, result.output
    assert slugs(server.url_as("localhost"), workdir) == ["a1"]


def test_a_wrong_key_fails_its_target_only(
    server: ServedSandbox, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = two_spellings(workdir, server)
    every = linksync.apply_all(
        config=config, env={"KEY_A": KEY, "KEY_B": "not-the-key"}, cwd=workdir
    )
    # The identity of by-name cannot be read (401): that target alone fails, exit 2.
    by_name, by_ip = every["by-name"], every["by-ip"]
    assert (by_name.error_constant, by_name.exit_code) == ("UNAUTHORIZED", 2)
    assert not by_name.writes.any
    assert by_ip.status == "ok" and by_ip.writes.describe() == "1 created"
    assert every.exit_code == 1  # one target wrote: 2 would claim nothing was done


def test_one_lock_for_both_spellings(server: ServedSandbox, workdir: Path) -> None:
    (workdir / "links.csv").write_text("slug,url\nx1,https://example.com/x1\n", "utf-8")
    by_ip = settings_at(server.url, workdir)
    identity = asyncio.run(read_workspace_identity(by_ip))
    assert identity == asyncio.run(
        read_workspace_identity(settings_at(server.url_as("LOCALHOST"), workdir))
    )
    with acquire_lock(default_lock_path(identity), target="the nightly run"):
        result = run(
            "apply", "links.csv", "--yes", "--no-progress",
            "--base-url", server.url_as("localhost"), "--api-key-file", str(key_file(workdir)),
        )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "another linksync run holds the lock" in result.stderr
    assert "(target the nightly run)" in result.stderr
    assert slugs(server.url, workdir) == []


def key_file(folder: Path) -> Path:
    path = folder / "key.txt"
    path.write_text(KEY + "\n", encoding="utf-8")
    return path


def test_a_caller_in_a_running_event_loop_may_run_targets(
    server: ServedSandbox, workdir: Path
) -> None:
    """The identities are read in a loop of their own: a notebook (a running loop) may
    call ``plan_all`` as before."""
    config = two_spellings(workdir, server)

    async def notebook() -> int:
        every = linksync.plan_all(["by-ip"], config=config, env={"KEY_A": KEY}, cwd=workdir)
        return every.exit_code

    assert asyncio.run(notebook()) == 0
