"""Rows matched to their links as the list pages arrive (``linksync.sync.remote``).

Each link a listing brings is looked up once, in the slugs the rows name on its domain
(the first row naming each, by its position in the rows), and then, in the same step:

- the link takes the row's text where the two are equal (its URL, slug, description),
  so a million unchanged links and their rows hold one string each, not two;
- the row and the link are compared the short way (``linksync.sync.unchanged``): a row
  that matches its link in every field it manages, with no note to make, is a
  *candidate*: ``links_at`` holds its link at its position, ``marks`` holds 1 there.

The diff (``QuickDiff``) then walks only the rows that are not candidates, and takes
the candidates as they are, unless something only it knows says otherwise: the row is
invalid or has a finding of its own, or an earlier row claims the same link (then the
candidate goes the full path, which says DUPLICATE_IN_SOURCE). So the candidates are
only ever rows the short way would take; what they save is its walk.

A link met twice (a listing that shifts while it is read) makes its row no candidate:
the diff then compares the row with the link the index holds, as before.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from functools import partial

import msgspec

from linksync.model import LinkSpec, RemoteLink
from linksync.model.links import fold_domain
from linksync.rules.timestamps import same_instant
from linksync.sync.compare import LEFT_FIELDS, desired_tags, left_alone
from linksync.sync.options import SyncOptions

_force = msgspec.structs.force_setattr

#: The fields a row may manage and still take the short way, compared as the full
#: comparison (``linksync.sync.compare.compare``) compares them.
PLAIN = ("description", "apple", "google")

#: What the short way compares of a row, by its managed fields: the plain fields it
#: manages, and whether it manages the password, the tags, the expiry. Rows of a sheet
#: share a few managed sets: each is looked at once, not each row's fields one by one.
Checks = tuple[tuple[str, ...], bool, bool, bool]


#: the plain fields of a row that manages the description alone of them
_DESCRIPTION = ("description",)


def checks_of(managed: frozenset[str]) -> Checks:
    plain = tuple(name for name in PLAIN if name in managed)
    if plain == _DESCRIPTION:
        plain = _DESCRIPTION
    return plain, "password" in managed, "tags" in managed, "expires_at" in managed


#: ``marks``: 1 a candidate, 2 a second link of the row's slug met, else 0 (the link
#: met, if any, in ``links_at``)
CANDIDATE = 1
_MET = 2

#: ``bytes.translate`` table: the candidates stay 1, every other mark becomes 0
ONLY_CANDIDATES = bytes(1 if b == CANDIDATE else 0 for b in range(256))

#: no row looked at yet
_NO_ROW = object()


class Matched:
    """The rows of one fetch (``desired``, under ``options``) and the links the list
    pages brought for them: ``rows`` (per domain, folded: folded slug -> the position
    of the first row naming it, rows in ``skip`` left out), ``given`` (a row's domain as
    given -> its domain, folded), ``usable`` (the domains a row can be quiet on: the
    system domain and the active custom ones), ``links_at`` and ``marks`` (see the
    module's docstring). Filled while the links are fetched, then read only."""

    __slots__ = (
        "_checks",
        "_left",
        "_off",
        "_skip",
        "_tags_of",
        "_unique",
        "_used",
        "desired",
        "given",
        "links_at",
        "marks",
        "options",
        "rows",
        "usable",
    )

    def __init__(
        self,
        desired: Sequence[LinkSpec],
        options: SyncOptions,
        rows: Mapping[str, dict[str, int]],
        given: Mapping[str | None, str],
    ) -> None:
        self.desired = desired
        self.options = options
        self.rows = rows
        self.given = given
        self.usable: frozenset[str] = frozenset()
        self.links_at: list[RemoteLink | None] = [None] * len(desired)
        self.marks = bytearray(len(desired))
        #: a takeover changes a link's tags, an ``ignore:`` entry may skip a row: such
        #: runs take the full path (as ``QuickDiff`` does)
        self._off = options.allow_takeover or bool(options.ignore)
        self._checks: dict[frozenset[str], Checks] = {}
        self._left: dict[frozenset[str], tuple[Mapping[str, str], tuple[str, ...]]] = {}
        self._tags_of = partial(desired_tags, options=options)
        self._used = False
        self._unique: Collection[str] = frozenset()
        self._skip: Collection[int] = frozenset()

    def fits(self, desired: Sequence[LinkSpec], options: SyncOptions) -> bool:
        """Whether a diff of ``desired`` under ``options`` may take these candidates:
        the very rows and options the fetch matched."""
        return (
            desired is self.desired and options is self.options and not self._off and not self._used
        )

    def hand_over(
        self,
    ) -> tuple[Mapping[str, dict[str, int]], list[RemoteLink | None], bytearray]:
        """``rows``, ``links_at`` and the candidates' ``marks`` (1, else 0), for one
        diff to take as its own (no copy of a million entries): the fetch keeps none of
        them, and a later diff takes the rows one by one, as without a listing."""
        taken = (self.rows, self.links_at, self.marks.translate(ONLY_CANDIDATES))
        self.rows, self.links_at, self.marks, self._used = {}, [], bytearray(), True
        return taken

    def drop(self) -> None:
        """Hold nothing more (a fetch no diff reads, or one the diff could not take)."""
        self.rows, self.links_at, self.marks, self._used = {}, [], bytearray(), True

    def in_order(self, unique: Collection[str], skip: Collection[int]) -> None:
        """The domains (folded) where no two rows name one slug (``unique``) and the
        positions ``rows`` leaves out (``skip``): there a link is first looked for in
        the row after the row of the link before it (a listing in the order the rows
        made the links; the row before, in a listing of the newest first), before the
        slugs are."""
        self._unique, self._skip = unique, skip

    def usable_on(self, system_domain: str, custom: Mapping[str, object]) -> None:
        """The domains a row can be quiet on (as ``QuickDiff`` judges a row's domain)."""
        active = {d for d, info in custom.items() if getattr(info, "active", False)}
        self.usable = frozenset({system_domain, *active})

    def _checks_of(self, managed: frozenset[str]) -> Checks:
        checks = self._checks.get(managed)
        if checks is None:
            checks = self._checks[managed] = checks_of(managed)
        return checks

    def _left_names(self, managed: frozenset[str], columns: Mapping[str, str]) -> tuple[str, ...]:
        """The fields a row of ``columns`` managing ``managed`` could leave alone with an
        empty cell (none: no row of these says a thing)."""
        said = self._left.get(managed)
        if said is None or said[0] is not columns:  # rows of a sheet share both
            names = tuple(n for n in LEFT_FIELDS if n not in managed and n in columns)
            said = self._left[managed] = (columns, names)
        return said[1]

    def met_twice(self) -> bool:
        """Whether a listing brought a link of a row's slug twice (the diff then
        compares that row with the link the index holds)."""
        return self.marks.find(_MET) >= 0

    def take(self, links: Sequence[RemoteLink], *, compare: bool = True) -> Sequence[RemoteLink]:
        """One page's links: each shares the text of the row naming it, and (``compare``)
        the row is compared with it the short way. Returns the page's links but the
        candidates' (``links`` itself when it has none)."""
        rows, desired, marks, links_at = self.rows, self.desired, self.marks, self.links_at
        took: list[RemoteLink] = []
        took_one = took.append
        mixed = False  # links of several domains in the page
        tags_of = self._tags_of
        host: str | None = None
        named: Mapping[str, int] | None = None
        quiet = False
        last_managed: frozenset[str] | None = None
        last_columns: Mapping[str, str] | None = None
        plain: tuple[str, ...] = ()
        password = tags = expires = simple = False
        names: tuple[str, ...] = ()
        given, skip, last, after, step = self.given, self._skip, len(desired) - 1, -1, 1
        in_order = False
        spelt: object = _NO_ROW  # the domain as given of the row looked at before
        spelt_here = False  # ... and whether it is ``domain``
        for link in links:
            if link.domain is not host:  # the links of a page share their domain's text
                mixed = mixed or (host is not None and host != link.domain)
                host = link.domain
                domain = fold_domain(host)
                named = rows.get(domain)
                quiet = compare and not self._off and domain in self.usable
                in_order, spelt = domain in self._unique, _NO_ROW
            if not named:
                continue
            slug = link.slug
            # The row after (or before: ``step``) the row of the link before: when it
            # names this slug on this domain it is the only row naming it
            # (``in_order``): no slug is looked up.
            at = after + step
            if in_order and 0 <= at <= last:
                spec = desired[at]
                if spec.slug == slug and not (skip and at in skip):
                    if spec.domain is not spelt:
                        spelt = spec.domain
                        spelt_here = given.get(spelt) == domain
                    if not spelt_here:
                        at = -1
                else:
                    at = -1
            else:
                at = -1
            if at < 0:
                found = named.get(slug)
                if found is None:
                    folded = slug.lower()  # ``fold_slug``, inline
                    if folded == slug:
                        continue
                    found = named.get(folded)
                    if found is None:
                        continue
                if found - after in (1, -1):  # the listing's order: the rows' or reversed
                    step = found - after
                at = found
                spec = desired[at]
            after = at
            url = spec.url
            remote_url = link.url
            if remote_url is not url and remote_url == url:
                _force(link, "url", url)
                remote_url = url
            spec_slug = spec.slug
            if slug is not spec_slug and slug == spec_slug:
                _force(link, "slug", spec_slug)
            description = spec.description
            text = link.description
            if text is not description and text is not None and text == description:
                _force(link, "description", description)
                text = description
            if not quiet:
                continue
            if links_at[at] is not None:  # a second link of the row's slug: the diff decides
                marks[at] = _MET
                continue
            links_at[at] = link
            # What ``QuickDiff`` compares (``linksync.sync.unchanged``), in its order.
            if url is not None and url is not remote_url and url.strip() != remote_url.strip():
                continue
            managed = spec.managed
            prov = spec.provenance
            columns = prov.columns if prov is not None else None
            if managed is not last_managed or columns is not last_columns:  # a sheet's rows
                last_managed, last_columns = managed, columns  # share both: looked at once
                plain, password, tags, expires = self._checks_of(managed)
                names = self._left_names(managed, columns) if columns else ()
                simple = plain is _DESCRIPTION and not (password or tags or expires or names)
            if simple:  # the commonest sheet: its description to compare, no note to make
                if text is description or (description or None) == (text or None):
                    marks[at] = CANDIDATE
                    took_one(link)
                continue
            if plain:  # ``description`` shared above when equal: the same string
                if plain is _DESCRIPTION:
                    if text is not description and (description or None) != (text or None):
                        continue
                elif any((getattr(spec, n) or None) != (getattr(link, n) or None) for n in plain):
                    continue
            if (
                (password and (spec.password or link.has_password))
                or (tags and set(tags_of(spec)) != set(link.tags))
                or (expires and not same_instant(spec.expires_at, link.expires_at))
            ):
                continue
            if names and left_alone(spec, link, self.options):
                continue  # a row with a note goes the diff's way
            marks[at] = CANDIDATE
            took_one(link)
        if not took or mixed:  # a page of several domains is entered whole
            return links
        if len(took) == len(links):
            return ()
        held = set(map(id, took))
        return [link for link in links if id(link) not in held]


def rows_by_slug(
    desired: Iterable[LinkSpec], skip: Collection[int], positions: Sequence[int]
) -> Iterable[tuple[int, LinkSpec]]:
    """(position, row) of ``desired`` but the positions in ``skip`` (``positions``: the
    shared position objects, ``linksync.model.numbers.shared_ints``)."""
    pairs = zip(positions, desired, strict=False)
    if not skip:
        return pairs
    return ((i, spec) for i, spec in pairs if i not in skip)
