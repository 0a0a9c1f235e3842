"""``--ai-slug`` / ``--ai-og``: fill empty slugs and descriptions from the AI tools.

Runs after the remote state is read and before the diff, and asks only for rows that
need it: a slug for a row without one that matches no existing link by URL (rows that
do match keep their link), a description for a row that gives none whose link has none
either. One request per row asked, through the client's limiter. A suggested slug that
is taken (on the service or by another row) gets ``-2``, ``-3``... appended.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from linksync.api import LinkClient
from linksync.model import LinkKey, LinkSpec
from linksync.sync.compare import row_domain
from linksync.sync.options import SyncOptions
from linksync.sync.pool import run_pool
from linksync.sync.state import RemoteState


def _free_slug(base: str, domain: str, remote: RemoteState, taken: set[LinkKey]) -> str:
    candidate, n = base, 1
    while LinkKey.of(domain, candidate) in taken or remote.get(domain, candidate) is not None:
        n += 1
        candidate = f"{base}-{n}"
    return candidate


async def enrich(
    specs: Sequence[LinkSpec],
    remote: RemoteState,
    client: LinkClient,
    options: SyncOptions,
    *,
    ai_slug: bool = False,
    ai_og: bool = False,
    skip: frozenset[int] = frozenset(),
) -> list[LinkSpec]:
    """``specs`` with slugs and descriptions filled in; rows in ``skip`` untouched."""
    out = list(specs)
    system = remote.system_domain
    slug_jobs: list[int] = []
    og_jobs: list[int] = []
    for i, spec in enumerate(out):
        if i in skip or not spec.url:
            continue
        domain = row_domain(spec, options, system)
        if ai_slug and not spec.slug and not remote.with_url(domain, spec.url.strip()):
            slug_jobs.append(i)
        if ai_og and not spec.description:
            link = remote.get(domain, spec.slug) if spec.slug else None
            if link is None or not link.description:
                og_jobs.append(i)
    suggestions: dict[int, str] = {}
    descriptions: dict[int, str] = {}

    async def ask(job: tuple[str, int]) -> None:
        what, i = job
        url = (out[i].url or "").strip()
        if what == "slug":
            suggestions[i] = await client.ai_slug(url)
            return
        og = await client.ai_og(url)
        text = og.title or og.description
        if text:
            descriptions[i] = text

    jobs = [("slug", i) for i in slug_jobs] + [("og", i) for i in og_jobs]
    await run_pool(jobs, ask, client.concurrency)
    taken = {LinkKey.of(row_domain(s, options, system), s.slug) for s in out if s.slug is not None}
    for i in sorted(suggestions):
        domain = row_domain(out[i], options, system)
        slug = _free_slug(suggestions[i], domain, remote, taken)
        taken.add(LinkKey.of(domain, slug))
        out[i] = msgspec.structs.replace(out[i], slug=slug)
    for i, text in descriptions.items():
        spec = out[i]
        out[i] = msgspec.structs.replace(
            spec, description=text, managed=spec.managed | {"description"}
        )
    return out
