"""Deletes need a declaration, from Python: ``linksync.plan`` / ``apply`` and
``plan_all`` / ``apply_all`` in mirror mode refuse, before any request, sources that
have a file-level error or declared nothing (``MirrorRefused``: exit 2, ``force`` or
not); so does a mirror given an empty list of ``LinkSpec`` objects; a scope domain
the workspace does not have is a ``ConfigError`` naming the nearest one."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest

import linksync
from linksync.api import LinkServiceClient
from linksync.errors import ConfigError, MirrorRefused, UnsafePlanError
from linksync.model import LinkSpec, Problem, Provenance, Severity
from linksync.model.outcome import EXIT_USAGE, error_constant, exit_code_for
from linksync.pipeline.planning import make_plan
from linksync.sync.options import Mode, SyncOptions
from linksync.validate import Validation, validate
from support.cli_runs import remote_links
from support.two_workspaces import B_SLUGS, good_env, make_two, remote_slugs

MIRROR = linksync.SyncPolicy(mode="mirror", scope_domains=["lnk.test"])
FORCED = replace(MIRROR, force=True)
NO_JOURNAL = linksync.Outputs(journal=False)


def spec(slug: str, n: int) -> LinkSpec:
    return LinkSpec(
        url=f"https://example.com/{slug}",
        slug=slug,
        managed=frozenset({"url"}),
        provenance=Provenance("links/web.yaml", None, n),
    )


@pytest.fixture
def seeded(workdir: Path) -> Path:
    """Links a, b and c on the built-in sandbox of ``workdir``."""
    results = linksync.apply(
        [spec(s, i + 2) for i, s in enumerate("abc")], outputs=linksync.Outputs(journal=False)
    )
    assert results.exit_code == 0
    return workdir


def slugs(workdir: Path) -> list[str]:
    return sorted(link.slug for link in remote_links(workdir))


def test_an_empty_csv_refuses_plan_and_apply_even_forced(seeded: Path) -> None:
    (seeded / "links.csv").write_text("slug,url\n", encoding="utf-8")
    with pytest.raises(MirrorRefused, match=r"^mirror refused: links\.csv: EMPTY_SOURCE") as got:
        linksync.plan(["links.csv"], sync=FORCED)
    assert [p.constant for p in got.value.problems] == ["EMPTY_SOURCE"]
    with pytest.raises(MirrorRefused) as applied:
        linksync.apply(["links.csv"], sync=FORCED, outputs=NO_JOURNAL)
    assert exit_code_for(applied.value) == EXIT_USAGE == 2
    assert error_constant(applied.value) == "MIRROR_REFUSED"
    assert isinstance(applied.value, UnsafePlanError)  # callers catching it still do
    assert slugs(seeded) == ["a", "b", "c"]


def test_a_folder_without_yaml_refuses_the_mirror(seeded: Path) -> None:
    (seeded / "links").mkdir()
    (seeded / "links" / "README.md").write_text("the links live in git\n", encoding="utf-8")
    with pytest.raises(MirrorRefused, match=r"links/README.md: EMPTY_SOURCE: not read"):
        linksync.apply(["links"], sync=MIRROR, outputs=NO_JOURNAL)
    assert slugs(seeded) == ["a", "b", "c"]


def test_an_empty_list_of_specs_declares_nothing(seeded: Path) -> None:
    """A mirror from an empty list of LinkSpec objects (a database query that returned
    nothing) is refused outright: no option lets it through; a file saying
    ``links: []`` is the way to empty a scope."""
    with pytest.raises(MirrorRefused, match=r"no sources given .*links: \[\]"):
        linksync.plan([], sync=FORCED)
    with pytest.raises(ConfigError, match="give sources"):
        linksync.apply([], sync=FORCED, outputs=NO_JOURNAL)
    # Other modes only warn: nothing would be deleted.
    planned = linksync.plan([])
    assert [p.constant for p in planned.file_problems] == ["EMPTY_SOURCE"]
    assert not planned.has_changes
    # One row is a declaration: the mirror keeps it and deletes the others.
    kept = linksync.apply([spec("a", 2)], sync=FORCED, outputs=NO_JOURNAL)
    assert kept.exit_code == 0 and slugs(seeded) == ["a"]


def _validation(file_problem: Problem) -> Validation:
    """The validation of one row (a) whose source also has ``file_problem``."""
    checked = validate([spec("a", 2)])
    return replace(
        checked, problems=(file_problem, *checked.problems), file_problems=(file_problem,)
    )


async def _plan_against_nothing(validation: Validation, options: SyncOptions) -> None:
    """``make_plan`` with a client whose every request fails at once: a refusal must
    come before the first request."""
    async with LinkServiceClient("http://127.0.0.1:9", "k", concurrency=1) as client:
        await make_plan(client, validation, options)


MIRROR_OPTIONS = SyncOptions(mode=Mode.MIRROR, scope_domains=("lnk.test",), force=True)


@pytest.mark.parametrize(
    "problem",
    [
        Problem("INVALID_FIELD", "unknown top-level key", Provenance("links/web.yaml")),
        Problem("EMPTY_SOURCE", "a file the folder skipped", Provenance("links/more.ymal")),
        Problem("EMPTY_SOURCE", "empty", Provenance("links/x.yaml"), None, Severity.WARNING),
    ],
    ids=["error", "EMPTY_SOURCE", "EMPTY_SOURCE warning"],
)
def test_a_file_level_problem_refuses_before_any_request(problem: Problem) -> None:
    validation = _validation(problem)
    with pytest.raises(MirrorRefused) as got:
        asyncio.run(_plan_against_nothing(validation, MIRROR_OPTIONS))
    assert str(got.value).startswith(
        f"mirror refused: {problem.where()}: {problem.constant}: {problem.message}; "
        "a mirror deletes only what its sources declare. Fix the source, or declare an "
        "empty file with `links: []`"
    )
    assert got.value.problems == (problem,)


def test_a_file_level_warning_of_another_kind_does_not_refuse(seeded: Path) -> None:
    warning = Problem(
        "UNKNOWN_COLUMN", "column Notes ignored", Provenance("links.csv"), None, Severity.WARNING
    )
    settings = linksync.config.resolve(cwd=seeded, env={}, sandbox=True)

    async def go() -> list[str]:
        async with settings.open_client() as client:
            made = await make_plan(client, _validation(warning), MIRROR_OPTIONS)
        return sorted(ch.slug or "" for ch in made.changes if ch.action.value == "delete")

    assert asyncio.run(go()) == ["b", "c"]


def test_plan_all_and_apply_all_refuse_the_target_that_declared_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    config = make_two(tmp_path)
    assert linksync.apply_all(config=config, env=good_env()).exit_code == 0
    # brand-b mirrors links/b.yaml (owner tag "managed"): its file is emptied by mistake
    (tmp_path / "links" / "b.yaml").write_text("# moved to c.yaml\n", encoding="utf-8")
    planned = linksync.plan_all(config=config, env=good_env(), sync=linksync.SyncPolicy(force=True))
    b = planned["brand-b"]
    assert (b.exit_code, b.error_constant) == (2, "MIRROR_REFUSED")
    assert "mirror refused: links/b.yaml" in (b.error or "")
    assert planned["brand-a"].exit_code == 0
    applied = linksync.apply_all(
        config=config, env=good_env(), sync=linksync.SyncPolicy(force=True)
    )
    assert (applied["brand-b"].exit_code, applied["brand-b"].error_constant) == (
        2,
        "MIRROR_REFUSED",
    )
    assert applied.exit_code == 2 and not applied.wrote
    assert remote_slugs(config, "brand-b") == B_SLUGS


def test_a_scope_domain_the_workspace_lacks_is_refused(seeded: Path) -> None:
    with pytest.raises(ConfigError, match=r"--domain lnk\.tset: no such domain .*lnk\.test\?"):
        linksync.plan(
            [spec("a", 2)], sync=linksync.SyncPolicy(mode="mirror", scope_domains=["lnk.tset"])
        )
    with pytest.raises(ConfigError, match=r"write the domain alone: --domain lnk\.test"):
        linksync.apply(
            [spec("a", 2)],
            sync=linksync.SyncPolicy(mode="mirror", scope_domains=["https://lnk.test"]),
            outputs=linksync.Outputs(journal=False),
        )
    assert slugs(seeded) == ["a", "b", "c"]
