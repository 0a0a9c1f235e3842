"""Fetch the remote state a plan needs, and no more.

Order: the organization (link count and quota: 1 request), the custom domains
(1 request: a scope domain that is neither one of them nor the system domain refuses
the run, ``linksync.sync.ownership.check_scope``), then the links of each domain the
plan touches, each domain by the cheaper of two strategies:

- ``list``: every page of the domain (limit 100), ceil(n/100) requests; required in
  mirror mode for domains in the delete scope, and for domains with rows that have no
  slug (they are matched by URL);
- ``read``: each desired slug by itself (404 means absent), one request per slug.

The list cost needs the domain's link count. When the workspace has no custom domain,
every link is on the system domain, so the organization's linkCount is that count.
Otherwise the organization's count bounds it: if even that bound lists cheaper than
reading, list; if there are at most two slugs, read; else fetch the first page
(limit 100, which is also page 1 of a listing) and decide with its pagination total,
counting the desired slugs the page already answered.

When the system domain is not known (a remote target does not announce it), page 1 of
the unfiltered list names it (one request); with no custom domain that page is also
page 1 of the system domain's listing, which then goes on unfiltered.

A mirror with an owner tag learns whether any link of the workspace carries it (from
the links listed, else one page of one link of the tag's listing): a tag nobody carries
is a warning of the plan (``linksync.sync.ownership.owner_tag_unused``).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial

from linksync.api import LinkClient, LinkPage
from linksync.errors import ApiError, ConfigError
from linksync.model import LinkKey, LinkSpec, RemoteLink
from linksync.model.links import fold_domain
from linksync.sync.matched import Matched
from linksync.sync.needs import Need, needs
from linksync.sync.options import SyncOptions
from linksync.sync.ownership import check_scope
from linksync.sync.pool import run_pool
from linksync.sync.state import DomainFetch, DomainInfo, LinkIndex, OrgInfo, RemoteState

PAGE = 100


@dataclass(slots=True)
class _Acc:
    links: LinkIndex = field(default_factory=LinkIndex)
    listed: set[str] = field(default_factory=set)
    read_keys: set[LinkKey] = field(default_factory=set)
    fetches: list[DomainFetch] = field(default_factory=list)
    requests: int = 0
    #: Page 1 of the unfiltered list, read to learn the system domain when the
    #: workspace has no custom domain: then it is page 1 of the system domain too.
    first_of_all: LinkPage | None = None
    #: the rows the pages' links are matched to (``linksync.sync.matched``)
    matched: Matched | None = None
    #: per listed domain whose candidates' links were left out of ``links``, its
    #: listing's links, page by page (``LinkIndex.park``); None: every link entered
    parked: dict[str, list[Sequence[RemoteLink]]] | None = field(default_factory=dict)


async def fetch_remote(
    client: LinkClient,
    desired: Sequence[LinkSpec],
    options: SyncOptions,
    *,
    named: bool = False,
    skip: Collection[int] = (),
) -> RemoteState:
    """Read the organization, the custom domains and the links the plan needs (of the
    rows of ``desired`` but those at the positions in ``skip``: invalid rows).

    ``named``: the links ``desired`` names and no others (a partial run, a saved
    partial plan): a mirror's scope is not listed nor its owner tag looked for, and a
    domain is read slug by slug unless even the whole workspace lists in fewer requests
    (no first page is read to learn a domain's size); rows without a slug still list
    their domain (they are matched by URL). The links listed are matched to the rows
    as they come (``linksync.sync.matched``): a diff of the same ``desired`` under the
    same ``options`` takes the rows they match as they are (``RemoteState.matched``)."""
    acc = _Acc()
    org = await client.get_organization()
    domains = list(await client.list_domains())
    acc.requests += 2
    custom = {d.domain.lower(): DomainInfo(d.domain.lower(), d.status) for d in domains if d.domain}
    link_count = org.link_count
    quota = org.link_quota
    system = options.system_domain
    if system is None:
        system = await _discover_system_domain(client, custom, acc)
    system = system.lower()
    check_scope(options, system, custom)
    if not system:
        acc.listed.add("")
    given: dict[str | None, str] = {}
    wanted = needs(desired, options, system, named=named, skip=skip, domains=given)
    matched = Matched(desired, options, {d: need.slugs for d, need in wanted.items()}, given)
    matched.in_order({d for d, need in wanted.items() if not need.repeated}, skip)
    matched.usable_on(system, custom)
    acc.matched = matched
    if options.deletes and options.owner_tag is not None:
        acc.parked = None  # the owner tag's listing and its look-up read every link
    for domain, need in sorted(wanted.items()):
        if not domain:
            continue  # the unnamed system domain holds no link (see above)
        if domain != system and domain not in custom:
            continue  # the diff reports DOMAIN_NOT_FOUND; no request for it
        only_domain = not custom and domain == system
        await _fetch_domain(client, domain, need, link_count, only_domain, acc, named=named)
    if acc.parked:
        acc.links.park(acc.parked)
        if matched.met_twice():  # the diff compares that row with the link held
            acc.links.settle()
    owner = options.owner_tag if options.deletes and not options.scope_domains else None
    if owner is not None and not named:
        await _fetch_owned(client, owner, acc)
    tagged = None if named else await _owner_tagged(client, options, acc)
    state = RemoteState(
        system_domain=system,
        links=acc.links,
        listed_domains=frozenset(acc.listed),
        read_keys=frozenset(acc.read_keys),
        custom_domains=custom,
        org=OrgInfo(link_count, int(quota)) if quota is not None else None,
        fetches=tuple(acc.fetches),
        requests=acc.requests,
        owner_tagged=tagged,
    )
    object.__setattr__(state, "matched", matched)  # not a field a copy keeps
    return state


async def _discover_system_domain(
    client: LinkClient, custom: dict[str, DomainInfo], acc: _Acc
) -> str:
    page = await client.list_links_page(page=1, limit=PAGE)
    acc.requests += 1
    if not custom:
        acc.first_of_all = page
    system = system_domain_of(page, custom)
    if system is not None:
        return system
    raise ConfigError(
        "cannot tell the service's system domain from this workspace; set system_domain "
        "in the profile (or SyncOptions.system_domain)"
    )


def system_domain_of(page: LinkPage, custom: Collection[str]) -> str | None:
    """The system domain page 1 of the unfiltered list names: its first link on no
    custom domain; "" when the workspace has no such link at all (its name then does
    not matter for matching, and creates leave the domain to the service); None when
    the page cannot tell."""
    for link in page.links:
        if link.domain.lower() not in custom:
            return str(link.domain)
    return "" if page.is_last else None


def lists_domain(link_count: int, rows: int) -> bool:
    """Whether a domain is listed whole for ``rows`` rows rather than read slug by
    slug: the organization's ``link_count`` bounds its pages, and listing them costs
    no more requests than the rows' reads."""
    return max(1, math.ceil(link_count / PAGE)) <= rows


async def _fetch_domain(
    client: LinkClient,
    domain: str,
    need: Need,
    link_count: int,
    only_domain: bool,
    acc: _Acc,
    *,
    named: bool = False,
) -> None:
    n = len(need.slugs)
    if not need.must_list and n == 0:
        return
    if need.must_list or lists_domain(link_count, n):
        first = acc.first_of_all if only_domain else None
        total = link_count if only_domain else None
        await _list_rest(client, domain, acc, first=first, total=total, by_url=need.by_url)
        return
    if only_domain or n <= 2 or named:
        await _read_slugs(
            client, domain, sorted(need.slugs), acc, total=link_count if only_domain else None
        )
        return
    first = await client.list_links_page(page=1, limit=PAGE, domain=domain)
    acc.requests += 1
    total = first.total
    found = {link.key.slug for link in first.links}
    if first.is_last:
        _keep(acc, first.links)
        acc.listed.add(domain)
        acc.fetches.append(DomainFetch(domain, "list", 1, total, len(first.links)))
        return
    pages_left = math.ceil(total / PAGE) - 1 if total is not None else None
    missing = sorted(need.slugs.keys() - found)
    if pages_left is not None and pages_left <= len(missing):
        await _list_rest(client, domain, acc, first=first, total=total, by_url=need.by_url)
    else:
        _keep(acc, [link for link in first.links if link.key.slug in need.slugs])
        acc.read_keys.update(LinkKey.of(domain, s) for s in need.slugs.keys() & found)
        await _read_slugs(client, domain, missing, acc, total=total, spent=1)


def _keep(acc: _Acc, links: Iterable[RemoteLink]) -> None:
    for link in links:
        acc.links.add(link)


async def _all_pages(
    client: LinkClient,
    first: LinkPage | None,
    *,
    domain: str | None = None,
    tag: str | None = None,
    matched: Matched | None = None,
    compare: bool = True,
) -> tuple[list[LinkPage], list[Sequence[RemoteLink]], int]:
    """Every page of a listing (of a domain or a tag), in page order, each page's links
    but those matched to a quiet row (``Matched.take``), and the number of requests
    sent (``first``, when given, was page 1, already fetched).

    Once page 1 gives the total, the other pages are fetched concurrently, through the
    client's shared limiter. Without a total, or when links were added meanwhile, pages
    are read one after another until the last; a page that brings no link not seen
    before also ends the listing (a service that ignores ``page`` must not loop).
    Each page's links are matched to the rows as it comes (``Matched.take``; without
    ``compare``: they only share the rows' text)."""
    sent = 0
    if first is None:
        first = await client.list_links_page(page=1, limit=PAGE, tag=tag, domain=domain)
        sent += 1
    share = partial(matched.take, compare=compare) if matched is not None else _no_share
    pages: dict[int, LinkPage] = {1: first}
    rest: dict[int, Sequence[RemoteLink]] = {1: share(first.links)}
    last = page_count(first)
    if not first.is_last and first.links and last is not None and last > 1:

        async def fetch(n: int) -> None:
            page = await client.list_links_page(page=n, limit=PAGE, tag=tag, domain=domain)
            rest[n] = share(page.links)
            pages[n] = page

        await run_pool(range(2, last + 1), fetch, client.concurrency, queued=client.set_queued)
        sent += last - 1
    seen: set[LinkKey] | None = None  # made only when the listing goes on page by page
    n = max(pages)
    while not pages[n].is_last and len(pages[n].links) >= PAGE:
        if seen is None:
            seen = {link.key for page in pages.values() for link in page.links}
        page = await client.list_links_page(page=n + 1, limit=PAGE, tag=tag, domain=domain)
        sent += 1
        fresh = {link.key for link in page.links} - seen
        n += 1
        pages[n] = page
        rest[n] = share(page.links)
        if not fresh:
            break
        seen |= fresh
    order = sorted(pages)
    return [pages[k] for k in order], [rest[k] for k in order], sent


def _no_share(links: Sequence[RemoteLink]) -> Sequence[RemoteLink]:
    """No row to share text with: every link is entered."""
    return links


def page_count(page: LinkPage) -> int | None:
    """How many pages the listing has, from page 1's pagination block (None: unknown)."""
    if page.total_pages is not None:
        return int(page.total_pages)
    if page.total is not None:
        return math.ceil(int(page.total) / PAGE)
    return None


async def _list_rest(
    client: LinkClient,
    domain: str,
    acc: _Acc,
    *,
    first: LinkPage | None,
    total: int | None,
    by_url: bool = False,
) -> None:
    """List every link of ``domain`` (continuing after ``first`` when given; the first
    page of the unfiltered list goes on unfiltered: the workspace has only this domain).
    The links matched to quiet rows are left out of the index (entered on its first
    read, ``LinkIndex.park``) unless a row without slug is matched by URL there
    (``by_url``: ``RemoteState.with_url`` reads the domain whole in the diff)."""
    unfiltered = first is not None and first is acc.first_of_all
    pages, rest, sent = await _all_pages(
        client, first, domain=None if unfiltered else domain, matched=acc.matched
    )
    parking = acc.parked is not None and not by_url
    if parking:  # held by the diff's look-ups before any link is entered
        acc.links.slugs_on(domain)
    left_out = False
    count = 0
    for page, kept in zip(pages, rest, strict=True):
        if parking and kept is not page.links and fold_domain(page.links[0].domain) == domain:
            acc.links.add_all(kept)
            left_out = True
        else:
            acc.links.add_all(page.links)
        count += len(page.links)
        if total is None and page.total is not None:
            total = int(page.total)
    if left_out and acc.parked is not None:
        acc.parked[domain] = [page.links for page in pages]
    acc.requests += sent
    acc.listed.add(domain)
    spent = len(pages) if first is not None else sent
    acc.fetches.append(DomainFetch(domain, "list", spent, total, count))


async def _read_slugs(
    client: LinkClient,
    domain: str,
    slugs: Sequence[str],
    acc: _Acc,
    *,
    total: int | None,
    spent: int = 0,
) -> None:
    """Read each slug (concurrently, through the client's limiter); 404 means absent."""
    found: list[RemoteLink] = []

    async def read(slug: str) -> None:
        try:
            found.append(await client.get_link(slug, domain=domain))
        except ApiError as exc:
            # 404: absent. 400: a slug the service rejects cannot exist either.
            if exc.status not in (400, 404):
                raise

    await run_pool(slugs, read, client.concurrency, queued=client.set_queued)
    _keep(acc, found)
    acc.read_keys.update(LinkKey.of(domain, s) for s in slugs)
    acc.requests += len(slugs)
    acc.fetches.append(DomainFetch(domain, "read", spent + len(slugs), total, len(found)))


async def _fetch_owned(client: LinkClient, owner_tag: str, acc: _Acc) -> None:
    """Mirror scoped by owner tag alone: every link carrying the tag, on any domain."""
    # the links it holds are those of the domains' listings: no row is compared here
    pages, _, spent = await _all_pages(
        client, None, tag=owner_tag, matched=acc.matched, compare=False
    )
    count = 0
    for page in pages:
        for link in page.links:
            acc.links.keep_first(link)
        count += len(page.links)
    acc.requests += spent
    acc.fetches.append(DomainFetch(f"tag:{owner_tag}", "list", spent, None, count))


async def _owner_tagged(client: LinkClient, options: SyncOptions, acc: _Acc) -> bool | None:
    """Mirror with an owner tag: whether a link of the workspace carries it (a link
    fetched already, else one page of one link of the tag's listing). None otherwise."""
    tag = options.owner_tag
    if not options.deletes or tag is None:
        return None
    if any(tag in link.tags for link in acc.links.all_values()):
        return True
    if not options.scope_domains:
        return False  # _fetch_owned listed every link carrying it: none
    page = await client.list_links_page(page=1, limit=1, tag=tag)
    acc.requests += 1
    return bool(page.links)
