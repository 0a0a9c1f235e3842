"""How one desired link differs from its remote record, and the request bodies that make
them equal. Pure: no I/O. Used by the diff, and by the executor when a create meets a
link another writer made meanwhile.

Only managed fields are compared (``LinkSpec.managed``; ``url`` whenever it is given).
Tags compare as sets, URLs as given after trimming, timestamps as instants, and an empty
string equals no value. The password is write-only: sent on create, on update only when
the remote has none, or ``reset_passwords``, or when the fingerprint this machine kept
of the password it last sent (``linksync.sync.fingerprints.PasswordMemory``) says the
row's differs; a row whose password cannot be compared says it was not sent
(``Comparison.password_unsent``). A link another owner marks is compared as ours once
taken over (``allow_takeover``: see ``linksync.sync.ownership``).

``left_alone`` names the fields a row's empty cells leave as the service holds them.
Fields the repository leaves to people (``ignore_changes``: ``linksync.sync.ignoring``)
are never updated: a row that differs only in them is the same, with a note.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import msgspec

from linksync.model import API_NAMES, LinkSpec, Problem, RemoteLink, Severity
from linksync.model.declared import password_mark
from linksync.model.links import fold_domain
from linksync.rules.timestamps import same_instant
from linksync.sync.fingerprints import PasswordMemory
from linksync.sync.ignoring import ignored_fields, left_note
from linksync.sync.options import SyncOptions
from linksync.sync.ownership import other_owners, taken_over
from linksync.sync.plan import FieldChange


@dataclass(frozen=True, slots=True)
class Comparison:
    """How a desired link differs from its remote record."""

    fields: tuple[FieldChange, ...]
    patch: Mapping[str, Any]
    needs_replace: bool
    #: The row gives a password, the link has one and nothing tells whether they
    #: differ: the password is not sent (``--reset-passwords`` sends it).
    password_unsent: bool = False
    #: What the row should say about a field beyond old -> new.
    notes: tuple[str, ...] = ()

    @property
    def same(self) -> bool:
        return not self.fields


def row_domain(spec: LinkSpec, options: SyncOptions, system_domain: str) -> str:
    """The domain a row's link lives on (lower case; one shared string per domain)."""
    return fold_domain(spec.domain or options.default_domain or system_domain)


def desired_tags(spec: LinkSpec, options: SyncOptions) -> tuple[str, ...]:
    """The row's tags plus the owner tag, source order, no repeats."""
    if not spec.tags and options.owner_tag is None:
        return ()
    tags = list(spec.tags or ())
    if options.owner_tag is not None:
        tags.append(options.owner_tag)
    return tuple(dict.fromkeys(t for t in tags if t))


PASSWORD_CHANGED_NOTE = "password changed since the last run from this machine"


def compare(
    spec: LinkSpec,
    remote: RemoteLink,
    options: SyncOptions,
    *,
    passwords: PasswordMemory | None = None,
) -> Comparison:
    """Managed fields of ``spec`` that differ from ``remote``, and the PATCH body that
    makes them equal (wire names). ``needs_replace`` when the expiry differs.
    ``passwords``: the fingerprints of the passwords this machine sent (none: a
    password the link has already is never compared)."""
    fields: list[FieldChange] = []
    patch: dict[str, Any] = {}
    notes: list[str] = []
    unsent = False
    managed = spec.managed
    url = spec.url  # often the link's own text (``linksync.sync.remote``): no strip then
    if url is not None and url is not remote.url and url.strip() != remote.url.strip():
        fields.append(FieldChange("url", remote.url, url.strip()))
        patch["url"] = url.strip()
    for name in ("description", "apple", "google"):
        if name in managed:
            new, old = getattr(spec, name) or None, getattr(remote, name) or None
            if new != old:
                fields.append(FieldChange(name, old, new))
                patch[API_NAMES[name]] = new
    takeover = options.allow_takeover and bool(other_owners(remote.tags, options))
    if "tags" in managed or takeover:
        tags = desired_tags(spec, options) if "tags" in managed else tuple(remote.tags)
        if takeover:
            tags = taken_over(tags, options)
        if set(tags) != set(remote.tags):
            fields.append(FieldChange("tags", tuple(remote.tags), tags))
            patch["tags"] = list(tags)
    if "password" in managed:
        if spec.password:
            send = not remote.has_password or options.reset_passwords
            if not send:
                known = passwords.verdict(remote.key, spec.password) if passwords else None
                send = known is False
                unsent = known is None
                if send:
                    notes.append(PASSWORD_CHANGED_NOTE)
            if send:
                fields.append(
                    FieldChange("password", None, password_mark(spec.declared.password_from))
                )
                patch["password"] = spec.password
        elif remote.has_password:
            fields.append(FieldChange("password", "***", None))
            patch["password"] = None
    needs_replace = False
    if "expires_at" in managed and not same_instant(spec.expires_at, remote.expires_at):
        fields.append(FieldChange("expires_at", remote.expires_at, spec.expires_at))
        needs_replace = True
    ignored = ignored_fields(spec, options)
    if ignored:  # left to people: never updated, said in a note when they differ
        left = [f.field for f in fields if f.field in ignored]
        fields = [f for f in fields if f.field not in ignored]
        patch = {k: v for k, v in patch.items() if k not in ignored}
        unsent = unsent and "password" not in ignored
        notes = [n for n in notes if n != PASSWORD_CHANGED_NOTE or "password" not in ignored]
        notes += [left_note(left)] if left else []
    return Comparison(tuple(fields), patch, needs_replace, unsent, tuple(notes))


