"""Ownership by owner tags, as octoDNS's ownership does it: never take over a link that
another owner marks, unless asked to.

The owner tag (``--owner-tag``, a profile's ``owner_tag``) marks the links one setup of
linksync manages: it is added to every link linksync creates and to the tags of rows
that manage tags, and it scopes mirror-mode deletes. When several teams (or tools) share
a workspace, each uses its own tag of one family, and a link carrying a tag of that
family other than ours is *marked by another owner*. The family is the owner tag up to
and including its last ``:`` (``owner:marketing`` and ``owner:sales``), or up to and
including ``-by-`` (``managed-by-marketing`` and ``managed-by-zapier``). An owner tag
of neither shape has no family: no other owner can be recognised.

An update, replace or delete of a link marked by another owner would take it over: the
plan refuses it (OWNED_BY_OTHER) unless ``SyncOptions.allow_takeover``; with it, the
write replaces the other owner's tag by ours, so the link is ours afterwards.
"""

from __future__ import annotations

from collections.abc import Iterable

from linksync.model import LinkSpec, Problem, RemoteLink, Severity
from linksync.sync.options import SyncOptions

OWNED_BY_OTHER = "OWNED_BY_OTHER"
_BY = "-by-"


def owner_family(owner_tag: str | None) -> str | None:
    """The prefix every owner tag of the family shares, or None (no family)."""
    if not owner_tag:
        return None
    if ":" in owner_tag:
        return owner_tag[: owner_tag.rindex(":") + 1]
    if _BY in owner_tag:
        return owner_tag[: owner_tag.index(_BY) + len(_BY)]
    return None


def other_owners(tags: Iterable[str], options: SyncOptions) -> tuple[str, ...]:
    """The tags among ``tags`` that mark another owner than ``options.owner_tag``."""
    family = owner_family(options.owner_tag)
    if family is None:
        return ()
    return tuple(
        sorted(
            {t for t in tags if t.startswith(family) and len(t) > len(family)} - {options.owner_tag}
        )
    )


def taken_over(tags: Iterable[str], options: SyncOptions) -> tuple[str, ...]:
    """``tags`` with the other owners' tags removed and ours added (source order)."""
    others = set(other_owners(tags, options))
    kept = [t for t in tags if t not in others]
    if options.owner_tag is not None:
        kept.append(options.owner_tag)
    return tuple(dict.fromkeys(kept))


def _label(link: RemoteLink) -> str:
    return f"{link.domain}/{link.slug}"


def takeover_refused(
    link: RemoteLink, spec: LinkSpec | None, options: SyncOptions, what: str
) -> Problem:
    """The error of a write refused: ``what`` is "update", "replace" or "delete"."""
    owners = ", ".join(other_owners(link.tags, options))
    return Problem(
        OWNED_BY_OTHER,
        f"{_label(link)} is marked by another owner ({owners}); the {what} would take it "
        "over: run with --allow-takeover to do that",
        spec.provenance if spec is not None else None,
        "tags",
    )


def takeover_note(link: RemoteLink, spec: LinkSpec | None, options: SyncOptions) -> Problem:
    """The warning on a write that takes a link over (``allow_takeover``)."""
    owners = ", ".join(other_owners(link.tags, options))
    return Problem(
        OWNED_BY_OTHER,
        f"takes {_label(link)} over from {owners} (--allow-takeover): their tag is "
        f"replaced by {options.owner_tag}",
        spec.provenance if spec is not None else None,
        "tags",
        Severity.WARNING,
    )
