"""The Python API of the sync engine: plan and apply, usable without the CLI.

    import linksync
    plan = linksync.plan(["links/"])                 # read, validate, fetch, diff
    results = linksync.apply(["links/"])             # ... and execute
    results = linksync.apply(plan=saved_plan)        # a saved plan, stale rows refused

With no target the built-in sandbox is used (as the CLI does). The async forms
(``make_plan``, ``apply_plan``, ``apply_saved``) take an open client, for callers that
run their own event loop or share one client across steps.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from linksync.api import LinkServiceClient
from linksync.config import Settings, Target, resolve
from linksync.errors import ConfigError
from linksync.model import LinkSpec, RowResult
from linksync.outcome import RemoteWrites
from linksync.sync.diff import diff
from linksync.sync.enrich import enrich
from linksync.sync.execute import ProgressSink, Results, execute
from linksync.sync.history import LastRun
from linksync.sync.journal import Journal, default_journal_path, new_run_id
from linksync.sync.options import SyncOptions
from linksync.sync.plan import Plan, restore_passwords
from linksync.sync.reading import (
    Sources,
    column_mapping,
    load_specs,
    refuse_file_errors,
    source_options,
)
from linksync.sync.remote import fetch_remote
from linksync.sync.stale import mark_stale, plan_specs

if TYPE_CHECKING:
    from linksync.validate import Validation

__all__ = [
    "Planned",
    "apply",
    "apply_plan",
    "column_mapping",
    "load_specs",
    "make_plan",
    "options_from",
    "plan",
    "plan_to_apply",
    "refuse_file_errors",
    "source_options",
]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Planned:
    """A plan with what it was made from: the validated desired links (after
    ``--fix-invisible`` and AI enrichment) and the validation (file-level problems)."""

    plan: Plan
    specs: tuple[LinkSpec, ...]
    validation: Validation


def system_domain_of(target: Target) -> str | None:
    """The system domain when the target says it (the built-in sandbox's settings)."""
    if not target.is_sandbox:
        return None
    from linksync.sandbox import SandboxSettings

    if target.sandbox_config:
        return SandboxSettings.load(target.sandbox_config).system_domain
    return SandboxSettings().system_domain


async def make_plan(
    client: LinkServiceClient,
    validation: Validation,
    options: SyncOptions,
    *,
    ai_slug: bool = False,
    ai_og: bool = False,
    target: str | None = None,
) -> Planned:
    """Fetch what the plan needs, fill slugs/descriptions when asked, and diff."""
    specs = list(validation.specs)
    valid = [s for i, s in enumerate(specs) if i not in validation.invalid]
    remote = await fetch_remote(client, valid, options)
    if ai_slug or ai_og:
        specs = await enrich(
            specs,
            remote,
            client,
            options,
            ai_slug=ai_slug,
            ai_og=ai_og,
            skip=validation.invalid,
        )
    plan = diff(
        specs,
        remote,
        options,
        problems=validation.problems,
        invalid=validation.invalid,
        target=target,
    )
    return Planned(plan, tuple(specs), validation)


def open_journal(journal: str | Path | bool | None, run_id: str) -> Journal | None:
    """``None``/``True``: the default journal file; a path: that file; ``False``: none."""
    if journal is False:
        return None
    if journal is None or journal is True:
        return Journal(default_journal_path(run_id), run_id)
    return Journal(journal, run_id)


async def apply_plan(
    client: LinkServiceClient,
    plan: Plan,
    *,
    journal: str | Path | bool | None = None,
    progress: ProgressSink | None = None,
    run_id: str | None = None,
    on_result: Callable[[RowResult], None] | None = None,
    last: LastRun | None = None,
    writes: RemoteWrites | None = None,
    recheck_urls: bool = False,
) -> Results:
    """Execute ``plan`` (journal at ``.linksync/runs/<run-id>.jsonl`` by default);
    ``on_result`` sees each row's result in plan order as soon as it is final;
    ``writes`` counts what the service accepted (see ``execute``)."""
    run_id = run_id or new_run_id()
    jr = open_journal(journal, run_id)
    try:
        return await execute(
            plan,
            client,
            journal=jr,
            progress=progress,
            run_id=run_id,
            on_result=on_result,
            last=last,
            writes=writes,
            recheck_urls=recheck_urls,
        )
    finally:
        if jr is not None:
            jr.close()


async def refresh_saved(
    client: LinkServiceClient, plan: Plan, specs: Iterable[LinkSpec] = ()
) -> Plan:
    """A saved plan ready to run: passwords restored from ``specs`` (the sources), and
    every write whose remote record changed since blocked with STALE_PLAN."""
    plan = restore_passwords(plan, specs)
    fresh = await fetch_remote(client, plan_specs(plan), plan.options)
    return mark_stale(plan, fresh)


#: Keys of a profile's ``limits:`` block (safety thresholds of plan/apply).
LIMIT_KEYS = frozenset({"max_deletes", "max_change_ratio", "min_existing"})


async def plan_to_apply(
    client: LinkServiceClient,
    settings: Settings,
    options: SyncOptions,
    *,
    validation: Validation | None,
    saved: Plan | None = None,
    ai_slug: bool = False,
    ai_og: bool = False,
    force: bool = False,
) -> Plan:
    """The plan an apply runs: a ``saved`` plan refreshed against the workspace (rows
    changed since are blocked, passwords restored from the sources), or a fresh plan
    of the validated sources."""
    if saved is not None:
        specs = validation.specs if validation is not None else ()
        todo = await refresh_saved(client, saved, specs)
        if force:
            todo = replace(todo, options=replace(todo.options, force=True))
        return todo
    if validation is None:
        raise ConfigError("give sources to plan from, or a saved plan")
    planned = await make_plan(
        client, validation, options, ai_slug=ai_slug, ai_og=ai_og, target=settings.target.label
    )
    return planned.plan


def options_from(settings: Settings, options: SyncOptions | None, **given: Any) -> SyncOptions:
    """Options: the caller's, else the profile's defaults (domain, owner tag, limits)
    overridden by ``given`` values that are not None."""
    if options is not None:
        base = options
    else:
        limits = settings.limits
        unknown = sorted(set(map(str, limits)) - LIMIT_KEYS)
        if unknown:
            raise ConfigError(
                f"profile limits: unknown key(s) {', '.join(unknown)}; "
                f"known: {', '.join(sorted(LIMIT_KEYS))}"
            )
        base = SyncOptions(
            default_domain=settings.default_domain,
            owner_tag=settings.owner_tag,
            max_deletes=limits.get("max_deletes"),
            max_change_ratio=float(limits.get("max_change_ratio", 0.30)),
            min_existing=int(limits.get("min_existing", 10)),
        )
    changes = {k: v for k, v in given.items() if v is not None}
    if base.system_domain is None:
        changes.setdefault(
            "system_domain", settings.system_domain or system_domain_of(settings.target)
        )
    return replace(base, **changes) if changes else base


def _reading(
    mapping: Mapping[str, str] | None,
    encoding: str | None,
    date_format: str | None,
    empty_values: Iterable[str],
    strict: bool | None,
) -> dict[str, Any]:
    return {
        "mapping": mapping,
        "encoding": encoding,
        "date_format": date_format,
        "empty_values": empty_values,
        "strict": strict,
    }


def _validated(
    sources: Sources,
    settings: Settings,
    opts: SyncOptions,
    sheets: Sequence[str] | None,
    fix_invisible: bool,
    given: dict[str, Any],
) -> Validation:
    """The sources read with the given reading options over the profile's."""
    return load_specs(
        sources,
        sheets=sheets,
        fix_invisible=fix_invisible,
        default_domain=opts.default_domain,
        **source_options(settings, **given),
    )


def _run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


def plan(
    sources: Sources,
    *,
    options: SyncOptions | None = None,
    settings: Settings | None = None,
    sheets: Sequence[str] | None = None,
    fix_invisible: bool = False,
    ai_slug: bool = False,
    ai_og: bool = False,
    mapping: Mapping[str, str] | None = None,
    encoding: str | None = None,
    date_format: str | None = None,
    empty_values: Iterable[str] = (),
    strict: bool | None = None,
    **option_values: Any,
) -> Plan:
    """Read, validate, fetch and diff: the Plan (nothing is written).

    ``settings`` is a resolved target (``linksync.config.resolve(...)``; default: the
    environment, ``./linksync.yaml`` or the built-in sandbox). ``option_values`` are
    ``SyncOptions`` fields (``mode="mirror"``, ``scope_domains=(...)``, ...).
    ``mapping``, ``encoding``, ``date_format``, ``empty_values`` and ``strict`` are the
    reading options of the CLI (``--map``, ``--encoding``, ...), over the profile's.
    """
    settings = settings or resolve()
    opts = options_from(settings, options, **option_values)
    given = _reading(mapping, encoding, date_format, empty_values, strict)
    validation = _validated(sources, settings, opts, sheets, fix_invisible, given)

    async def go() -> Plan:
        async with settings.open_client() as client:
            planned = await make_plan(
                client, validation, opts, ai_slug=ai_slug, ai_og=ai_og,
                target=settings.target.label,
            )  # fmt: skip
        return planned.plan

    return _run(go())


def apply(
    sources: Sources = (),
    *,
    plan: Plan | None = None,
    options: SyncOptions | None = None,
    settings: Settings | None = None,
    sheets: Sequence[str] | None = None,
    fix_invisible: bool = False,
    ai_slug: bool = False,
    ai_og: bool = False,
    journal: str | Path | bool | None = None,
    progress: ProgressSink | None = None,
    mapping: Mapping[str, str] | None = None,
    encoding: str | None = None,
    date_format: str | None = None,
    empty_values: Iterable[str] = (),
    strict: bool | None = None,
    **option_values: Any,
) -> Results:
    """Plan and apply (or apply a saved ``plan``, refusing stale rows): the Results.

    Raises ``UnsafePlanError`` when the plan crosses a safety threshold without
    ``force=True``, and ``SourceError`` (nothing applied) when the sources have an
    error that belongs to no row (a wrong YAML structure, a sheet that cannot be read).
    """
    settings = settings or resolve()
    validation: Validation | None = None
    if sources:
        opts = options_from(settings, options if plan is None else plan.options, **option_values)
        given = _reading(mapping, encoding, date_format, empty_values, strict)
        validation = _validated(sources, settings, opts, sheets, fix_invisible, given)
        if plan is None:
            refuse_file_errors(validation)
    elif plan is None:
        raise ConfigError("give sources to plan from, or a saved plan")

    async def go() -> Results:
        async with settings.open_client() as client:
            todo = await plan_to_apply(
                client,
                settings,
                opts if plan is None else plan.options,
                validation=validation,
                saved=plan,
                ai_slug=ai_slug,
                ai_og=ai_og,
                force=bool(option_values.get("force")),
            )
            return await apply_plan(client, todo, journal=journal, progress=progress)

    return _run(go())
