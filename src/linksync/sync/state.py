"""The remote state the diff reads: a plain value, filled by ``sync.remote.fetch_remote``
(or by hand in tests).

What "absent" means depends on how a domain was read: on a ``listed`` domain every link
is known, so a key not in ``links`` does not exist and rows without slug can be matched
by URL; on a domain read slug by slug only the ``read_keys`` are known.

The links are held in a ``LinkIndex``: one dict of links by slug per domain, so a
million links cost one dict entry each and no key object of their own.
"""

from __future__ import annotations

from collections.abc import (
    Collection,
    ItemsView,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
    ValuesView,
)
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar, overload

from linksync.model import LinkKey, RemoteLink
from linksync.model.links import fold_domain, fold_slug

V = TypeVar("V")
T = TypeVar("T")


class KeyMap(Mapping[LinkKey, V]):
    """A mapping by ``LinkKey`` held as one dict per domain of values by folded slug:
    a key costs one dict entry, and a ``LinkKey`` is made only when the map is
    iterated. Keys given to it are folded already (``LinkKey.of``)."""

    __slots__ = ("_domains",)

    def __init__(self) -> None:
        self._domains: dict[str, dict[str, V]] = {}

    def _slugs(self, domain: str) -> dict[str, V]:
        slugs = self._domains.get(domain)
        if slugs is None:
            slugs = self._domains[domain] = {}
        return slugs

    def __setitem__(self, key: LinkKey, value: V) -> None:
        self._slugs(key[0])[key[1]] = value

    def drop(self, key: LinkKey) -> None:
        """Forget ``key`` (nothing when not held)."""
        slugs = self._domains.get(key[0])
        if slugs is not None:
            slugs.pop(key[1], None)

    def fill(self, values: Mapping[str, dict[str, V]], *, copy: bool = True) -> None:
        """Hold ``values`` (domain, folded -> folded slug -> value; a copy of each, or
        without ``copy`` the very dicts, the map's own from then on) in place of what
        the map holds of those domains."""
        for domain, slugs in values.items():
            self._domains[domain] = dict(slugs) if copy else slugs

    def setdefault(self, key: LinkKey, value: V) -> V:
        return self._slugs(key[0]).setdefault(key[1], value)

    def slugs_on(self, domain: str) -> dict[str, V]:
        """The values of ``domain`` (folded) by folded slug, to read and add to in place
        (a key's slug folded as ``LinkKey.of`` folds it)."""
        return self._slugs(domain)

    def on_domain(self, domain: str) -> Mapping[str, V]:
        """The values of ``domain`` (folded) by folded slug, in the order put."""
        return self._domains.get(domain, {})

    def __getitem__(self, key: LinkKey) -> V:
        return self._domains[key[0]][key[1]]

    @overload
    def get(self, key: LinkKey, /) -> V | None: ...
    @overload
    def get(self, key: LinkKey, /, default: V | T) -> V | T: ...
    def get(self, key: LinkKey, /, default: object = None) -> object:
        slugs = self._domains.get(key[0])
        return default if slugs is None else slugs.get(key[1], default)

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, tuple) or len(key) != 2:
            return False
        slugs = self._domains.get(key[0])
        return slugs is not None and key[1] in slugs

    def __iter__(self) -> Iterator[LinkKey]:
        for domain, slugs in self._domains.items():
            for slug in slugs:
                yield LinkKey(domain, slug)

    def __len__(self) -> int:
        return sum(len(slugs) for slugs in self._domains.values())

    def items(self) -> ItemsView[LinkKey, V]:
        return _Pairs(self)

    def values(self) -> ValuesView[V]:
        return _Values(self)

    def pairs(self) -> Iterator[tuple[LinkKey, V]]:
        """(key, value) of every key, in the order put (what ``items()`` yields)."""
        for domain, slugs in self._domains.items():
            for slug, value in slugs.items():
                yield LinkKey(domain, slug), value

    def all_values(self) -> Iterator[V]:
        """Every value, in the order put (what ``values()`` yields)."""
        for slugs in self._domains.values():
            yield from slugs.values()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self)} keys)"


