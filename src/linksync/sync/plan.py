"""The plan: a value holding one change per source row (and per delete).

A ``Plan`` is what ``linksync plan`` shows and what ``linksync apply`` executes. It is
deterministic (source rows in source order, then deletes by domain and slug), carries its
counts, how the remote state was fetched and what it cost, the quota note and the safety
verdict, and round-trips through stable JSON (``to_dict`` / ``from_dict``, sorted keys).

Each ``Change`` carries the exact request body it will send (``payload``, wire names), so
a saved plan does exactly what it showed. Link passwords are never written to JSON: they
are replaced by ``"***"`` and restored from the sources when a saved plan is applied
(``restore_passwords``).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from operator import attrgetter
from typing import Any

import msgspec

from linksync.model import Action, LinkSpec, Place, Problem
from linksync.safe.secrets import REDACTED
from linksync.sync.binding import SourceDigest, WorkspaceId
from linksync.sync.change import NO_PAYLOAD as NO_PAYLOAD
from linksync.sync.change import WRITE_ACTIONS as WRITE_ACTIONS
from linksync.sync.change import Change as Change
from linksync.sync.change import FieldChange as FieldChange
from linksync.sync.change import tags_added_removed as tags_added_removed
from linksync.sync.jsontext import readable
from linksync.sync.options import SyncOptions
from linksync.sync.partial import Partial
from linksync.sync.quiet import PlanChanges
from linksync.sync.state import DomainFetch
from linksync.sync.verdicts import Ignored, QuotaNote, Safety

PLAN_FORMAT = 1


@dataclass(frozen=True, slots=True)
class Unmanaged:
    """Links the plan leaves alone because no file declares them and they are outside
    the scope (every undeclared link when no scope is given): ``links`` as (domain,
    slug). Only domains read in full can be counted: ``domains`` names them (a domain
    read slug by slug shows only the declared links)."""

    links: tuple[tuple[str, str], ...] = ()
    domains: tuple[str, ...] = ()
    #: Why nothing was counted, when the plan read only some links by design.
    why_not: str = ""

    @property
    def count(self) -> int:
        return len(self.links)

    def describe(self) -> str:
        if not self.domains:
            return f"not counted ({self.why_not or 'no domain was listed in full'})"
        where = ", ".join(self.domains)
        noun = "link" if self.count == 1 else "links"
        return f"{self.count} {noun} in no file and outside the scope (counted on {where})"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "count": self.count,
            "domains": list(self.domains),
            "links": [{"domain": d, "slug": s} for d, s in self.links],
        }
        return {**out, "why_not": self.why_not} if self.why_not else out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Unmanaged:
        links = tuple((str(x["domain"]), str(x["slug"])) for x in data.get("links") or ())
        why = str(data.get("why_not") or "")
        return cls(links, tuple(str(d) for d in data.get("domains") or ()), why)


@dataclass(frozen=True, slots=True, repr=False)
class Plan:
    """Every change, in order, plus how the remote state was read and what it cost,
    and the links it leaves alone (``unmanaged``). A plan of ``linksync.plan`` also
    records the ``workspace`` it was made for and its ``sources`` (their digests), which
    ``apply`` checks before applying it (``linksync.sync.binding``).

    ``changes`` is a tuple, or for a plan of ``linksync.sync.diff`` a ``PlanChanges``:
    the rows that plan nothing and say nothing are held compactly there, and a
    ``Change`` is made for one only as ``changes`` is read (``linksync.sync.quiet``).
    What only counts them, or walks the changes that do or say something, reads
    ``listed`` and ``quiet``."""

    changes: Sequence[Change]
    options: SyncOptions
    fetches: tuple[DomainFetch, ...] = ()
    requests: int = 0
    quota: QuotaNote | None = None
    safety: Safety = field(default_factory=lambda: Safety(0, 0, 0))
    target: str | None = None
    unmanaged: Unmanaged = field(default_factory=Unmanaged)
    workspace: WorkspaceId | None = None
    sources: tuple[SourceDigest, ...] = ()
    #: Warnings of the plan as a whole, of no row (an owner tag nobody carries).
    problems: tuple[Problem, ...] = ()
    #: The links ``ignore:`` entries left alone (``linksync.sync.ignoring``).
    ignored: Ignored = field(default_factory=Ignored)
    #: A plan of the links changed since a git ref only (``linksync.sync.partial``).
    partial: Partial | None = None
    #: An undo's plan: the run id it undoes (its journal's ``start`` says so).
    undoes: str | None = None
    #: The options that shape a plan as the config file's profile gave them when it was
    #: made (JSON forms; None: not recorded), which an apply compares with the profile's
    #: now (``linksync.sync.saved_options.config_conflicts``).
    config: Mapping[str, Any] | None = None
    #: ``counts``, made on first use (a plan of a million rows is counted once)
    _counts: dict[str, int] | None = field(default=None, init=False, repr=False, compare=False)

    def __repr__(self) -> str:
        # Short, as ``Results``'s: a plan is the result of ``asyncio.run`` too.
        return f"Plan(changes={len(self.changes)}, target={self.target!r})"

    @property
    def listed(self) -> Sequence[Change]:
        """Every change but the ``quiet`` rows, in plan order."""
        changes = self.changes
        return changes.listed if isinstance(changes, PlanChanges) else changes

    @property
    def quiet(self) -> int:
        """How many rows plan nothing and say nothing (an ``unchanged`` change with no
        note, no problem) and are held compactly, not in ``listed``."""
        changes = self.changes
        return len(changes.quiet) if isinstance(changes, PlanChanges) else 0

    @property
    def counts(self) -> dict[str, int]:
        """Changes by action (every action present, zero when absent)."""
        if self._counts is None:
            c = Counter(map(attrgetter("action"), self.listed))  # one pass, in C
            c[Action.UNCHANGED] += self.quiet
            object.__setattr__(self, "_counts", {a.value: c.get(a, 0) for a in Action})
        return dict(self._counts or {})

    def _may_write(self) -> bool:
        """Some change has a write action (its counts, made once, tell without a walk)."""
        counts = self.counts
        return any(counts[a.value] for a in WRITE_ACTIONS)

    @property
    def writes(self) -> tuple[Change, ...]:
        if not self._may_write():
            return ()
        return tuple(ch for ch in self.listed if ch.is_write)

    @property
    def has_changes(self) -> bool:
        """True when applying would send at least one write."""
        return self._may_write() and any(ch.is_write for ch in self.listed)

    @property
    def invalid(self) -> tuple[Change, ...]:
        if not self.counts[Action.INVALID.value]:
            return ()
        return tuple(ch for ch in self.listed if ch.action is Action.INVALID)

    @property
    def refused(self) -> bool:
        return self.safety.refused and not self.options.force

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": PLAN_FORMAT,
            "target": self.target,
            "options": self.options.to_dict(),
            "counts": self.counts,
            "fetches": [f.to_dict() for f in self.fetches],
            "requests": self.requests,
            "quota": self.quota.to_dict() if self.quota is not None else None,
            "safety": self.safety.to_dict(),
            "changes": [ch.to_dict() for ch in self.changes],
            "unmanaged": self.unmanaged.to_dict(),
            "workspace": self.workspace.to_dict() if self.workspace is not None else None,
            "sources": [s.to_dict() for s in self.sources],
            "problems": [p.to_dict() for p in self.problems],
            "ignored": self.ignored.to_dict(),
            "partial": self.partial.to_dict() if self.partial is not None else None,
            "config": dict(self.config) if self.config is not None else None,
        }

    def to_json(self) -> str:
        """The plan file: indented, one change per line (``linksync.sync.jsontext``)."""
        return readable(self.to_dict())

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Plan:
        fmt = data.get("format")
        if fmt != PLAN_FORMAT:
            raise ValueError(f"unsupported plan format {fmt!r} (expected {PLAN_FORMAT})")
        return cls(
            changes=tuple(Change.from_dict(c) for c in data.get("changes") or ()),
            options=SyncOptions.from_dict(dict(data.get("options") or {})),
            fetches=tuple(DomainFetch.from_dict(f) for f in data.get("fetches") or ()),
            requests=int(data.get("requests", 0)),
            quota=QuotaNote.from_dict(data["quota"]) if data.get("quota") else None,
            safety=Safety.from_dict(data["safety"]) if data.get("safety") else Safety(0, 0, 0),
            target=data.get("target"),
            unmanaged=Unmanaged.from_dict(data.get("unmanaged") or {}),
            workspace=WorkspaceId.from_dict(data["workspace"]) if data.get("workspace") else None,
            sources=tuple(SourceDigest.from_dict(s) for s in data.get("sources") or ()),
            problems=tuple(Problem.from_dict(p) for p in data.get("problems") or ()),
            ignored=Ignored.from_dict(data.get("ignored") or {}),
            partial=Partial.from_dict(data["partial"]) if data.get("partial") else None,
            config=dict(data["config"]) if isinstance(data.get("config"), Mapping) else None,
        )

    @classmethod
    def from_json(cls, text: str) -> Plan:
        return cls.from_dict(json.loads(text))


def restore_passwords(plan: Plan, specs: Iterable[LinkSpec]) -> Plan:
    """Put the passwords of ``specs`` back into a saved plan's payloads.

    Rows are matched by provenance (source, sheet, row). A row whose password cannot be
    found keeps ``"***"`` and the executor refuses it rather than send that.
    """
    by_place: dict[Place, str] = {}
    for given in specs:
        if given.password is not None and given.provenance is not None:
            by_place[given.provenance.place] = given.password
    changes: list[Change] = []
    for ch in plan.changes:
        prov = ch.provenance
        if ch.payload.get("password") == REDACTED and prov is not None:
            secret = by_place.get(prov.place)
            if secret is not None:
                payload = dict(ch.payload)
                payload["password"] = secret
                spec = ch.spec
                restored = msgspec.structs.replace(spec, password=secret) if spec else None
                ch = msgspec.structs.replace(ch, payload=payload, spec=restored)
        changes.append(ch)
    return replace(plan, changes=tuple(changes))


def sort_changes(changes: Sequence[Change]) -> tuple[Change, ...]:
    """Source rows in source order, then deletes (changes of no row: deletes, and
    deletes refused) by (domain, slug). Rows already in order (as the diff makes them)
    are kept as they are: only what follows them is sorted."""
    rows, last = 0, -1
    for ch in changes:
        if ch.spec is None or ch.index <= last:
            break
        rows, last = rows + 1, ch.index
    if rows == len(changes):
        return tuple(changes)  # every change a row, in order: no slice of a million
    rest = changes[rows:]
    if all(ch.spec is None for ch in rest):
        return (*changes[:rows], *sorted(rest, key=_order))
    return tuple(sorted(changes, key=_order))


def _order(c: Change) -> tuple[bool, int, str, str]:
    return (c.spec is None, c.index if c.spec is not None else 0, c.domain, (c.slug or "").lower())
