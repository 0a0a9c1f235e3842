"""The reverse of a run: the plan that sets back what a run wrote. Pure: no I/O.

A run's journal holds, for each link it wrote, what the link held before and what the
run left (``linksync.sync.history.WrittenRow``). ``reverse_plan`` turns them, and the
links as the workspace holds them now, into an ordinary ``Plan`` (shown, confirmed,
journalled and reported as any other):

- a link the run created is deleted;
- the fields the run updated (a retire's URL, tags, iOS and Android targets included)
  are set back to what they were; a password that was set cannot be set back (the
  service never returns it): the row says so, and a password the run added is removed;
- a link the run deleted is created again with the fields it had (not its password:
  said on the row); one whose expiry has passed since cannot be, and is named;
- a link the run replaced (a new expiry) is replaced back (a delete, then a create).

A link that changed since the run (a field the run wrote differs now, or its
``updatedAt`` moved; deleted, or made again) is never overwritten: it is a ``skip``,
"changed since the run: left as it is", naming what moved. A link the run updated after
another writer made it meanwhile (its values before are not known) is left too.

The reverse plan's own journal records what it wrote as every run's does, so an undo
can be undone, which brings the first run's result back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from linksync.model import Action, RemoteLink
from linksync.model.links import FIELD_FROM_API
from linksync.rules.timestamps import parse_iso, same_instant
from linksync.sync.history import WrittenRow
from linksync.sync.journal import STATE_FIELDS, link_state
from linksync.sync.options import SyncOptions
from linksync.sync.plan import Change, FieldChange, Plan, Unmanaged
from linksync.sync.state import RemoteState

#: A field a journal records (wire name) -> its name in a plan's field changes.
FIELD_NAMES: Mapping[str, str] = FIELD_FROM_API | {"hasPassword": "password"}
#: The fields a create sends back (wire names), beside the slug and the domain.
_CREATE_FIELDS = ("url", "description", "tags", "apple", "google", "expiresAt")

#: The skip of a row, with why (``_Reverser.change``).
Skip = Callable[[str], Change]

CHANGED = "changed since the run: left as it is"
NO_PASSWORD = "a password cannot be set back (the service never returns one)"


def _same(name: str, a: Any, b: Any) -> bool:
    """Two values of field ``name`` as the service holds them: tags as sets, times as
    instants, an empty value as none."""
    if name == "tags":
        return set(a or ()) == set(b or ())
    if name == "expiresAt":
        return same_instant(a, b)
    return (a or None) == (b or None)


def changed_since(after: Mapping[str, Any], now: RemoteLink) -> str | None:
    """What moved on ``now`` since the run left it ``after`` ('url, tags'; 'updatedAt
    ... -> ...'); None when it is as the run left it."""
    state = link_state(now)
    moved = [n for n in after if n != "updatedAt" and not _same(n, after[n], state.get(n))]
    if moved:
        return ", ".join(moved)
    left = after.get("updatedAt")
    if left and now.updated_at and not same_instant(left, now.updated_at):
        return f"updatedAt {left} -> {now.updated_at}"
    return None


def _create_body(before: Mapping[str, Any], domain: str, slug: str) -> dict[str, Any]:
    body: dict[str, Any] = {"url": before.get("url") or "", "slug": slug}
    if domain:
        body["domain"] = domain
    for name in _CREATE_FIELDS[1:]:
        value = before.get(name)
        if value:
            body[name] = list(value) if name == "tags" else value
    return body


def _expired(before: Mapping[str, Any], now: datetime) -> str | None:
    """The expiry of ``before`` when it has passed (a link cannot be created with it)."""
    expiry = before.get("expiresAt")
    when = parse_iso(str(expiry), assume_utc=True) if expiry else None
    return str(expiry) if when is not None and when <= now else None


class _Reverser:
    """The reverse change of each written row (see module docstring)."""

    def __init__(self, remote: RemoteState, now: datetime) -> None:
        self.remote = remote
        self.now = now

    def change(self, index: int, w: WrittenRow) -> Change:
        current = self.remote.get(w.domain, w.slug)
        notes = (f"undoes the {w.action.value} of {w.where}",) if w.where else ()

        def skip(why: str) -> Change:
            return Change(Action.SKIP, w.domain, w.slug, index, None, current, reason=why)

        if w.after is None:  # deleted by the run (or replaced, and not created again)
            if w.before is None:
                return skip("the journal records no values of it: left as it is")
            if current is not None:
                return skip(f"{CHANGED} (made again since the run)")
            return self._again(index, w, w.before, None, notes, skip)
        if current is None:
            if w.before is None and w.action is Action.CREATE:
                note = "deleted since the run already: nothing to undo"
                return Change(Action.UNCHANGED, w.domain, w.slug, index, notes=(note,))
            return skip(f"{CHANGED} (deleted since the run)")
        moved = changed_since(w.after, current)
        if moved is not None:
            return skip(f"{CHANGED} ({moved})")
        if w.action is Action.CREATE:
            return Change(Action.DELETE, w.domain, w.slug, index, None, current, notes=notes)
        if w.before is None:
            return skip(
                "the run updated a link another writer had made meanwhile, and what it held "
                "before is not known: left as it is"
            )
        if w.action is Action.REPLACE:
            return self._again(index, w, w.before, current, notes, skip)
        return self._update(index, w, w.before, current, notes, skip)

    def _again(
        self,
        index: int,
        w: WrittenRow,
        before: Mapping[str, Any],
        current: RemoteLink | None,
        notes: tuple[str, ...],
        skip: Skip,
    ) -> Change:
        """The link as it was before the run, made again: created (``current`` None: the
        run deleted it), or replaced back (the run replaced it)."""
        expired = _expired(before, self.now)
        if expired is not None:
            if current is None:
                return skip(f"its expiry ({expired}) has passed: it cannot be created again")
            return skip(f"its expiry before the run ({expired}) has passed: left as it is")
        if before.get("hasPassword"):
            notes = (*notes, f"created again without its password: {NO_PASSWORD}")
        body = _create_body(before, w.domain, w.slug)
        if current is None:
            return Change(Action.CREATE, w.domain, w.slug, index, payload=body, notes=notes)
        fields = _field_changes(before, current, _CREATE_FIELDS)
        return Change(
            Action.REPLACE, w.domain, w.slug, index, None, current, fields, body, notes=notes
        )

    def _update(
        self,
        index: int,
        w: WrittenRow,
        before: Mapping[str, Any],
        current: RemoteLink,
        notes: tuple[str, ...],
        skip: Skip,
    ) -> Change:
        names = [n for n in STATE_FIELDS if n in before and n not in ("hasPassword", "expiresAt")]
        fields = list(_field_changes(before, current, names))
        held = link_state(current)
        patch = {n: _wire(before.get(n)) for n in names}
        patch = {n: v for n, v in patch.items() if not _same(n, v, held.get(n))}
        if "hasPassword" in before:
            if before["hasPassword"]:
                notes = (*notes, f"its password stays as it is: {NO_PASSWORD}")
            elif current.has_password:  # the run set a password where there was none
                fields.append(FieldChange("password", "***", None))
                patch["password"] = None
        if not patch:
            if before.get("hasPassword"):
                return skip(f"only its password changed, and {NO_PASSWORD}: left as it is")
            return Change(Action.UNCHANGED, w.domain, w.slug, index, None, current, notes=notes)
        return Change(
            Action.UPDATE, w.domain, w.slug, index, None, current, tuple(fields), patch,
            notes=notes,
        )  # fmt: skip


def _wire(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _field_changes(
    before: Mapping[str, Any], current: RemoteLink, names: Iterable[str]
) -> tuple[FieldChange, ...]:
    """current -> before of each of ``names`` that differs (a plan's field names)."""
    now = link_state(current)
    out = []
    for name in names:
        want, held = before.get(name), now.get(name)
        if not _same(name, want, held):
            old = tuple(held) if isinstance(held, list) else held
            new = tuple(want) if isinstance(want, list) else want
            out.append(FieldChange(FIELD_NAMES.get(name, name), old, new))
    return tuple(out)


def _order(w: WrittenRow) -> tuple[bool, str, str, str]:
    return (w.where is None, w.where or "", w.domain, w.slug.lower())


def reverse_plan(
    written: Sequence[WrittenRow],
    remote: RemoteState,
    *,
    now: datetime,
    options: SyncOptions | None = None,
    target: str | None = None,
) -> Plan:
    """The plan that sets back what ``written`` (a run's links) records, against the
    links as ``remote`` holds them now (see module docstring). ``now``: the instant an
    expiry is judged against. The rows follow the run's sources, then the links of no
    row, by domain and slug. The safety thresholds do not hold an undo: it reverses
    only what the run wrote, after showing it."""
    rows = sorted(written, key=_order)
    reverser = _Reverser(remote, now)
    changes = tuple(reverser.change(i, w) for i, w in enumerate(rows))
    opts = options or SyncOptions(allow_replace=True, system_domain=remote.system_domain)
    return Plan(
        changes=changes,
        options=opts,
        fetches=remote.fetches,
        requests=remote.requests,
        target=target,
        unmanaged=Unmanaged(why_not="an undo reads only the links its run wrote"),
    )