class _Pairs(ItemsView[LinkKey, V]):
    """``KeyMap.items()``: iterated without a lookup per key."""

    _mapping: KeyMap[V]

    def __iter__(self) -> Iterator[tuple[LinkKey, V]]:
        return self._mapping.pairs()


class _Values(ValuesView[V]):
    """``KeyMap.values()``: iterated without a lookup per key."""

    _mapping: KeyMap[V]

    def __iter__(self) -> Iterator[V]:
        return self._mapping.all_values()


class LinkIndex(KeyMap[RemoteLink]):
    """The remote links by their key (``KeyMap``), filled by ``add`` while the links
    are fetched, then read as a mapping.

    A listing may leave out the links it matched to quiet rows (``park``: a million
    dict entries a plan of unchanged rows never looks up): they are entered, in the
    order listed, on the first read of the index (``settle``), so every reader gets
    the answers of an index that holds them; only the diff that takes those rows as
    they are reads the index without them (``unsettled``)."""

    __slots__ = ("_held", "_parked")

    def __init__(self, links: Iterable[RemoteLink] = ()) -> None:
        super().__init__()
        self._held: dict[str, dict[str, RemoteLink]] | None = None
        #: per domain (folded), the link sequences of its listing, in page order
        self._parked: dict[str, list[Sequence[RemoteLink]]] = {}
        for link in links:
            self.add(link)

    def __getattr__(self, name: str) -> Any:
        # Called only when ``_domains`` is unset: the index is parked. Any read, or
        # write, enters the parked links first.
        if name == "_domains" and self._held is not None:
            self.settle()
            return self._domains
        raise AttributeError(name)

    def park(self, listings: dict[str, list[Sequence[RemoteLink]]]) -> None:
        """The listings of these domains (folded: their link sequences, in page order)
        were entered but for some of their links: enter those on the first read."""
        if not listings or self._held is not None:
            return
        self._parked = listings
        self._held = self._domains
        del self._domains

    @property
    def parked(self) -> bool:
        """Whether links are left out (``park``) and not entered as yet."""
        return self._held is not None

    def settle(self) -> None:
        """Enter the parked links: each parked domain then holds its listing's every
        link, in the order listed, as if none had been left out."""
        domains, self._held = self._held, None
        if domains is None:
            return
        self._domains = domains
        listings, self._parked = self._parked, {}
        for domain in listings:
            domains.setdefault(domain, {}).clear()
        for pages in listings.values():
            for links in pages:
                self.add_all(links)

    def __repr__(self) -> str:  # a repr enters no link
        if self._held is None:
            return super().__repr__()
        held = sum(len(slugs) for slugs in self._held.values())
        return f"{type(self).__name__}({held} keys, more on first read)"

    @contextmanager
    def unsettled(self) -> Iterator[bool]:
        """Read (and add to) the index without its parked links while the block runs
        (yields whether any are left out); they are still entered on the first read
        after it."""
        held = self._held
        if held is None:
            yield False
            return
        self._domains = held
        try:
            yield True
        finally:
            if self._held is not None:  # not settled meanwhile
                del self._domains

    def add(self, link: RemoteLink) -> None:
        """Hold ``link`` under its key (in place of a link of the same key)."""
        self._slugs(fold_domain(link.domain))[fold_slug(link.slug)] = link

    def add_all(self, links: Iterable[RemoteLink]) -> None:
        """``add`` of each link (a page's links share their domain: looked up once)."""
        host: str | None = None
        slugs: dict[str, RemoteLink] = {}
        for link in links:
            if link.domain is not host:
                host = link.domain
                slugs = self._slugs(fold_domain(host))
            slug = link.slug
            folded = slug.lower()  # ``fold_slug``, inline: a million links, a call each
            slugs[slug if folded == slug else folded] = link

    def keep_first(self, link: RemoteLink) -> None:
        """Hold ``link`` unless a link of its key is held already."""
        self._slugs(fold_domain(link.domain)).setdefault(fold_slug(link.slug), link)


