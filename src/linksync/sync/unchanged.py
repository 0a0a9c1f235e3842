"""The diff's short way for the commonest row: a row with a slug, no finding of its
own, on a usable domain, naming a link it matches in every field it manages. Such a
row plans ``unchanged``; a plan of a million of them walks this path a million times.

``QuickDiff.unchanged`` gives the very ``Change`` the full path of ``linksync.sync.diff``
gives such a row, or None for every other row (that path then decides it, from the
start). It only ever records what the full path records for the row (the row's claim
on its link), so a row it leaves to the full path is decided as if it had never been
looked at.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from linksync.model import Action, LinkKey, LinkSpec, Place, RemoteLink
from linksync.model.links import fold_domain
from linksync.rules.timestamps import same_instant
from linksync.sync.compare import LEFT_FIELDS, desired_tags, left_alone, left_alone_note
from linksync.sync.options import SyncOptions
from linksync.sync.plan import Change
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
    )

    def __init__(
        self,
        remote: RemoteState,
        options: SyncOptions,
        invalid: Collection[int],
        places: Mapping[Place, object],
        claimed: KeyMap[int],
    ) -> None:
        self._remote = remote
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

    def unchanged(self, index: int, spec: LinkSpec) -> Change | None:
        """The ``unchanged`` change of row ``index``, or None: the full path decides."""
        slug = spec.slug
        if not slug or self._off or index in self._invalid:
            return None
        prov = spec.provenance
        if self._places and prov is not None and prov.place in self._places:
            return None
        given = spec.domain
        try:
            known = self._domains[given]
        except KeyError:  # the first row of its domain (as given)
            known = self._domains[given] = self._domain(given)
        if known is None:
            return None
        domain, on_domain, claims = known
        folded = slug.lower()  # as ``fold_slug`` folds it: the slug itself when equal
        if folded == slug:
            folded = slug
        if on_domain is not None:
            link = on_domain.get(folded)
        else:
            link = self._remote.links.get(LinkKey(domain, folded))
        if link is None or not self._same(spec, link):
            return None
        if claims.setdefault(folded, index) != index:
            return None  # a duplicate: the full path says so
        notes: tuple[str, ...] = ()
        columns = prov.columns if prov is not None else None
        if columns:  # ``_notes``, not called for a row of a sheet known to say nothing
            left = self._left.get(spec.managed)
            if left is None or left[0] is not columns or left[1]:
                notes = self._notes(spec, link)
        return Change(Action.UNCHANGED, domain, link.slug, index, spec, link, notes=notes)

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

    def _same(self, spec: LinkSpec, link: RemoteLink) -> bool:
        """True when the full comparison finds no field to change, no note and no
        password it cannot compare; False also where it might (the full path then
        compares)."""
        url = spec.url
        remote_url = link.url
        if url is not None and url is not remote_url and url.strip() != remote_url.strip():
            return False
        managed = spec.managed
        checks = self._checks.get(managed)
        if checks is None:
            checks = self._checks[managed] = _checks(managed)
        plain, password, tags, expires = checks
        for name in plain:
            if (getattr(spec, name) or None) != (getattr(link, name) or None):
                return False
        if password and (spec.password or link.has_password):
            return False
        if tags and set(desired_tags(spec, self._options)) != set(link.tags):
            return False
        return not expires or same_instant(spec.expires_at, link.expires_at)
