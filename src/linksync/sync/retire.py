"""Retire instead of delete: a mirror's deletes made into updates (``--retire-to URL``).

A link on a printed poster or in a QR code must keep answering after it leaves the
sheet. With ``SyncOptions.retire_to``, each link a mirror would delete (in its scope,
declared by no source) is updated instead: its URL set to the fallback, its iOS and
Android targets removed (so every visitor lands on the fallback) and the tag
``retired`` added; its slug, description, expiry and password stay. The plan, the
reports and the markdown name it ``retire``; the safety thresholds count it as a
delete (``linksync.sync.safety``); ``linksync undo`` sets the link back. A link retired
already (pointing at the fallback, tagged ``retired``, no iOS or Android target) is
``unchanged``.

A delete refused (another owner's link, a hidden row) stays refused: only the planned
deletes are retired. Pure: no I/O; the diff calls ``retire_deletes`` on its deletes.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from linksync.model import Action, RemoteLink
from linksync.sync.options import SyncOptions
from linksync.sync.ownership import other_owners, taken_over
from linksync.sync.plan import Change, FieldChange

#: The tag a retired link carries.
RETIRED_TAG = "retired"


def retire_fields(link: RemoteLink, url: str, options: SyncOptions) -> tuple[FieldChange, ...]:
    """What retiring ``link`` to ``url`` changes (old -> new); none when it is retired
    already."""
    out: list[FieldChange] = []
    if link.url.strip() != url:
        out.append(FieldChange("url", link.url, url))
    for name in ("apple", "google"):
        if getattr(link, name):
            out.append(FieldChange(name, getattr(link, name), None))
    tags = tuple(link.tags) if RETIRED_TAG in link.tags else (*link.tags, RETIRED_TAG)
    if options.allow_takeover and other_owners(link.tags, options):
        tags = taken_over(tags, options)
    if set(tags) != set(link.tags):
        out.append(FieldChange("tags", tuple(link.tags), tags))
    return tuple(out)


def retire_change(ch: Change, url: str, options: SyncOptions) -> Change:
    """The retire of a planned delete ``ch`` (``unchanged`` when retired already)."""
    assert ch.remote is not None
    fields = retire_fields(ch.remote, url, options)
    if not fields:
        why = f"retired already: points at {url} and is tagged {RETIRED_TAG}"
        return msgspec.structs.replace(ch, action=Action.UNCHANGED, reason=why)
    payload = {f.field: list(f.new) if f.field == "tags" else f.new for f in fields}
    return msgspec.structs.replace(ch, action=Action.RETIRE, fields=fields, payload=payload)


def retire_deletes(changes: Sequence[Change], options: SyncOptions) -> list[Change]:
    """``changes`` with each planned delete retired to ``options.retire_to`` (as they
    are when it is not set, or the mode deletes nothing)."""
    url = options.retire_to
    if url is None or not options.deletes:
        return list(changes)
    return [
        retire_change(ch, url, options)
        if ch.action is Action.DELETE and ch.remote is not None
        else ch
        for ch in changes
    ]
