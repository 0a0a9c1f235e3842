"""``linksync.apply(plan=...)`` from Python (a scheduler, the page): a ``Plan`` of
``linksync.plan`` carries the workspace it was made for and the digest of its sources,
and an apply checks both, and its ``SyncPolicy``, before any write
(``linksync.pipeline.saved``)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest

import linksync
from linksync.config import Settings, resolve
from linksync.errors import SavedPlanMismatch, UnsafePlanError
from linksync.model import LinkSpec, Provenance
from linksync.sync import SyncOptions, diff
from linksync.sync.remote import fetch_remote


def spec(slug: str, url: str, n: int) -> LinkSpec:
    return LinkSpec(
        url=url, slug=slug, managed=frozenset({"url"}), provenance=Provenance("py", None, n)
    )


SPECS = [spec("alpha", "https://example.com/a", 1), spec("bravo", "https://example.com/b", 2)]


def sandbox_in(folder: Path) -> Settings:
    folder.mkdir(exist_ok=True)
    return resolve(cwd=folder, env={}, sandbox=True)


def slugs(settings: Settings) -> list[str]:
    async def go() -> list[str]:
        async with settings.open_client() as client:
            return sorted(link.slug for link in await client.list_links())

    return asyncio.run(go())


def test_a_plan_object_binds_its_workspace_and_its_specs(tmp_path: Path) -> None:
    here, there = sandbox_in(tmp_path / "here"), sandbox_in(tmp_path / "there")
    planned = linksync.plan(SPECS, settings=here)
    assert planned.plan.workspace is not None and planned.plan.sources[0].kind == "objects"
    with pytest.raises(SavedPlanMismatch, match="this target is the built-in sandbox"):
        linksync.apply(
            SPECS, plan=planned.plan, settings=there, outputs=linksync.Outputs(journal=False)
        )
    assert slugs(there) == []
    edited = [SPECS[0], spec("bravo", "https://example.com/b2", 2)]
    with pytest.raises(SavedPlanMismatch, match="LinkSpec objects given are not those"):
        linksync.apply(
            edited, plan=planned.plan, settings=here, outputs=linksync.Outputs(journal=False)
        )
    assert slugs(here) == []
    done = linksync.apply(
        SPECS, plan=planned.plan, settings=here, outputs=linksync.Outputs(journal=False)
    )
    assert done.exit_code == 0 and slugs(here) == ["alpha", "bravo"]


def test_a_plan_built_without_linksync_plan_names_no_workspace(tmp_path: Path) -> None:
    here = sandbox_in(tmp_path / "here")
    options = SyncOptions(system_domain="lnk.test")

    async def made_by_hand() -> linksync.Plan:
        async with here.open_client() as client:
            return diff(SPECS, await fetch_remote(client, SPECS, options), options)

    with pytest.raises(SavedPlanMismatch, match="does not say which workspace"):
        linksync.apply(
            plan=asyncio.run(made_by_hand()), settings=here, outputs=linksync.Outputs(journal=False)
        )
    assert slugs(here) == []


def test_a_sync_policy_tightens_a_plan_object(tmp_path: Path) -> None:
    here = sandbox_in(tmp_path / "here")
    assert (
        linksync.apply(SPECS, settings=here, outputs=linksync.Outputs(journal=False)).exit_code == 0
    )
    policy = linksync.SyncPolicy(mode="mirror", scope_domains=("lnk.test",))
    planned = linksync.plan(SPECS[:1], settings=here, sync=policy)
    assert planned.counts["delete"] == 1
    with pytest.raises(UnsafePlanError, match="1 deletes exceed the maximum of 0"):
        linksync.apply(
            plan=planned.plan,
            settings=here,
            sync=linksync.SyncPolicy(max_deletes=0),
            outputs=linksync.Outputs(journal=False),
        )
    tighter = replace(policy, max_deletes=0)
    with pytest.raises(UnsafePlanError):
        linksync.apply(
            plan=planned.plan, settings=here, sync=tighter, outputs=linksync.Outputs(journal=False)
        )
    with pytest.raises(SavedPlanMismatch, match="--mode update-only"):
        linksync.apply(
            plan=planned.plan,
            settings=here,
            sync=linksync.SyncPolicy(mode="update-only"),
            outputs=linksync.Outputs(journal=False),
        )
    assert slugs(here) == ["alpha", "bravo"]
    done = linksync.apply(
        plan=planned.plan, settings=here, sync=policy, outputs=linksync.Outputs(journal=False)
    )
    assert done.exit_code == 0 and slugs(here) == ["alpha"]
