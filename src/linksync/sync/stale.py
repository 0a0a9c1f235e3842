"""Saved plans: refuse (STALE_PLAN) each write whose remote record changed since.

``apply --plan`` fetches the remote state again (by the same cheap strategy as the plan
did) and compares each write's snapshot: a create whose link now exists, an update,
replace or delete whose link is gone or whose ``updatedAt`` moved, is blocked. Every
other change is done exactly as saved. ``read_saved_plan`` reads the file, refusing
anything that is not a saved plan with a usage error.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

from linksync.errors import ConfigError
from linksync.model import Action, LinkSpec, Problem, RemoteLink
from linksync.rules.timestamps import same_instant
from linksync.sync.plan import Change, Plan
from linksync.sync.state import RemoteState


def plan_specs(plan: Plan) -> list[LinkSpec]:
    """The desired links a plan was made from, plus the links it deletes (as specs), so
    fetching them again reads every record the plan touches. A create with a stable slug
    stays a row without slug: its domain is listed, so both a link made meanwhile with
    its slug and one made with its URL are seen."""
    out: list[LinkSpec] = []
    for ch in plan.changes:
        if not ch.is_write:
            continue
        if ch.spec is not None and not ch.spec.slug and ch.action is Action.CREATE:
            out.append(replace(ch.spec, domain=ch.domain))
        elif ch.spec is not None:
            out.append(replace(ch.spec, slug=ch.slug or ch.spec.slug, domain=ch.domain))
        elif ch.slug:
            out.append(LinkSpec(url=None, slug=ch.slug, domain=ch.domain))
    return out


def _why_stale(ch: Change, now: RemoteLink | None, fresh: RemoteState) -> str | None:
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
    if not same_instant(before, now.updated_at):
        return (
            f"{ch.label()} changed since the plan was made (updatedAt {before} -> {now.updated_at})"
        )
    return None


def mark_stale(plan: Plan, fresh: RemoteState) -> Plan:
    """The plan with each stale write blocked by STALE_PLAN (a per-row failure)."""
    changes: list[Change] = []
    for ch in plan.changes:
        if ch.is_write:
            now = fresh.get(ch.domain, ch.slug) if ch.slug else None
            why = _why_stale(ch, now, fresh)
            if why is not None:
                problem = Problem("STALE_PLAN", why, ch.provenance, None)
                ch = replace(ch, problems=(*ch.problems, problem), blocked_by="STALE_PLAN")
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
