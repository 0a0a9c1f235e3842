"""Saved plans: refuse (STALE_PLAN) each row whose remote record changed since.

``apply --plan`` fetches the remote state again (by the same cheap strategy as the plan
did) for every row of the plan, unchanged and skipped rows included, and compares each
row's snapshot: a create (or a row skipped because its link did not exist) whose link
now exists; an update, replace, delete, unchanged or skipped row whose link is gone,
whose ``updatedAt`` moved, or whose compared fields now differ from what the plan saw.
Such a row is blocked: not written, a failed row of the run (exit 1). Every other change
is done exactly as saved. A row skipped because ``ignore:`` names its link is not
checked: people may change that link at any time; nor is the ``updatedAt`` of an update
or unchanged row with fields left to people (``ignore_changes``), whose compared fields
alone decide (a replace carries the link's values of them, so its ``updatedAt`` counts).
A write whose link already is what the plan makes it (a create or update whose link
now has the planned values, a delete whose link is gone, a retire done) is not stale
but done: ``unchanged``, with a note, and nothing is sent, so applying the same plan
again (a retried merge job, or one cut short halfway) converges.
``read_saved_plan`` reads the file, refusing anything that is not a saved plan with a
usage error.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import msgspec

from linksync.errors import ConfigError
from linksync.model import Action, LinkSpec, Problem, RemoteLink
from linksync.rules.timestamps import same_instant
from linksync.sync.compare import compare
from linksync.sync.ignoring import ignored_fields
from linksync.sync.options import SyncOptions
from linksync.sync.plan import NO_PAYLOAD, Change, Plan
from linksync.sync.retire import retire_fields
from linksync.sync.state import RemoteState

#: Rows checked against the workspace: every row the plan decided on a remote record
#: (or on its absence). Invalid rows fail anyway; blocked rows are failed already.
CHECKED: frozenset[Action] = frozenset(
    {
        Action.CREATE,
        Action.UPDATE,
        Action.REPLACE,
        Action.DELETE,
        Action.RETIRE,
        Action.UNCHANGED,
        Action.SKIP,
    }
)


def _checked(ch: Change) -> bool:
    return ch.action in CHECKED and ch.blocked_by is None


def plan_specs(plan: Plan) -> list[LinkSpec]:
    """The desired links a plan was made from (every row it checks: unchanged and
    skipped rows too), plus the links it deletes (as specs), so fetching them again
    reads every record the plan saw. A create with a stable slug stays a row without
    slug: its domain is listed, so both a link made meanwhile with its slug and one made
    with its URL are seen."""
    out: list[LinkSpec] = []
    for ch in plan.changes:
        if not _checked(ch):
            continue
        if ch.spec is not None and not ch.spec.slug and ch.action is Action.CREATE:
            out.append(msgspec.structs.replace(ch.spec, domain=ch.domain))
        elif ch.spec is not None:
            spec = ch.spec
            out.append(msgspec.structs.replace(spec, slug=ch.slug or spec.slug, domain=ch.domain))
        elif ch.slug:
            out.append(LinkSpec(url=None, slug=ch.slug, domain=ch.domain))
    return out


def _why_stale(
    ch: Change, now: RemoteLink | None, fresh: RemoteState, options: SyncOptions
) -> str | None:
    if ch.remote is None and ch.action is Action.SKIP:
        # Skipped because the link did not exist (update-only): stale when it does now.
        return f"{ch.label()} was created since the plan was made" if now is not None else None
    if ch.action is Action.CREATE:
        if now is not None:
            return f"{ch.label()} was created since the plan was made"
        if ch.spec is not None and not ch.spec.slug and ch.spec.url:
            url = ch.spec.url.strip()
            if fresh.with_url(ch.domain, url):
                return f"a link to {url} was created on {ch.domain} since the plan was made"
        return None
    if now is None:
        return f"{ch.label()} was deleted since the plan was made"
    before = ch.remote.updated_at if ch.remote is not None else None
    if not same_instant(before, now.updated_at) and not _left_to_people(ch, options):
        return (
            f"{ch.label()} changed since the plan was made (updatedAt {before} -> {now.updated_at})"
        )
    if ch.spec is not None and ch.remote is not None:
        # What the row would change now against what it changed then (a service that
        # does not move updatedAt on every edit is still caught).
        then = set(compare(ch.spec, ch.remote, options).fields)
        moved = sorted({f.field for f in then ^ set(compare(ch.spec, now, options).fields)})
        if moved:
            return f"{ch.label()} changed since the plan was made ({', '.join(moved)})"
    return None


def _left_to_people(ch: Change, options: SyncOptions) -> bool:
    """An update or unchanged row with fields left to people (``ignore_changes``): a
    moved ``updatedAt`` alone is someone's edit of them; the compared fields decide."""
    return (
        ch.action in (Action.UPDATE, Action.UNCHANGED)
        and ch.spec is not None
        and bool(ignored_fields(ch.spec, options))
    )