def unclaimed(
    links: Mapping[LinkKey, RemoteLink],
    claimed: Collection[LinkKey],
    known: Mapping[str, int] | None = None,
) -> Iterator[tuple[LinkKey, RemoteLink]]:
    """(key, link) of the links whose key is not in ``claimed``, in the order held
    (two ``KeyMap``s are compared domain by domain, slug by slug: no key is made for a
    claimed link). ``known``: per domain (folded), how many of its links ``claimed``
    is known to hold: a domain with no more links than that is passed by unread."""
    if not (isinstance(links, KeyMap) and isinstance(claimed, KeyMap)):
        yield from ((key, link) for key, link in links.items() if key not in claimed)
        return
    for domain, slugs in links._domains.items():
        if known and known.get(domain, -1) >= len(slugs):
            continue  # every link of the domain claimed
        taken = claimed.on_domain(domain)
        if 2 * len(taken) < len(slugs):  # most links unclaimed
            yield from ((LinkKey(domain, s), link) for s, link in slugs.items() if s not in taken)
            continue
        if slugs.keys() <= taken.keys():  # in C, and nothing made: every link claimed
            continue
        left = slugs.keys() - taken.keys()  # in C, and small
        yield from ((LinkKey(domain, s), link) for s, link in slugs.items() if s in left)


@dataclass(frozen=True, slots=True)
class DomainFetch:
    """How the links of one domain were fetched: ``list`` (every page), ``read`` (each
    desired slug by itself), or ``none`` (nothing needed). ``total`` is the domain's link
    count when known; ``requests`` what the fetch cost."""

    domain: str
    strategy: str
    requests: int
    total: int | None = None
    links: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DomainFetch:
        return cls(
            str(data["domain"]),
            str(data["strategy"]),
            int(data["requests"]),
            data.get("total"),
            int(data.get("links", 0)),
        )


@dataclass(frozen=True, slots=True)
class DomainInfo:
    """A custom domain of the workspace."""

    domain: str
    status: str | None = None

    @property
    def active(self) -> bool:
        return (self.status or "").lower() == "active"


@dataclass(frozen=True, slots=True)
class OrgInfo:
    """The organization figures the plan needs."""

    link_count: int
    link_quota: int


@dataclass(frozen=True, slots=True)
class RemoteState:
    system_domain: str
    links: Mapping[LinkKey, RemoteLink] = field(default_factory=dict)
    listed_domains: frozenset[str] = frozenset()
    read_keys: frozenset[LinkKey] = frozenset()
    custom_domains: Mapping[str, DomainInfo] = field(default_factory=dict)
    org: OrgInfo | None = None
    fetches: tuple[DomainFetch, ...] = ()
    requests: int = 0
    #: Mirror with an owner tag: whether a link of the workspace carries it (None: not asked)
    owner_tagged: bool | None = None
    #: domain -> URL (edges stripped) -> its links, filled on first use (``with_url``)
    _by_url: dict[str, dict[str, list[RemoteLink]]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    #: The rows the listing matched its links to as the pages came (a
    #: ``linksync.sync.matched.Matched``, not imported here: it compares rows), set by
    #: ``fetch_remote``; a copy made with ``dataclasses.replace`` (other links,
    #: perhaps) has none
    matched: Any = field(default=None, init=False, repr=False, compare=False)

    def get(self, domain: str, slug: str) -> RemoteLink | None:
        return self.links.get(LinkKey.of(domain, slug))

    def on_domain(self, domain: str) -> list[RemoteLink]:
        d = domain.lower()
        if isinstance(self.links, LinkIndex):
            return list(self.links.on_domain(d).values())
        return [link for (ld, _), link in self.links.items() if ld == d]

    def with_url(self, domain: str, url: str) -> list[RemoteLink]:
        """The links on ``domain`` whose URL, edges stripped, is ``url`` (listing
        order). The first call for a domain indexes it: one pass, not one per row."""
        d = domain.lower()
        index = self._by_url.get(d)
        if index is None:
            index = {}
            for link in self.on_domain(d):
                index.setdefault(link.url.strip(), []).append(link)
            self._by_url[d] = index
        return index.get(url, [])

    def domain_total(self, domain: str) -> int | None:
        for f in self.fetches:
            if f.domain == domain:
                return f.total
        return None
