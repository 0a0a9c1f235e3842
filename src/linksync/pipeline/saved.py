"""Applying a saved plan: what ``linksync.apply(plan=...)`` (``apply --plan``) checks
so that it writes only what the plan declared, where it was declared.

Before any request (``check_saved``): the plan says which workspace it was made for (a
plan of an older linksync is refused: plan again), the sources given beside it are its
own and unchanged since (``linksync.sync.binding.check_sources``), and the options given
fit it (``linksync.sync.saved_options``: a limit only tightens, a mode that does more
or other than the plan's is refused, an option that shapes the plan must be its own).
Options a saved plan has no use for are named in a warning (``SavedAsks.unused``).
With the client open, before any write: the workspace is the one the plan was made for
(``workspace_here``, ``linksync.sync.binding.check_workspace``), then every row is
checked against it (``linksync.sync.stale``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from linksync.api import LinkClient
from linksync.config import Settings
from linksync.model import LinkSpec
from linksync.sync.binding import WorkspaceId, check_sources, raise_unbound, workspace_id
from linksync.sync.options import SyncOptions
from linksync.sync.plan import Plan
from linksync.sync.saved_options import Rebound, options_for_saved

#: Keywords a saved plan has no use for (it is applied as planned), with their flags.
UNUSED: Mapping[str, str] = {
    "ai_slug": "--ai-slug",
    "ai_og": "--ai-og",
    "check_destinations": "--check-destinations",
    "fix_invisible": "--fix-invisible",
    "fix_utm_case": "--fix-utm-case",
}
#: Reading keywords: with sources beside the plan they read them for their passwords;
#: without, they have nothing to read.
READING: Mapping[str, str] = {
    "sheets": "--sheet",
    "mapping": "--map",
    "encoding": "--encoding",
    "date_format": "--date-format",
    "timezone": "--timezone",
    "empty_values": "--empty-value",
    "workbook_password_file": "--workbook-password-file",
    "strict": "--strict",
}


@dataclass(frozen=True, slots=True)
class SavedAsks:
    """What an apply of a saved plan was given: ``options``, the ``SyncOptions``
    fields given (keywords, or the fields of an ``options`` object that differ from the
    defaults), and ``unused``, the flags a saved plan has no use for."""

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


def saved_asks(
    given: Mapping[str, Any], options: SyncOptions | None, *, sources: bool
) -> SavedAsks:
    """``SavedAsks`` from the keywords of ``linksync.apply`` (``given``: every keyword,
    None or empty when not given), its ``options`` object, and whether sources were
    given beside the plan."""
    fields = SyncOptions.__dataclass_fields__
    asked: dict[str, Any] = {}
    if options is not None:
        default = SyncOptions()
        asked = {k: getattr(options, k) for k in fields}
        asked = {k: v for k, v in asked.items() if v != getattr(default, k)}
    asked.update({k: v for k, v in given.items() if k in fields and v is not None})
    unused = [flag for k, flag in UNUSED.items() if given.get(k)]
    if not sources:
        unused += [flag for k, flag in READING.items() if given.get(k)]
    return SavedAsks(asked, tuple(unused))


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
    bound = options_for_saved(plan, asks.options, settings.limits, plan_name=plan_name)
    unused = asks.note()
    return replace(bound, notes=(*bound.notes, unused)) if unused else bound


async def workspace_here(client: LinkClient, settings: Settings) -> WorkspaceId:
    """The workspace ``settings``' target reaches (one request: the organization)."""
    target = settings.target
    db = target.sandbox_db if target.is_sandbox else None
    return await workspace_id(client, target.base_url, sandbox_db=db)
