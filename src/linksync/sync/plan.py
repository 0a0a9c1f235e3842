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
from typing import Any

from linksync.model import Action, LinkSpec, Problem, Provenance, RemoteLink, Severity
from linksync.sync.options import SyncOptions

PLAN_FORMAT = 1
REDACTED = "***"

#: Actions that send a write request.
WRITE_ACTIONS: frozenset[Action] = frozenset(
    {Action.CREATE, Action.UPDATE, Action.REPLACE, Action.DELETE}
)


@dataclass(frozen=True, slots=True)
class FieldChange:
    """One managed field that differs: old (remote) -> new (desired). Python names."""

    field: str
    old: Any
    new: Any

    def to_dict(self) -> dict[str, Any]:
        if self.field == "password":
            return {"field": "password", "old": None, "new": REDACTED}
        return {"field": self.field, "old": _plain(self.old), "new": _plain(self.new)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FieldChange:
        old, new = data.get("old"), data.get("new")
        return cls(str(data["field"]), _tuple_if_list(old), _tuple_if_list(new))


@dataclass(frozen=True, slots=True)
class Change:
    """What the plan does with one row (or one remote link, for a delete).

    ``domain`` and ``slug`` are the link's identity (``slug`` is None for a create the
    service names). ``payload`` is the create body (create, replace) or the PATCH body
    (update), in wire names. ``remote`` is the remote record the change was planned
    against (its ``updated_at`` guards a saved plan). ``blocked_by`` names the constant
    that stops a planned write (STALE_PLAN); ``reason`` explains a skip.
    """

    action: Action
    domain: str
    slug: str | None
    index: int
    spec: LinkSpec | None = None
    remote: RemoteLink | None = None
    fields: tuple[FieldChange, ...] = ()
    payload: Mapping[str, Any] = field(default_factory=dict)
    problems: tuple[Problem, ...] = ()
    reason: str | None = None
    blocked_by: str | None = None

    @property
    def key(self) -> tuple[str, str | None]:
        return (self.domain, self.slug.lower() if self.slug else None)

    @property
    def is_write(self) -> bool:
        return self.action in WRITE_ACTIONS and self.blocked_by is None

    @property
    def changed_fields(self) -> tuple[str, ...]:
        return tuple(f.field for f in self.fields)

    @property
    def provenance(self) -> Provenance | None:
        return self.spec.provenance if self.spec is not None else None

    @property
    def error(self) -> Problem | None:
        """The first error-severity problem (what the report names), if any."""
        return next((p for p in self.problems if p.severity is Severity.ERROR), None)

    def label(self) -> str:
        """'go.example.com/spring' or 'go.example.com/(generated)'."""
        return f"{self.domain}/{self.slug or '(generated)'}"

    def to_dict(self) -> dict[str, Any]:
        payload = dict(self.payload)
        if payload.get("password") is not None:
            payload["password"] = REDACTED
        return {
            "action": self.action.value,
            "domain": self.domain,
            "slug": self.slug,
            "index": self.index,
            "spec": _spec_to_dict(self.spec) if self.spec is not None else None,
            "remote": self.remote.to_dict() if self.remote is not None else None,
            "fields": [f.to_dict() for f in self.fields],
            "payload": _plain(payload),
            "problems": [_problem_to_dict(p) for p in self.problems],
            "reason": self.reason,
            "blocked_by": self.blocked_by,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Change:
        return cls(
            action=Action(data["action"]),
            domain=str(data["domain"]),
            slug=data.get("slug"),
            index=int(data["index"]),
            spec=_spec_from_dict(data["spec"]) if data.get("spec") else None,
            remote=remote_from_dict(data["remote"]) if data.get("remote") else None,
            fields=tuple(FieldChange.from_dict(f) for f in data.get("fields") or ()),
            payload=dict(data.get("payload") or {}),
            problems=tuple(_problem_from_dict(p) for p in data.get("problems") or ()),
            reason=data.get("reason"),
            blocked_by=data.get("blocked_by"),
        )


@dataclass(frozen=True, slots=True)
class DomainFetch:
    """How the links of one domain were fetched: ``list`` (every page), ``read`` (each
    desired slug by itself), or ``none`` (nothing needed). ``total`` is the domain's link
    count when known; ``requests`` what the fetch cost."""

    domain: str
    strategy: str
    requests: int
    total: int | None = None
    links: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "domain": self.domain,
            "strategy": self.strategy,
            "requests": self.requests,
            "total": self.total,
            "links": self.links,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DomainFetch:
        return cls(
            str(data["domain"]),
            str(data["strategy"]),
            int(data["requests"]),
            data.get("total"),
            int(data.get("links", 0)),
        )


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


@dataclass(frozen=True, slots=True)
class Plan:
    """Every change, in order, plus how the remote state was read and what it cost."""

    changes: tuple[Change, ...]
    options: SyncOptions
    fetches: tuple[DomainFetch, ...] = ()
    requests: int = 0
    quota: QuotaNote | None = None
    safety: Safety = Safety(0, 0, 0)
    target: str | None = None

    @property
    def counts(self) -> dict[str, int]:
        """Changes by action (every action present, zero when absent)."""
        c = Counter(ch.action.value for ch in self.changes)
        return {a.value: c.get(a.value, 0) for a in Action}

    @property
    def writes(self) -> tuple[Change, ...]:
        return tuple(ch for ch in self.changes if ch.is_write)

    @property
    def has_changes(self) -> bool:
        """True when applying would send at least one write."""
        return any(ch.is_write for ch in self.changes)

    @property
    def invalid(self) -> tuple[Change, ...]:
        return tuple(ch for ch in self.changes if ch.action is Action.INVALID)

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
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, indent=indent, ensure_ascii=False)

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
        )

    @classmethod
    def from_json(cls, text: str) -> Plan:
        return cls.from_dict(json.loads(text))

    def needs_passwords(self) -> tuple[Change, ...]:
        """Writes whose payload lost its password in JSON (see ``restore_passwords``)."""
        return tuple(
            ch for ch in self.changes if ch.is_write and ch.payload.get("password") == REDACTED
        )


