"""The plan's verdicts: room under the link quota, and the octoDNS-style safety
thresholds (would applying this plan be refused?). Pure: no I/O."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from linksync.model import Action, Problem, RemoteLink, Severity
from linksync.sync.options import SyncOptions

if TYPE_CHECKING:
    from linksync.sync.plan import Change
    from linksync.sync.state import RemoteState


@dataclass(frozen=True, slots=True)
class QuotaNote:
    """Room under the organization's link quota. Creates past the room are still
    attempted (the count may have moved since), but the plan names them and marks each
    excess row with a QUOTA_WOULD_EXCEED warning; the executor stops creating at the
    first QUOTA_EXCEEDED."""

    link_count: int
    link_quota: int
    creates: int

    @property
    def room(self) -> int:
        return max(0, self.link_quota - self.link_count)

    @property
    def excess(self) -> int:
        return max(0, self.creates - self.room)

    def describe(self) -> str:
        base = f"{self.link_count}/{self.link_quota} links used, room for {self.room}"
        if self.excess:
            return f"{base}: {self.excess} of {self.creates} creates will not fit"
        return f"{base}: the {self.creates} creates fit"

    def to_dict(self) -> dict[str, Any]:
        return {
            "link_count": self.link_count,
            "link_quota": self.link_quota,
            "creates": self.creates,
            "room": self.room,
            "excess": self.excess,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> QuotaNote:
        return cls(int(data["link_count"]), int(data["link_quota"]), int(data["creates"]))


@dataclass(frozen=True, slots=True)
class Safety:
    """The octoDNS-style verdict: would applying this plan be refused?"""

    existing: int
    changes: int
    deletes: int
    refused: bool = False
    reason: str | None = None

    @property
    def ratio(self) -> float:
        return self.changes / self.existing if self.existing else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "existing": self.existing,
            "changes": self.changes,
            "deletes": self.deletes,
            "ratio": round(self.ratio, 4),
            "refused": self.refused,
            "reason": self.reason,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Safety:
        return cls(
            int(data["existing"]),
            int(data["changes"]),
            int(data["deletes"]),
            bool(data.get("refused", False)),
            data.get("reason"),
        )


def mark_quota(changes: list[Change], remote: RemoteState) -> list[Change]:
    """Warn on each create past the room left under the link quota (in plan order)."""
    if remote.org is None:
        return changes
    room = max(0, remote.org.link_quota - remote.org.link_count)
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
                ch = replace(ch, problems=(*ch.problems, warning))
        out.append(ch)
    return out


def judge_safety(
    changes: Sequence[Change],
    remote: RemoteState,
    options: SyncOptions,
    in_scope: Callable[[RemoteLink], bool],
) -> Safety:
    """octoDNS-style thresholds on updates+replaces+deletes against existing links.

    Existing links: in mirror mode those in the delete scope; otherwise the links of the
    domains the plan writes to (each domain's total when the fetch learned it).
    """
    updates = sum(1 for c in changes if c.action in (Action.UPDATE, Action.REPLACE))
    deletes = sum(1 for c in changes if c.action is Action.DELETE)
    if options.deletes:
        existing = sum(1 for link in remote.links.values() if in_scope(link))
    else:
        touched = {c.domain for c in changes if c.action in (Action.UPDATE, Action.REPLACE)}
        existing = 0
        for d in sorted(touched):
            total = remote.domain_total(d)
            existing += total if total is not None else len(remote.on_domain(d))
    changed = updates + deletes
    reason = None
    if options.max_deletes is not None and deletes > options.max_deletes:
        reason = f"{deletes} deletes exceed the maximum of {options.max_deletes}"
    elif existing >= max(1, options.min_existing) and changed / existing > options.max_change_ratio:
        reason = (
            f"{changed} updates and deletes touch {changed / existing:.0%} of the "
            f"{existing} existing links, above the {options.max_change_ratio:.0%} limit"
        )
    return Safety(existing, changed, deletes, reason is not None, reason)