#: Fields an empty cell leaves alone, in the order a note names them.
LEFT_FIELDS = ("url", "description", "tags", "expires_at", "apple", "google", "password")


def left_alone(spec: LinkSpec, remote: RemoteLink, options: SyncOptions) -> tuple[str, ...]:
    """The fields (wire names) whose cell the row leaves empty while the link holds a
    value: an empty cell leaves the value as the service holds it. Only fields the
    source has a column (or key) for: a source without the column manages nothing of it."""
    prov = spec.provenance
    if prov is None or not prov.columns:
        return ()
    out: list[str] = []
    for name in _unmanaged_columns(spec.managed, prov.columns):
        if name == "url":
            held: object = spec.url is None and remote.url
        elif name == "password":
            held = remote.has_password
        elif name == "tags":
            held = [t for t in remote.tags if t != options.owner_tag]
        else:
            held = getattr(remote, name)
        if held:
            out.append(API_NAMES.get(name, name))
    return tuple(out)


#: (managed fields, the columns' map) -> (that map, the fields of ``LEFT_FIELDS`` it has
#: a column for and the row does not manage): rows of a sheet share both.
_UNMANAGED: dict[tuple[frozenset[str], int], tuple[Mapping[str, str], tuple[str, ...]]] = {}


def _unmanaged_columns(managed: frozenset[str], columns: Mapping[str, str]) -> tuple[str, ...]:
    known = _UNMANAGED.get((managed, id(columns)))
    if known is not None and known[0] is columns:
        return known[1]
    names = tuple(n for n in LEFT_FIELDS if n not in managed and n in columns)
    if len(_UNMANAGED) > 256:
        _UNMANAGED.clear()
    _UNMANAGED[(managed, id(columns))] = (columns, names)
    return names


def left_alone_note(names: tuple[str, ...]) -> str | None:
    """'expiresAt, apple left as on the service (empty cells)', or None."""
    if not names:
        return None
    return f"{', '.join(names)} left as on the service (empty cells)"


def create_payload(
    spec: LinkSpec,
    domain: str,
    options: SyncOptions,
    *,
    carry: RemoteLink | None = None,
    slug: str | None = None,
) -> dict[str, Any]:
    """The POST body for ``spec`` (wire names). With ``carry`` (a replace), fields the
    row does not manage keep the remote record's values. ``slug``: the slug to send
    (a row's stable slug), else the row's own."""
    if carry is not None:  # a replace keeps the link's own values of fields left to people
        ignored = ignored_fields(spec, options) - {"password"}
        if ignored:
            url = None if "url" in ignored else spec.url
            tags = None if "tags" in ignored else spec.tags  # the link's, and the owner tag
            spec = msgspec.structs.replace(spec, url=url, tags=tags, managed=spec.managed - ignored)
    body: dict[str, Any] = {"url": (spec.url or (carry.url if carry else "")).strip()}
    if slug:
        body["slug"] = slug
    elif spec.slug:
        body["slug"] = spec.slug
    elif carry is not None:
        body["slug"] = carry.slug
    if domain:
        body["domain"] = domain
    for name in ("description", "apple", "google", "expires_at"):
        value = getattr(spec, name) if name in spec.managed else None
        if name not in spec.managed and carry is not None and name != "expires_at":
            value = getattr(carry, name)
        if value:
            body[API_NAMES[name]] = value
    if "tags" in spec.managed or carry is None:
        tags = desired_tags(spec, options)
    else:
        tags = tuple(dict.fromkeys([*carry.tags, *desired_tags(spec, options)]))
    if tags:
        body["tags"] = list(tags)
    if "password" in spec.managed and spec.password:
        body["password"] = spec.password
    return body


def unsent_password(spec: LinkSpec, cmp: Comparison) -> tuple[Problem, ...]:
    """PASSWORD_NOT_SENT, a warning, when the row's password cannot be compared with
    the link's (the service never returns it) and so is not sent."""
    if not cmp.password_unsent:
        return ()
    return (
        Problem(
            "PASSWORD_NOT_SENT",
            "the link has a password already and the service never shows it, and no run "
            "from this machine recorded the one it sent: this password is not sent (run "
            "with --reset-passwords to send it)",
            spec.provenance,
            "password",
            Severity.WARNING,
        ),
    )


def said_of(
    spec: LinkSpec, link: RemoteLink, cmp: Comparison, options: SyncOptions
) -> tuple[str, ...]:
    """The notes of a row matched with ``link``: a password changed since the last run
    from this machine, the fields its empty cells leave as on the service."""
    left = left_alone_note(left_alone(spec, link, options))
    return (*cmp.notes, left) if left is not None else cmp.notes
