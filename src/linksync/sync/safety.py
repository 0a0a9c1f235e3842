"""Reaching the plan's verdicts (``linksync.sync.verdicts``): room under the link quota,
the octoDNS-style safety thresholds (would applying this plan be refused?), and whether
a mirror's sources declared what it would delete (``mirror_refusal``). Pure: no I/O."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from operator import attrgetter, countOf

import msgspec

from linksync.model import Action, Problem, RemoteLink, Severity
from linksync.sync.options import SyncOptions
from linksync.sync.plan import Change
from linksync.sync.state import RemoteState
from linksync.sync.verdicts import QuotaNote, Safety

_ACTION = attrgetter("action")


def mark_quota(changes: Sequence[Change], remote: RemoteState) -> Sequence[Change]:
    """Warn on each create past the room left under the link quota (in plan order)."""
    if remote.org is None:
        return changes
    room = max(0, remote.org.link_quota - remote.org.link_count)
    if countOf(map(_ACTION, changes), Action.CREATE) <= room:
        return changes  # every create fits: nothing to mark
    out: list[Change] = []
    seen = 0
    for ch in changes:
        if ch.action is Action.CREATE:
            seen += 1
            if seen > room:
                warning = Problem(
                    "QUOTA_WOULD_EXCEED",
                    f"create {seen} of the plan; only {room} more links fit under the "
                    f"link quota of {remote.org.link_quota}",
                    ch.provenance,
                    None,
                    Severity.WARNING,
                )
                ch = msgspec.structs.replace(ch, problems=(*ch.problems, warning))
        out.append(ch)
    return out


def quota_note(changes: Sequence[Change], remote: RemoteState) -> QuotaNote | None:
    """The plan's creates against the room under the link quota (None: no quota known)."""
    if remote.org is None:
        return None
    creates = countOf(map(_ACTION, changes), Action.CREATE)  # in C, no list of a million
    return QuotaNote(remote.org.link_count, remote.org.link_quota, creates)


def judge_safety(
    changes: Sequence[Change],
    remote: RemoteState,
    options: SyncOptions,
    in_scope: Callable[[RemoteLink], bool],
) -> Safety:
    """octoDNS-style thresholds on updates+replaces+deletes against existing links (a
    retire, ``linksync.sync.retire``, counts as a delete).

    Existing links: in mirror mode those in the delete scope; otherwise the links of the
    domains the plan writes to (each domain's total when the fetch learned it).
    """
    actions = Counter(map(_ACTION, changes))  # one pass, in C
    if options.deletes:
        existing = sum(1 for link in remote.links.values() if in_scope(link))
    else:
        updating = (Action.UPDATE, Action.REPLACE)
        updates = actions[Action.UPDATE] + actions[Action.REPLACE]
        touched = {c.domain for c in changes if c.action in updating} if updates else set()
        existing = 0
        for d in sorted(touched):
            total = remote.domain_total(d)
            existing += total if total is not None else len(remote.on_domain(d))
    return safety_of(actions, existing, options)


def safety_of(actions: Mapping[Action, int], existing: int, options: SyncOptions) -> Safety:
    """The verdict on changes counted by action (``actions``) against ``existing``
    links: updates and replaces change a link, deletes and retires remove one."""
    updates = actions.get(Action.UPDATE, 0) + actions.get(Action.REPLACE, 0)
    retires = actions.get(Action.RETIRE, 0)
    deletes = retires + actions.get(Action.DELETE, 0)
    changed = updates + deletes
    reason = threshold_reason(existing, changed, deletes, options)
    if reason is not None and retires:
        reason += f" (its {retires} retires count as deletes)"
    return Safety(existing, changed, deletes, reason is not None, reason)


def threshold_reason(existing: int, changed: int, deletes: int, options: SyncOptions) -> str | None:
    """Why ``changed`` updates and deletes (``deletes`` of them) against ``existing``
    links cross the thresholds of ``options``; None when they do not."""
    if options.max_deletes is not None and deletes > options.max_deletes:
        return f"{deletes} deletes exceed the maximum of {options.max_deletes}"
    if existing >= max(1, options.min_existing) and changed / existing > options.max_change_ratio:
        return (
            f"{changed} updates and deletes touch {changed / existing:.0%} of the "
            f"{existing} existing links, above the {options.max_change_ratio:.0%} limit"
        )
    return None


#: A file-level problem of this constant refuses a mirror whatever its severity: the
#: source (a file, a sheet, a folder) declared nothing.
DECLARES_NOTHING = "EMPTY_SOURCE"


def undeclared(file_problems: Iterable[Problem]) -> tuple[Problem, ...]:
    """The file-level problems (``Validation.file_problems``: a source not read, a
    structure not understood, a file a folder skipped) that refuse a mirror: every
    error, and every ``EMPTY_SOURCE`` whatever its severity."""
    return tuple(
        p for p in file_problems if p.severity is Severity.ERROR or p.constant == DECLARES_NOTHING
    )


def mirror_refusal(file_problems: Iterable[Problem]) -> str | None:
    """Why a mirror over sources with these file-level problems plans no delete (None:
    it may). A mirror deletes what its sources do not declare, so a source that was not
    read, or declared nothing, would delete every link it was meant to keep."""
    found = undeclared(file_problems)
    if not found:
        return None
    first = found[0]
    more = f" (and {len(found) - 1} more file-level problems)" if len(found) > 1 else ""
    return (
        f"mirror refused: {first.where()}: {first.constant}: {first.message}{more}; a mirror "
        "deletes only what its sources declare. Fix the source, or declare an empty file "
        "with `links: []`"
    )
