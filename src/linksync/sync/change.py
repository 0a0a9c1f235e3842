"""A plan's records: one ``Change`` per source row (and per delete), and the
``FieldChange`` of each managed field that differs (``linksync.sync.plan`` holds them
in a ``Plan``, and names them too)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import msgspec

from linksync.model import (
    Action,
    LinkKey,
    LinkSpec,
    Problem,
    Provenance,
    RemoteLink,
    Severity,
    plain,
)
from linksync.model.declared import kept_mark
from linksync.model.records import dataclass_compatible
from linksync.safe.secrets import REDACTED

#: Actions that send a write request.
WRITE_ACTIONS: frozenset[Action] = frozenset(
    {Action.CREATE, Action.UPDATE, Action.REPLACE, Action.DELETE, Action.RETIRE}
)


@dataclass(frozen=True, slots=True)
class FieldChange:
    """One managed field that differs: old (remote) -> new (desired). Python names."""

    field: str
    old: Any
    new: Any

    def to_dict(self) -> dict[str, Any]:
        if self.field == "password":  # "***", or where it is read from: never the value
            return {"field": "password", "old": None, "new": kept_mark(self.new)}
        out = {"field": self.field, "old": plain(self.old), "new": plain(self.new)}
        if self.field == "tags":
            added, removed = tags_added_removed(self.old, self.new)
            out["added"], out["removed"] = list(added), list(removed)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FieldChange:
        old, new = data.get("old"), data.get("new")
        return cls(str(data["field"]), _tuple_if_list(old), _tuple_if_list(new))


def _tuple_if_list(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def tags_added_removed(old: Any, new: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The tags ``new`` adds to ``old`` and those it removes, each in its own order."""
    before, after = tuple(old or ()), tuple(new or ())
    return (
        tuple(t for t in after if t not in before),
        tuple(t for t in before if t not in after),
    )


#: The payload of a change that sends nothing: one shared, read-only mapping.
NO_PAYLOAD: Mapping[str, Any] = MappingProxyType({})


@dataclass_compatible
class Change(msgspec.Struct, frozen=True, gc=False):
    """What the plan does with one row (or one remote link, for a delete).

    ``domain`` and ``slug`` are the link's identity (``slug`` is None for a create the
    service names). ``payload`` is the create body (create, replace) or the PATCH body
    (update), in wire names. ``remote`` is the remote record the change was planned
    against (its ``updated_at`` guards a saved plan). ``blocked_by`` names the constant
    that stops a planned write (STALE_PLAN); ``reason`` explains a skip. ``notes``: what
    the row should say beside its changes (a password changed since the last run from
    this machine; fields its empty cells leave as on the service).

    A compact record (a ``msgspec.Struct`` that ``dataclasses.replace`` still copies):
    a plan holds one per row, made fast and not tracked by the garbage collector (what
    it holds never holds it).
    """

    action: Action
    domain: str
    slug: str | None
    index: int
    spec: LinkSpec | None = None
    remote: RemoteLink | None = None
    fields: tuple[FieldChange, ...] = ()
    payload: Mapping[str, Any] = NO_PAYLOAD
    problems: tuple[Problem, ...] = ()
    reason: str | None = None
    blocked_by: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def key(self) -> LinkKey | None:
        """The link's identity (None for a create the service names)."""
        return LinkKey.of(self.domain, self.slug) if self.slug else None

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
        """'go.example.com/spring' or 'go.example.com/(generated)' ('(row not read)' for
        a row skipped unread: a hidden row)."""
        if not self.domain and self.slug is None:
            return "(row not read)"
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
            "spec": self.spec.to_dict() if self.spec is not None else None,
            "remote": self.remote.to_dict() if self.remote is not None else None,
            "fields": [f.to_dict() for f in self.fields],
            "payload": plain(payload),
            "problems": [p.to_dict() for p in self.problems],
            "reason": self.reason,
            "blocked_by": self.blocked_by,
            "notes": list(self.notes),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Change:
        return cls(
            action=Action(data["action"]),
            domain=str(data["domain"]),
            slug=data.get("slug"),
            index=int(data["index"]),
            spec=LinkSpec.from_dict(data["spec"]) if data.get("spec") else None,
            remote=RemoteLink.from_dict(data["remote"]) if data.get("remote") else None,
            fields=tuple(FieldChange.from_dict(f) for f in data.get("fields") or ()),
            payload=dict(data.get("payload") or {}),
            problems=tuple(Problem.from_dict(p) for p in data.get("problems") or ()),
            reason=data.get("reason"),
            blocked_by=data.get("blocked_by"),
            notes=tuple(str(n) for n in data.get("notes") or ()),
        )
