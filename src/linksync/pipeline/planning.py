"""Making the plan of a run, and the plan an apply runs.

``make_plan`` fetches what the plan needs, fills slugs and descriptions from the AI
tools when asked, and diffs. ``plan_to_apply`` is the plan an apply runs: a saved plan
checked against the workspace (another workspace is refused, rows changed since are
blocked with STALE_PLAN, the passwords restored from its sources, the thresholds judged
again under the limits of the apply), or a fresh plan. ``Planned`` is what
``linksync.plan`` returns: the plan, its validation and the exit code of
``linksync plan``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from linksync.api import LinkClient
from linksync.config import Settings
from linksync.errors import ConfigError
from linksync.model import LinkSpec, Problem, Severity
from linksync.model.outcome import EXIT_CHANGES_PENDING, EXIT_OK, EXIT_ROWS_FAILED
from linksync.pipeline.changed import Changed, narrow_plan
from linksync.pipeline.inputs import refuse_undeclared
from linksync.pipeline.saved import workspace_here
from linksync.sync.binding import check_workspace
from linksync.sync.diff import diff
from linksync.sync.enrich import enrich
from linksync.sync.fingerprints import PasswordMemory
from linksync.sync.options import SyncOptions
from linksync.sync.ownership import check_owner_tag_case, owner_tag_unused
from linksync.sync.plan import Change, Plan, restore_passwords
from linksync.sync.remote import fetch_remote
from linksync.sync.saved_options import rejudge
from linksync.sync.stale import mark_stale, plan_specs

if TYPE_CHECKING:
    from linksync.validate import Validation


@dataclass(frozen=True, slots=True)
class Planned:
    """What ``linksync.plan`` returns: the plan, the file-level problems of its sources
    (``file_problems``), where it was saved (``saved_to``) and the exit code
    ``linksync plan`` gives it. ``counts``, ``changes``, ``has_changes`` and
    ``to_json`` are the plan's."""

    plan: Plan
    file_problems: tuple[Problem, ...] = ()
    exit_code: int = EXIT_OK
    saved_to: Path | None = None
    #: The JSON written to ``saved_to`` (rendering a large plan takes seconds: once)
    saved_json: str | None = field(default=None, repr=False, compare=False)

    @property
    def counts(self) -> dict[str, int]:
        return self.plan.counts

    @property
    def changes(self) -> Sequence[Change]:
        return self.plan.changes

    @property
    def has_changes(self) -> bool:
        return self.plan.has_changes

    def to_json(self) -> str:
        return self.saved_json if self.saved_json is not None else self.plan.to_json()


def plan_exit_code(plan: Plan, file_problems: Iterable[Problem], *, detailed: bool) -> int:
    """1 when rows are invalid or the sources have file-level errors; else 3 when the
    plan has changes and ``detailed`` (``--detailed-exitcode``); else 0."""
    if plan.invalid or any(p.severity is Severity.ERROR for p in file_problems):
        return EXIT_ROWS_FAILED
    if detailed and plan.has_changes:
        return EXIT_CHANGES_PENDING
    return EXIT_OK


async def make_plan(
    client: LinkClient,
    validation: Validation,
    options: SyncOptions,
    *,
    ai_slug: bool = False,
    ai_og: bool = False,
    target: str | None = None,
    passwords: PasswordMemory | None = None,
    changed: Changed | None = None,
) -> Plan:
    """Fetch what the plan needs, fill slugs/descriptions when asked, and diff
    (``passwords``: what this machine sent, ``linksync.pipeline.passwords``;
    ``changed``: a partial run's, ``linksync.pipeline.changed``: only its links are
    read, and only its removed links deleted).

    A mirror refuses first (``MirrorRefused``, before its own requests) when its sources have a
    file-level error or declared nothing (``refuse_undeclared``); the fetch refuses a
    scope domain the workspace does not have (``ConfigError``); an owner tag no link
    and no row carries is a warning of the plan (``Plan.problems``)."""
    refuse_undeclared(validation, options)
    ignores = [entry for frame in validation.frames for entry in frame.ignore]
    if ignores:  # a file's ``defaults: ignore:`` is the run's (``linksync.sync.ignoring``)
        options = replace(options, ignore=(*options.ignore, *ignores))
    specs: Sequence[LinkSpec] = validation.specs  # held once: no copy of a million rows
    invalid = validation.invalid
    gone = list(changed.removed) if changed is not None and options.deletes else []
    named = changed is not None
    if gone:
        valid = [s for i, s in enumerate(specs) if i not in invalid]
        remote = await fetch_remote(client, [*valid, *gone], options, named=named)
    else:  # the rows themselves: the diff takes the rows the listing matched
        remote = await fetch_remote(client, specs, options, named=named, skip=invalid)
    check_owner_tag_case(options, (link.tags for link in remote.links.values()))
    if ai_slug or ai_og:
        specs = await enrich(
            specs, remote, client, options, ai_slug=ai_slug, ai_og=ai_og, skip=validation.invalid
        )
    made = diff(
        specs,
        remote,
        options,
        problems=validation.problems,
        invalid=validation.invalid,
        target=target,
        passwords=passwords,
    )
    if remote.matched is not None:  # taken by the diff, or not for its rows (enriched)
        remote.matched.drop()
    if changed is not None:
        made = narrow_plan(made, remote, changed)
    tags = (t for link in remote.links.values() for t in link.tags)
    unused = owner_tag_unused(options, remote.owner_tagged, specs, tags)
    return replace(made, problems=(*made.problems, unused)) if unused is not None else made


async def refresh_saved(client: LinkClient, plan: Plan, specs: Iterable[LinkSpec] = ()) -> Plan:
    """A saved plan ready to run: passwords restored from ``specs`` (the sources), and
    every row whose remote record changed since (writes, unchanged and skipped rows)
    blocked with STALE_PLAN."""
    plan = restore_passwords(plan, specs)
    named = plan.partial is not None  # a partial plan reads its own links again, no more
    fresh = await fetch_remote(client, plan_specs(plan), plan.options, named=named)
    if fresh.matched is not None:  # no diff of these rows: the matches are not needed
        fresh.matched.drop()
    return mark_stale(plan, fresh)


async def plan_to_apply(
    client: LinkClient,
    options: SyncOptions,
    *,
    validation: Validation | None,
    settings: Settings,
    saved: Plan | None = None,
    target: str | None = None,
    plan_name: str = "",
    **enrichment: Any,
) -> Plan:
    """The plan an apply runs: a ``saved`` plan checked against the workspace of
    ``settings``' target (made for another: ``SavedPlanMismatch``), refreshed (rows
    changed since are blocked, passwords restored from the sources) and run with
    ``options`` (``linksync.pipeline.saved.check_saved``'s: the thresholds judged again
    under them); or a fresh plan of the validated sources (``enrichment``: ``ai_slug``,
    ``ai_og``)."""
    if saved is not None:
        check_workspace(saved.workspace, await workspace_here(client, settings), plan_name)
        specs = validation.specs if validation is not None else ()
        todo = await refresh_saved(client, saved, specs)
        return rejudge(todo, options)
    if validation is None:
        raise ConfigError("give sources to plan from, or a saved plan")
    return await make_plan(client, validation, options, target=target, **enrichment)
