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

When the listing already compared the rows with their links as its pages arrived
(``linksync.sync.matched``: the very rows and options of this diff), the rows it found
unchanged with nothing to say are taken as they are, and only the others are walked,
in source order, by the short way and the full path. Each first row of a slug holds
its claim from the start; an earlier row that claims the same link (an invalid row,
a row without slug matched by URL) takes it over, and the later row goes the full
path (``demote``), which names it a duplicate: the plan is the one the walk of every
row makes.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from functools import partial
from itertools import compress
from typing import Any

from linksync.model import Action, LinkKey, LinkSpec, Place, RemoteLink
from linksync.model.links import fold_domain
from linksync.model.numbers import shared_ints
from linksync.rules.timestamps import same_instant
from linksync.sync.compare import LEFT_FIELDS, desired_tags, left_alone, left_alone_note
from linksync.sync.matched import Checks, Matched, checks_of
from linksync.sync.options import SyncOptions
from linksync.sync.plan import Change
from linksync.sync.quiet import QuietRows
from linksync.sync.state import KeyMap, RemoteState

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
        "_links_at",
        "_marks",
        "_matched",
        "_off",
        "_options",
        "_parked",
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
        matched: Matched | None = None,
        parked: bool = False,
    ) -> None:
        """``quiet``: where ``plan_rows`` holds the rows with nothing to say;
        ``matched``: the rows the listing matched to their links, for the very rows and
        options of this run (``Matched.fits``); ``parked``: the index (``remote.links``,
        read ``LinkIndex.unsettled``) holds none of those links (``LinkIndex.park``):
        a row that is not quiet after all enters its link, and a look-up of a quiet
        row's link finds it where the listing left it."""
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
        self._checks: dict[frozenset[str], Checks] = {}
        self._matched = matched
        #: the rows taken as the listing matched them (1), while ``plan_rows`` runs
        self._marks: bytearray | None = None
        #: the link the listing matched to each row (``Matched.links_at``), meanwhile
        self._links_at: list[RemoteLink | None] = []
        self._parked = parked and matched is not None

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
        if self._matched is not None and not self._off:
            return self._taken(self._matched, desired, full)
        return self._rows(zip(shared_ints(len(desired)), desired, strict=False), full)

    def _taken(
        self,
        matched: Matched,
        desired: tuple[LinkSpec, ...],
        full: Callable[[int, LinkSpec], Change | None],
    ) -> list[Change | None]:
        """``plan_rows`` of rows the listing matched (``linksync.sync.matched``): its
        candidates are quiet unless invalid, with a finding, or claimed by an earlier
        row (``demote``); every other row goes ``_rows``, in source order, each row's
        claim on its link held from the start (the first row naming each slug)."""
        n = len(desired)
        given, usable = matched.given, matched.usable
        rows, links_at, marks = matched.hand_over()
        self._marks, self._links_at = marks, links_at
        try:
            for i in self._invalid:
                if 0 <= i < n:
                    self.demote(i)
            places = self._places
            if places:  # (a few rows with findings among a million: no place made a row)
                numbers = {place[2] for place in places}
                for i in compress(shared_ints(n), marks):
                    prov = desired[i].provenance
                    if prov is not None and prov.row in numbers and prov.place in places:
                        self.demote(i)
            self._claimed.fill(rows, copy=False)
            out = self._rows(_unmarked(desired, marks), full, (marks, links_at))
        finally:
            self._marks, self._links_at = None, []
        quiet = self.quiet
        quiet.at = array("I", compress(range(n), marks))
        quiet.links = list(compress(links_at, marks))  # type: ignore[arg-type]
        for spelt, domain in given.items():
            if domain in usable:
                quiet.domains.setdefault(spelt, domain)
        return out

    def claim(self, key: LinkKey, index: int) -> int:
        """The row that claims ``key`` first: ``index`` unless an earlier row did (a
        claim held for a later row, ``_taken``, goes to this one)."""
        first = self._claimed.setdefault(key, index)
        if first > index:
            self._claimed[key] = index
            self.demote(first)
            return index
        return first

    def release(self, key: LinkKey, index: int) -> None:
        """Row ``index`` claims nothing after all (a hidden row, not read): nor is a
        claim held for it from the start (``_taken``)."""
        if self._marks is not None and self._claimed.get(key) == index:
            self._claimed.drop(key)

    def demote(self, first: int) -> None:
        """Row ``first`` loses its claim to an earlier row: it goes the full path (which
        says DUPLICATE_IN_SOURCE), not quiet (nor is it, when invalid or with a finding);
        the link the listing left out of the index for it is entered."""
        marks = self._marks
        if marks is not None and marks[first]:
            marks[first] = 0
            link = self._links_at[first]
            if self._parked and link is not None:
                self._remote.links.add(link)  # type: ignore[attr-defined]

    def link(self, key: LinkKey) -> RemoteLink | None:
        """The link of ``key`` (folded): the index's, else, while ``plan_rows`` runs
        on links the index left out, the link of the quiet row that claims it."""
        found = self._remote.links.get(key)
        marks = self._marks
        if found is None and marks is not None and self._parked:
            at = self._claimed.get(key)
            if at is not None and marks[at] == 1:
                return self._links_at[at]
        return found

    def claimed_on(self) -> dict[str, int]:
        """``QuietRows.claimed_on`` of the quiet rows, once ``plan_rows`` ran (none
        when the index left their links out: it holds fewer links than they claim)."""
        return {} if self._parked else self.quiet.claimed_on()

    def _rows(
        self,
        rows: Iterable[tuple[int, LinkSpec]],
        full: Callable[[int, LinkSpec], Change | None],
        taken: tuple[bytearray, list[RemoteLink | None]] | None = None,
    ) -> list[Change | None]:
        """``plan_rows`` of rows given with their positions (``taken``: a quiet row is
        marked there, not held in ``quiet``)."""
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
            if link is None:  # (or a quiet row's link left out: this row is its duplicate)
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
                checks = all_checks[managed] = checks_of(managed)
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
            first = claims.setdefault(folded, index)
            if first != index:
                if first < index:
                    keep(full(index, spec))  # a duplicate: the full path says so
                    continue
                claims[folded] = index  # held for a later row (``_taken``): this one's
                self.demote(first)
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
            if taken is None:
                quiet_at(index)
                quiet_links(link)
            else:
                taken[0][index] = 1
                taken[1][index] = link
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


def _unmarked(desired: Sequence[LinkSpec], marks: bytearray) -> Iterator[tuple[int, LinkSpec]]:
    """(position, row) of the rows ``marks`` holds 0 for, in order, as ``marks`` is then
    (a row marked 0 later, ahead of the one read, is still met)."""
    ints = shared_ints(len(desired))
    find = marks.find
    i = find(0)
    while i >= 0:
        yield ints[i], desired[i]
        i = find(0, i + 1)
