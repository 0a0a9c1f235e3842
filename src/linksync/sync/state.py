"""The remote state the diff reads: a plain value, filled by ``sync.remote.fetch_remote``
(or by hand in tests).

What "absent" means depends on how a domain was read: on a ``listed`` domain every link
is known, so a key not in ``links`` does not exist and rows without slug can be matched
by URL; on a domain read slug by slug only the ``read_keys`` are known.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from linksync.model import LinkKey, RemoteLink


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

    def get(self, domain: str, slug: str) -> RemoteLink | None:
        return self.links.get(LinkKey.of(domain, slug))

    def on_domain(self, domain: str) -> list[RemoteLink]:
        d = domain.lower()
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
