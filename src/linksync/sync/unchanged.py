"""The diff's short way for the commonest row: a row with a slug, no finding of its
own, on a usable domain, naming a link it matches in every field it manages. Such a
row plans ``unchanged``; a plan of a million of them walks this path a million times.

``QuickDiff.plan_rows`` is what the diff calls, for every row at once. Such a row
with nothing to say is only recorded in ``quiet`` (``linksync.sync.quiet``), no
``Change`` made; one with a note gets the very ``Change`` the full path of
``linksync.sync.diff`` gives it; every other row is left to the full path
(``full``), from the start. The short way only ever records what the full path
records for a row (its claim on its link), so a row it leaves to the full path is
decided as if it had never been looked at.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from functools import partial
from typing import Any

from linksync.model import Action, LinkKey, LinkSpec, Place, RemoteLink
from linksync.model.links import fold_domain
from linksync.model.numbers import shared_ints
from linksync.rules.timestamps import same_instant
from linksync.sync.compare import LEFT_FIELDS, desired_tags, left_alone, left_alone_note
from linksync.sync.options import SyncOptions
from linksync.sync.plan import Change
from linksync.sync.quiet import QuietRows
from linksync.sync.state import KeyMap, RemoteState

#: The fields a row may manage and still take the short way, compared as the full
#: comparison (``linksync.sync.compare.compare``) compares them.
_PLAIN = ("description", "apple", "google")

#: What the short way compares of a row, by its managed fields: the plain fields it
#: manages, and whether it manages the password, the tags, the expiry. Rows of a sheet
#: share a few managed sets: each is looked at once, not each row's fields one by one.
_Checks = tuple[tuple[str, ...], bool, bool, bool]


def _checks(managed: frozenset[str]) -> _Checks:
    plain = tuple(name for name in _PLAIN if name in managed)
    return plain, "password" in managed, "tags" in managed, "expires_at" in managed


#: What a row's domain (as given) has not been looked up as yet.
_UNSEEN: Any = object()

#: (a folded domain, its links by folded slug or None, the rows claiming them)
_Domain = tuple[str, Mapping[str, RemoteLink] | None, dict[str, int]]


class QuickDiff:
    """The short way of one diff run (its caches: the domains of rows, as given)."""

    __slots__ = (
        "_checks",
        "_claimed",
        "_domains",
        "_invalid",
        "_left",
        "_off",
        "_options",
        "_places",
        "_remote",
        "quiet",
    )

    def __init__(
        self,
        remote: RemoteState,
        options: SyncOptions,
        invalid: Collection[int],
        places: Mapping[Place, object],
        claimed: KeyMap[int],
        *,
        quiet: QuietRows | None = None,
    ) -> None:
        """``quiet``: where ``plan_rows`` holds the rows with nothing to say."""
        self._remote = remote
        self.quiet = quiet if quiet is not None else QuietRows()
        self._options = options
        self._invalid = invalid
        self._places = places
        self._claimed = claimed
        #: Taking a link over changes its tags, and an ``ignore:`` entry may make a row a
        #: skip (``linksync.sync.ignoring``): such runs take the full path.
        self._off = options.allow_takeover or bool(options.ignore)
        #: the links are a ``KeyMap`` (a plain mapping by key in some callers' states)
        #: a row's domain as given -> (the folded domain, its links by folded slug, the
        #: rows claiming them), or None when the domain has a problem
        self._domains: dict[str | None, _Domain | None] = {}
        #: a row's managed fields -> (its columns, the fields they could leave alone)
        self._left: dict[frozenset[str], tuple[Mapping[str, str], tuple[str, ...]]] = {}
        #: a row's managed fields -> what ``_same`` compares of them (``_Checks``)
        self._checks: dict[frozenset[str], _Checks] = {}

    def _domain(self, given: str | None) -> _Domain | None:
        remote = self._remote  # as ``linksync.sync.compare.row_domain`` folds it
        folded = fold_domain(given or self._options.default_domain or remote.system_domain)
        if folded != remote.system_domain:
            info = remote.custom_domains.get(folded)
            if info is None or not info.active:
                return None
        links = remote.links
        on_domain = links.on_domain(folded) if isinstance(links, KeyMap) else None
        return folded, on_domain, self._claimed.slugs_on(folded)

    def plan_rows(
        self, desired: Sequence[LinkSpec], full: Callable[[int, LinkSpec], Change | None]
    ) -> list[Change | None]:
        """The change of each row of ``desired``, by the short way, else by the full
        path (``full``); a row the short way finds unchanged with nothing to say gets
        none: it is held in ``quiet`` (as a position in ``desired``, held as it is now).

        One loop over a million rows, its names bound once: a row the short way takes
        costs a few lookups and comparisons, no call."""
        desired = self.quiet.desired = tuple(desired)
        return self._rows(zip(shared_ints(len(desired)), desired, strict=False), full)

    def _rows(
        self,
        rows: Iterable[tuple[int, LinkSpec]],
        full: Callable[[int, LinkSpec], Change | None],
    ) -> list[Change | None]:
        """``plan_rows`` of rows given with their positions."""
        out: list[Change | None] = []
        keep, quiet_at, quiet_links = out.append, self.quiet.at.append, self.quiet.links.append
        off, invalid, places, domains = self._off, self._invalid, self._places, self._domains
        all_checks, links = self._checks, self._remote.links
        tags_of, left, note_of = (
            partial(desired_tags, options=self._options),
            self._left,
            self._notes,
        )
        for index, spec in rows:
            slug, prov = spec.slug, spec.provenance
            if (
                not slug
                or off
                or index in invalid
                or (places and prov is not None and prov.place in places)
            ):
                keep(full(index, spec))
                continue
            known = domains.get(spec.domain, _UNSEEN)
            if known is _UNSEEN:  # the first row of its domain (as given)
                known = self._first_of(spec.domain)
            if known is None:
                keep(full(index, spec))
                continue
            domain, on_domain, claims = known
            folded = slug.lower()  # as ``fold_slug`` folds it: the slug itself when equal
            if folded == slug:
                folded = slug
            if on_domain is not None:
                link = on_domain.get(folded)
            else:
                link = links.get(LinkKey(domain, folded))
            if link is None:
                keep(full(index, spec))
                continue
            # What the full comparison compares (``linksync.sync.compare.compare``); a
            # row it might find a field, a note or a password of goes the full path.
            url, remote_url = spec.url, link.url
            if url is not None and url is not remote_url and url.strip() != remote_url.strip():
                keep(full(index, spec))
                continue
            managed = spec.managed
            checks = all_checks.get(managed)
            if checks is None:
                checks = all_checks[managed] = _checks(managed)
            plain, password, tags, expires = checks
            differs = False
            for name in plain:
                if (getattr(spec, name) or None) != (getattr(link, name) or None):
                    differs = True
                    break
            if (
                differs
                or (password and (spec.password or link.has_password))
                or (tags and set(tags_of(spec)) != set(link.tags))
                or (expires and not same_instant(spec.expires_at, link.expires_at))
            ):
                keep(full(index, spec))
                continue
            if claims.setdefault(folded, index) != index:
                keep(full(index, spec))  # a duplicate: the full path says so
                continue
            columns = prov.columns if prov is not None else None
            if columns:  # ``_notes``, not called for a row of a sheet known to say nothing
                said = left.get(managed)
                if said is None or said[0] is not columns or said[1]:
                    notes = note_of(spec, link)
                    if notes:
                        said_change = Change(
                            Action.UNCHANGED, domain, link.slug, index, spec, link, notes=notes
                        )
                        keep(said_change)
                        continue
            quiet_at(index)
            quiet_links(link)
        return out

    def _first_of(self, given: str | None) -> _Domain | None:
        """What the rows of a domain (as given) share; noted for the quiet rows."""
        known = self._domains[given] = self._domain(given)
        if known is not None:
            self.quiet.domains[given] = known[0]
        return known

    def _notes(self, spec: LinkSpec, link: RemoteLink) -> tuple[str, ...]:
        """``linksync.sync.compare.said_of`` of a row with nothing to change."""
        prov = spec.provenance
        if prov is None or not prov.columns:
            return ()
        columns = prov.columns
        known = self._left.get(spec.managed)
        if known is None or known[0] is not columns:  # rows of a sheet share both
            names = tuple(n for n in LEFT_FIELDS if n not in spec.managed and n in columns)
            known = self._left[spec.managed] = (columns, names)
        if not known[1]:
            return ()  # the row has a cell for each field it could leave alone
        note = left_alone_note(left_alone(spec, link, self._options))
        return (note,) if note is not None else ()