def restore_passwords(plan: Plan, specs: Iterable[LinkSpec]) -> Plan:
    """Put the passwords of ``specs`` back into a saved plan's payloads.

    Rows are matched by provenance (source, sheet, row). A row whose password cannot be
    found keeps ``"***"`` and the executor refuses it rather than send that.
    """
    by_place: dict[tuple[str, str | None, int | None], str] = {}
    for given in specs:
        if given.password is not None and given.provenance is not None:
            by_place[_place(given.provenance)] = given.password
    changes: list[Change] = []
    for ch in plan.changes:
        prov = ch.provenance
        if ch.payload.get("password") == REDACTED and prov is not None:
            secret = by_place.get(_place(prov))
            if secret is not None:
                payload = dict(ch.payload)
                payload["password"] = secret
                restored = replace(ch.spec, password=secret) if ch.spec is not None else None
                ch = replace(ch, payload=payload, spec=restored)
        changes.append(ch)
    return replace(plan, changes=tuple(changes))


def _place(p: Provenance) -> tuple[str, str | None, int | None]:
    return (p.source, p.sheet, p.row)


# --- JSON helpers -------------------------------------------------------------------


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list | frozenset | set):
        items = [_plain(v) for v in value]
        return sorted(items) if isinstance(value, frozenset | set) else items
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def _tuple_if_list(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _provenance_to_dict(p: Provenance) -> dict[str, Any]:
    return {"source": p.source, "sheet": p.sheet, "row": p.row, "columns": dict(p.columns)}


def _provenance_from_dict(d: Mapping[str, Any]) -> Provenance:
    return Provenance(
        source=str(d["source"]),
        sheet=d.get("sheet"),
        row=d.get("row"),
        columns=dict(d.get("columns") or {}),
    )


def _spec_to_dict(spec: LinkSpec) -> dict[str, Any]:
    return {
        "url": spec.url,
        "slug": spec.slug,
        "domain": spec.domain,
        "description": spec.description,
        "tags": list(spec.tags) if spec.tags is not None else None,
        "password": REDACTED if spec.password is not None else None,
        "expires_at": spec.expires_at,
        "apple": spec.apple,
        "google": spec.google,
        "managed": sorted(spec.managed),
        "provenance": _provenance_to_dict(spec.provenance) if spec.provenance else None,
    }


def _spec_from_dict(d: Mapping[str, Any]) -> LinkSpec:
    tags = d.get("tags")
    return LinkSpec(
        url=d.get("url"),
        slug=d.get("slug"),
        domain=d.get("domain"),
        description=d.get("description"),
        tags=tuple(tags) if tags is not None else None,
        password=d.get("password"),
        expires_at=d.get("expires_at"),
        apple=d.get("apple"),
        google=d.get("google"),
        managed=frozenset(d.get("managed") or ()),
        provenance=_provenance_from_dict(d["provenance"]) if d.get("provenance") else None,
    )


def remote_from_dict(d: Mapping[str, Any]) -> RemoteLink:
    """A RemoteLink from its ``to_dict`` (wire names)."""
    return RemoteLink(
        domain=str(d["domain"]),
        slug=str(d["slug"]),
        url=str(d.get("url") or ""),
        id=d.get("id"),
        short_url=d.get("shortUrl"),
        description=d.get("description"),
        tags=tuple(d.get("tags") or ()),
        apple=d.get("apple"),
        google=d.get("google"),
        has_password=bool(d.get("hasPassword", False)),
        expires_at=d.get("expiresAt"),
        created_at=d.get("createdAt"),
        updated_at=d.get("updatedAt"),
    )


def _problem_to_dict(p: Problem) -> dict[str, Any]:
    return {
        "constant": p.constant,
        "message": p.message,
        "field": p.field,
        "severity": p.severity.value,
        "provenance": _provenance_to_dict(p.provenance) if p.provenance else None,
    }


def _problem_from_dict(d: Mapping[str, Any]) -> Problem:
    return Problem(
        constant=str(d["constant"]),
        message=str(d.get("message") or ""),
        provenance=_provenance_from_dict(d["provenance"]) if d.get("provenance") else None,
        field=d.get("field"),
        severity=Severity(d.get("severity", "error")),
    )


def sort_changes(changes: Sequence[Change]) -> tuple[Change, ...]:
    """Source rows in source order, then deletes by (domain, slug)."""
    return tuple(
        sorted(
            changes,
            key=lambda c: (
                c.action is Action.DELETE,
                c.index if c.action is not Action.DELETE else 0,
                c.domain,
                (c.slug or "").lower(),
            ),
        )
    )
