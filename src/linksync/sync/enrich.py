"""``--ai-slug`` / ``--ai-og``: fill empty slugs and descriptions from the AI tools.

Runs after the remote state is read and before the diff, and asks only for rows that
need it: a slug for a row without one that matches no existing link by URL (rows that
do match keep their link), a description for a row that gives none whose link has none
either. One request per row asked, through the client's limiter. A suggested slug that
is taken (on the service or by another row) gets ``-2``, ``-3``... appended.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from linksync.api import LinkServiceClient
from linksync.model import LinkSpec
from linksync.sync.diff import row_domain
from linksync.sync.options import SyncOptions
from linksync.sync.remote import gather_or_cancel
from linksync.sync.state import RemoteState


def _matches_remote(spec: LinkSpec, domain: str, remote: RemoteState) -> bool:
    url = (spec.url or "").strip()
    return any(x.url.strip() == url for x in remote.on_domain(domain))


def _free_slug(base: str, domain: str, remote: RemoteState, taken: set[tuple[str, str]]) -> str:
    candidate, n = base, 1
    while (domain, candidate.lower()) in taken or remote.get(domain, candidate) is not None:
        n += 1
        candidate = f"{base}-{n}"
    return candidate


async def enrich(
    specs: Sequence[LinkSpec],
    remote: RemoteState,
    client: LinkServiceClient,
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
        if ai_slug and not spec.slug and not _matches_remote(spec, domain, remote):
            slug_jobs.append(i)
        if ai_og and not spec.description:
            link = remote.get(domain, spec.slug) if spec.slug else None
            if link is None or not link.description:
                og_jobs.append(i)
    suggestions: dict[int, str] = {}
    descriptions: dict[int, str] = {}

    async def slug_worker(queue: list[int]) -> None:
        while queue:
            i = queue.pop()
            suggestions[i] = await client.ai_slug((out[i].url or "").strip())

    async def og_worker(queue: list[int]) -> None:
        while queue:
            i = queue.pop()
            og = await client.ai_og((out[i].url or "").strip())
            text = og.title or og.description
            if text:
                descriptions[i] = text

    size = max(1, client.concurrency)
    squeue, oqueue = list(reversed(slug_jobs)), list(reversed(og_jobs))
    await gather_or_cancel(
        [slug_worker(squeue) for _ in range(size)] + [og_worker(oqueue) for _ in range(size)]
    )
    taken = {(row_domain(s, options, system), s.slug.lower()) for s in out if s.slug is not None}
    for i in sorted(suggestions):
        domain = row_domain(out[i], options, system)
        slug = _free_slug(suggestions[i], domain, remote, taken)
        taken.add((domain, slug.lower()))
        out[i] = replace(out[i], slug=slug)
    for i, text in descriptions.items():
        spec = out[i]
        out[i] = replace(spec, description=text, managed=spec.managed | {"description"})
    return out
