"""The plan's verdicts, as values a plan carries: room under the link quota
(``QuotaNote``), the octoDNS-style safety verdict (``Safety``) and the links left alone
by ``ignore:`` (``Ignored``, found by ``linksync.sync.ignoring``). ``linksync.sync.safety``
reaches them from the changes and the remote state; this module imports only the
standard library, so the plan can hold them without importing what judges them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any


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
        if self.creates == 1:
            return f"{base}: the 1 create fits"
        return f"{base}: the {self.creates} creates fit"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "room": self.room, "excess": self.excess}

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


@dataclass(frozen=True, slots=True)
class Ignored:
    """Links the plan leaves alone because an ``ignore:`` entry names them, as
    (domain, slug, entry): the rows that declare one (skipped) and the links a mirror
    would have deleted. Neither is a change: they never make a plan non-empty."""

    links: tuple[tuple[str, str, str], ...] = ()

    @property
    def count(self) -> int:
        return len(self.links)

    def keys(self) -> frozenset[tuple[str, str]]:
        """(domain, slug folded) of each link left alone."""
        return frozenset((d, s.lower()) for d, s, _ in self.links)

    def describe(self) -> str:
        """'3 links left alone by ignore: promo-* (2), tag: frozen (1); neither updated
        nor deleted'."""
        by: dict[str, int] = {}
        for _, _, entry in self.links:
            by[entry] = by.get(entry, 0) + 1
        noun = "link" if self.count == 1 else "links"
        each = ", ".join(f"{entry} ({n})" for entry, n in by.items())
        return f"{self.count} {noun} left alone by ignore: {each}; neither updated nor deleted"

    def to_dict(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "links": [{"domain": d, "slug": s, "entry": e} for d, s, e in self.links],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ignored:
        links = data.get("links") or ()
        return cls(tuple((str(x["domain"]), str(x["slug"]), str(x["entry"])) for x in links))
