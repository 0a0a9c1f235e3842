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

The scope names something: each scope domain (``--domain``) is the system domain or a
domain registered in the workspace, spelled as a bare host name (``check_scope``), and
an owner tag no link and no row carries is a warning (``owner_tag_unused``). A row that
failed keeps the links of its slug in the scope (``kept_by_invalid``).
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from urllib.parse import urlsplit

from linksync.errors import ConfigError
from linksync.model import Action, LinkKey, LinkSpec, Problem, RemoteLink, Severity
from linksync.sync.options import SyncOptions
from linksync.sync.plan import Change
from linksync.sync.state import RemoteState, unclaimed

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


def kept_by_invalid(link: RemoteLink, kept_by: Mapping[str, LinkSpec], start: int) -> Change | None:
    """The ``skip`` of a link in a mirror's scope that a row which failed declares by
    its slug (``kept_by``: folded slugs and stripped URLs of such rows), whatever domain
    the row named; or, for a row without slug, by its URL. A mirror never deletes it: a
    row with a misspelt domain still means the link of its slug."""
    spec, named = kept_by.get(link.slug.lower()), f"the slug {link.slug}"
    if spec is None:
        spec, named = kept_by.get(link.url.strip()), "its URL"
    if spec is None:
        return None
    where = spec.provenance.where() if spec.provenance else "a row"
    why = (
        f"kept, not deleted: {where} declares {named} and failed, so the mirror keeps "
        "the link it may mean; fix the row"
    )
    return Change(Action.SKIP, link.domain, link.slug, start, None, link, reason=why)


def _bare_host(entry: str) -> str:
    """``entry`` as the host name alone (``https://go.example.com/`` -> go.example.com)."""
    text = entry.strip()
    host = urlsplit(text).hostname if "://" in text else text.split("/", 1)[0]
    return (host or text).strip().lower()


def check_scope(options: SyncOptions, system_domain: str, registered: Collection[str]) -> None:
    """Refuse (``ConfigError``, before any write) a scope domain that is not the system
    domain nor a domain registered in the workspace, naming the nearest registered one;
    or one written as a URL or with a slash, naming the spelling to use (never
    normalised in silence: a CI job's flags should say what they mean)."""
    known = sorted({system_domain, *registered} - {""})
    wrong: list[str] = []
    for entry in options.scope_domains:
        host = _bare_host(entry)
        if host != entry:
            wrong.append(f"--domain {entry}: write the domain alone: --domain {host}")
            continue
        if entry in known:
            continue
        near = difflib.get_close_matches(entry, known, n=1, cutoff=0.6)
        if not system_domain and not near:
            # No link of the workspace is on the service's own domain, so its name is
            # not known: this entry may be it, and holds no link to delete either way
            # (the next run, once a link is there, checks it against the name).
            continue
        if near:
            hint = f"; did you mean {near[0]}?"
        else:
            hint = f"; its domains: {', '.join(known)}" if known else ""
        wrong.append(f"--domain {entry}: no such domain in this workspace{hint}")
    if wrong:
        raise ConfigError("; ".join(wrong) + " (nothing done)")


def check_owner_tag_case(options: SyncOptions, tag_lists: Iterable[Sequence[str]]) -> None:
    """``ConfigError`` (nothing done) for an owner tag that no link read carries as
    written while some carry it in another letter case (``OWNER:WEB`` for
    ``owner:web``; ``tag_lists``: the tags of each link read): tags are compared as
    written, so the run would re-tag every link it writes, take the others' links from
    their owner, and scope a mirror to nothing. Stops at the first link carrying it."""
    tag = options.owner_tag
    if tag is None:
        return
    folded, twins = tag.casefold(), Counter[str]()
    for tags in tag_lists:
        if tag in tags:
            return
        twins.update(t for t in tags if t.casefold() == folded)
    if twins:
        twin, count = twins.most_common(1)[0]
        raise ConfigError(
            f"--owner-tag {tag}: the links of the workspace carry {twin} ({count} of the "
            "links read), which differs only in letter case; tags are compared as written, "
            f"so this run would re-tag them {tag}: write --owner-tag {twin} (nothing done)"
        )


def owner_tag_unused(
    options: SyncOptions,
    carried: bool | None,
    desired: Iterable[LinkSpec],
    tags_seen: Iterable[str] = (),
) -> Problem | None:
    """The warning of a mirror scoped by an owner tag that no link of the workspace
    (``carried``: False; None when not counted) and no row carries: it deletes nothing,
    and the links it creates get a tag nobody meant (a misspelt tag?)."""
    tag = options.owner_tag
    if not options.deletes or tag is None or carried is not False:
        return None
    if any(tag in spec.tags for spec in desired if spec.tags):
        return None
    near = difflib.get_close_matches(tag, sorted(set(tags_seen)), n=1, cutoff=0.75)
    hint = f" (did you mean {near[0]}?)" if near else ""
    return Problem(
        "OWNER_TAG_UNUSED",
        f"--owner-tag {tag}: no link of the workspace and no row carries it{hint}, so this "
        "mirror deletes nothing and the links it writes get this tag (expected on a first "
        "run; else check its spelling)",
        None,
        None,
        Severity.WARNING,
    )


def hidden_refusal(hidden: Sequence[Problem]) -> Problem:
    """Why a mirror deletes nothing while rows or sheets a workbook hides were skipped
    unread (``hidden``: their HIDDEN_ROW and HIDDEN_SHEET problems), or sheets skipped
    without a header that hold web addresses (UNREAD_SHEET): they may name the link."""
    sheets = sum(1 for p in hidden if p.constant == "HIDDEN_SHEET")
    bare = sum(1 for p in hidden if p.constant == "UNREAD_SHEET")  # no header, web addresses
    rows = len(hidden) - sheets - bare
    what = [f"{n} hidden {kind}(s)" for n, kind in ((rows, "row"), (sheets, "sheet")) if n]
    fix = ["unhide them, or read them with --include-hidden"] if rows or sheets else []
    if bare:
        what.append(f"{bare} sheet(s) without a header")
        fix.append("give a header row to a sheet without one, or name the sheets with --sheet")
    first = hidden[0].provenance
    where = f" (first: {first.where()})" if first is not None else ""
    return Problem(
        "HIDDEN_ROW" if rows else "HIDDEN_SHEET" if sheets else "UNREAD_SHEET",
        f"not deleted: {' and '.join(what)} of the sources were not "
        f"read{where} and may name this link; {'; '.join(fix)}",
        None,
    )


def unmanaged_links(
    remote: RemoteState,
    options: SyncOptions,
    claimed: Collection[LinkKey],
    protected_urls: Collection[tuple[str, str]],
    in_scope: Callable[[RemoteLink], bool],
    known: Mapping[str, int] | None = None,
) -> tuple[LinkKey, ...]:
    """Links of fully listed domains that no row claims (nor protects by its URL) and
    that are outside the scope (every link when there is no scope), by domain and slug
    (``known``: as ``linksync.sync.state.unclaimed`` reads it)."""
    scoped = bool(options.scope_domains) or options.owner_tag is not None
    listed = remote.listed_domains
    return tuple(
        sorted(
            key
            for key, link in unclaimed(remote.links, claimed, known)
            if key.domain in listed
            and (key.domain, link.url.strip()) not in protected_urls
            and not (scoped and in_scope(link))
        )
    )
