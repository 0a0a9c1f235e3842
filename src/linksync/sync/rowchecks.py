"""What the diff (``linksync.sync.diff``) asks of the rows beside its own steps: a
row's finding, and the stable slug of a row without one."""

from __future__ import annotations

from collections.abc import Collection, Iterable

from linksync.model import LinkKey, LinkSpec, Problem
from linksync.sync.compare import row_domain
from linksync.sync.options import SyncOptions
from linksync.sync.slugs import first_free, identity_domain
from linksync.sync.state import RemoteState


def problem(constant: str, message: str, spec: LinkSpec | None, field: str | None) -> Problem:
    """A finding of a row (``spec``; none: of no row) about ``field``."""
    return Problem(constant, message, spec.provenance if spec else None, field)


def named_keys(desired: Iterable[LinkSpec], options: SyncOptions, system: str) -> set[LinkKey]:
    """The keys the rows with a slug name (every row, invalid ones too)."""
    return {LinkKey.of(row_domain(s, options, system), s.slug) for s in desired if s.slug}


def stable_slug(
    domain: str,
    url: str,
    remote: RemoteState,
    taken_by: tuple[Collection[LinkKey], Collection[LinkKey]],
) -> str | None:
    """A row's stable slug: its first candidate that no link of the workspace holds and
    no row of the sources names nor claims (``taken_by``: the keys the rows name, the
    keys claimed so far), the same on every machine."""
    named, claimed = taken_by
    links = remote.links

    def taken(slug: str) -> bool:
        key = LinkKey(domain, slug)  # both lower case already
        return key in named or key in claimed or key in links

    found = first_free(identity_domain(domain, remote.system_domain), url, taken)
    return found[1] if found is not None else None