#: The note of a write found done already: nothing is sent for it.
ALREADY_APPLIED = "already applied: the link is as this plan makes it; nothing sent"
ALREADY_DELETED = "already applied: the link is gone; nothing sent"


def _done(
    ch: Change, now: RemoteLink | None, fresh: RemoteState, options: SyncOptions
) -> Change | None:
    """``ch`` as an ``unchanged`` row when the workspace already holds what it writes
    (an earlier apply of the plan did it); None when it does not."""
    if ch.action is Action.DELETE:
        return _unchanged(ch, ch.remote, ALREADY_DELETED) if now is None else None
    if ch.action is Action.RETIRE:
        url = options.retire_to
        if now is None or url is None or retire_fields(now, url, options):
            return None
        return _unchanged(ch, now, ALREADY_APPLIED)
    if ch.action not in (Action.CREATE, Action.UPDATE, Action.REPLACE) or ch.spec is None:
        return None
    spec = ch.spec
    if now is not None:
        held = [now]
    elif ch.action is Action.CREATE and ch.slug is None and spec.url:
        held = fresh.with_url(ch.domain, spec.url.strip())  # a slug the service picked
    else:
        held = []
    link = next((x for x in held if compare(spec, x, options).same), None)
    return _unchanged(ch, link, ALREADY_APPLIED) if link is not None else None


def _unchanged(ch: Change, link: RemoteLink | None, note: str) -> Change:
    slug = link.slug if link is not None else ch.slug
    return msgspec.structs.replace(
        ch,
        action=Action.UNCHANGED,
        slug=slug,
        remote=link,
        fields=(),
        payload=NO_PAYLOAD,
        notes=(*ch.notes, note),
    )


def mark_stale(plan: Plan, fresh: RemoteState) -> Plan:
    """The plan with each stale row blocked by STALE_PLAN (a per-row failure): writes,
    and the unchanged and skipped rows the plan decided on what it saw."""
    changes: list[Change] = []
    left_alone = plan.ignored.keys()  # ignore: people may edit those links at any time
    for ch in plan.changes:
        if _checked(ch) and (ch.domain, (ch.slug or "").lower()) not in left_alone:
            now = fresh.get(ch.domain, ch.slug) if ch.slug else None
            why = _why_stale(ch, now, fresh, plan.options)
            done = _done(ch, now, fresh, plan.options) if why is not None else None
            if done is not None:
                ch = done
            elif why is not None:
                problem = Problem("STALE_PLAN", why, ch.provenance, None)
                ch = msgspec.structs.replace(
                    ch, problems=(*ch.problems, problem), blocked_by="STALE_PLAN"
                )
        changes.append(ch)
    return replace(plan, changes=tuple(changes))


def read_saved_plan(path: str | os.PathLike[str]) -> Plan:
    """The plan saved at ``path`` by ``plan --out``; ``ConfigError`` (a usage error, before
    any request) when the file cannot be read or is not a saved plan."""
    shown = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read the saved plan {shown}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{shown} is not a saved plan: not UTF-8 text") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ConfigError(f"{shown} is not a saved plan: not JSON ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("changes"), list):
        raise ConfigError(
            f"{shown} is not a saved plan: expected a JSON object with a list of changes, "
            "as `linksync plan --out FILE` writes"
        )
    try:
        return Plan.from_dict(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        detail = f"{type(exc).__name__}: {exc}"
        raise ConfigError(
            f"{shown} is not a saved plan of this linksync version ({detail})"
        ) from None
