"""Applying a saved plan: what ``linksync.apply(plan=...)`` (``apply --plan``) checks
so that it writes only what the plan declared, where it was declared.

Before any request (``check_saved``): the plan says which workspace it was made for (a
plan of an older linksync is refused: plan again), the sources given beside it are its
own and unchanged since (``linksync.sync.binding.check_sources``), the config file sets
no option that shapes a plan to another value than the plan's (an ``ignore:`` entry
or an ``owner_tag`` added since: ``config_conflicts``), and the options given fit it
(``linksync.sync.saved_options``: a limit only tightens, a mode that does more or
other than the plan's is refused, an option that shapes the plan must be its own).
Options a saved plan has no use for are named in a warning (``SavedAsks.unused``).
With the client open, before any write: the workspace is the one the plan was made for
(``workspace_here``, ``linksync.sync.binding.check_workspace``), then every row is
checked against it (``linksync.sync.stale``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from linksync.api import LinkClient
from linksync.config import Settings
from linksync.config.profiles import refuse_unknown
from linksync.errors import SavedPlanMismatch
from linksync.model import LinkSpec
from linksync.pipeline.fields import flags_of, from_profile, given
from linksync.pipeline.request import Reading, SyncPolicy
from linksync.sync.binding import WorkspaceId, check_sources, raise_unbound, workspace_id
from linksync.sync.options import SyncOptions
from linksync.sync.plan import Plan
from linksync.sync.saved_options import (
    LIMITS,
    SHAPING,
    Rebound,
    config_conflicts,
    config_record,
    options_for_saved,
)

#: Fields of the request a saved plan has no use for (it is applied as planned).
UNUSED = (
    *("ai_slug", "ai_og", "check_destinations", "fix_invisible", "fix_utm_case"),
    "changed_since",
)
_READING = frozenset(Reading.__dataclass_fields__)


@dataclass(frozen=True, slots=True)
class SavedAsks:
    """What an apply of a saved plan was given: ``options``, the ``SyncOptions``
    fields its ``SyncPolicy`` gives, and ``unused``, the flags a saved plan has no use
    for."""

    options: Mapping[str, Any] = field(default_factory=dict)
    unused: tuple[str, ...] = ()

    def note(self) -> str | None:
        """The warning naming the unused flags (None when there are none)."""
        if not self.unused:
            return None
        return (
            f"{', '.join(self.unused)}: not used with a saved plan (it is applied as it was "
            "planned; the sources beside it are read for their passwords only)"
        )


def saved_asks(reading: Reading, policy: SyncPolicy, *, sources: bool) -> SavedAsks:
    """``SavedAsks`` of what an apply of a saved plan was given: the ``SyncOptions``
    fields of ``policy`` given, and the flags of the fields a saved plan does not use
    (``UNUSED``; without ``sources`` beside the plan, every reading field given too: there
    is nothing to read)."""
    options = {k: v for k, v in given(policy).items() if k in SyncOptions.__dataclass_fields__}
    asked = {**given(reading), **given(policy)}
    flags = {f.name: flags_of(f)[0] for f in (*fields(Reading), *fields(SyncPolicy))}
    unused = [flags[k] for k in UNUSED if asked.get(k)]
    if not sources:
        unused += [
            flags[k] or k for k, v in asked.items() if k in _READING and k not in UNUSED and v
        ]
    return SavedAsks(options, tuple(unused))


def check_saved(
    plan: Plan,
    asks: SavedAsks,
    settings: Settings,
    sources: Iterable[str | Any | LinkSpec],
    *,
    plan_name: str,
) -> Rebound:
    """Before any request: the plan's own record, sources and options (see module
    docstring). Returns the options the plan runs with and the warnings to give (what
    was not taken); ``SavedPlanMismatch`` (exit 2) when it does not fit."""
    if plan.workspace is None:
        raise_unbound(plan_name)
    check_sources(plan.sources, list(sources), plan_name)
    refuse_unknown(settings.limits, frozenset(LIMITS), "profile limits")  # as a fresh plan
    where = settings.config_path.name if settings.config_path is not None else "the profile"
    conflicts = config_conflicts(plan, profile_shaping(settings), asks.options, where)
    if conflicts:
        raise SavedPlanMismatch(
            f"the config file changed since the saved plan {plan_name} was made: "
            f"{'; '.join(conflicts)}: plan again with it, or apply the plan with the "
            "config file it was made with"
        )
    bound = options_for_saved(plan, asks.options, settings.limits, plan_name=plan_name)
    unused = asks.note()
    return replace(bound, notes=(*bound.notes, unused)) if unused else bound


def profile_shaping(settings: Settings) -> dict[str, Any]:
    """The options that shape a plan as ``settings``' profile gives them."""
    values = given(from_profile(SyncPolicy, settings.profile))
    return {k: v for k, v in values.items() if k in SHAPING}


def config_of(settings: Settings) -> dict[str, Any]:
    """What a saved plan records of the profile it was made with (``Plan.config``)."""
    return config_record(profile_shaping(settings))


async def workspace_here(client: LinkClient, settings: Settings) -> WorkspaceId:
    """The workspace ``settings``' target reaches (one request: the organization)."""
    target = settings.target
    db = target.sandbox_db if target.is_sandbox else None
    return await workspace_id(client, target.base_url, sandbox_db=db)
