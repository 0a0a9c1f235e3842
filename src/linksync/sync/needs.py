"""What a plan needs of each domain: the slugs its rows name, and whether the domain
must be listed whole (``linksync.sync.remote`` fetches by it)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from itertools import compress
from typing import cast

from linksync.model import LinkSpec
from linksync.model.numbers import shared_ints
from linksync.sync.compare import row_domain
from linksync.sync.matched import rows_by_slug
from linksync.sync.options import SyncOptions


@dataclass(slots=True)
class Need:
    """What the plan needs of one domain."""

    #: folded slug -> the position of the first row naming it
    slugs: dict[str, int] = field(default_factory=dict)
    must_list: bool = False
    #: a row without slug is matched by URL on the domain (``RemoteState.with_url``)
    by_url: bool = False
    #: a slug (folded) is named by more than one row
    repeated: bool = False


#: no row read yet
_NO_ROW = object()


def needs(
    desired: Sequence[LinkSpec],
    options: SyncOptions,
    system_domain: str,
    *,
    named: bool = False,
    skip: Collection[int] = (),
    domains: dict[str | None, str] | None = None,
) -> dict[str, Need]:
    """Per domain: which slugs the rows name (by the position of the first row naming
    each), and whether the domain must be listed (``named``: the mirror's scope is not
    listed). The rows at the positions in ``skip`` are left out; ``domains``, when
    given, gets each row's domain as given -> its domain (folded)."""
    out = _one_domain(desired, options, system_domain, skip, domains)
    if out is None:
        out = _row_by_row(desired, options, system_domain, skip, domains)
    if options.deletes and not named:
        for domain in options.scope_domains:
            out.setdefault(domain, Need()).must_list = True
    return out


def _one_domain(
    desired: Sequence[LinkSpec],
    options: SyncOptions,
    system_domain: str,
    skip: Collection[int],
    domains: dict[str | None, str] | None,
) -> dict[str, Need] | None:
    """``needs`` of the commonest rows, in a few passes over them: one domain as given,
    a slug on every row, folded already, no two alike (then the map of slugs made at
    once is the map of first rows); None for any other rows."""
    n = len(desired)
    if not n:
        return None
    ints = shared_ints(n)
    spelt = {spec.domain for spec in desired}  # (an attribute read a row, specialized)
    if len(spelt) != 1:  # (of the rows left out too: then row by row)
        return None
    slugs = [spec.slug for spec in desired]
    at: Sequence[int] = ints
    if skip:
        kept = bytearray(b"\x01") * n
        for i in skip:
            if 0 <= i < n:
                kept[i] = 0
        slugs = list(compress(slugs, kept))
        at = list(compress(ints, kept))
        if not slugs:
            return None
    if not all(slugs):  # a row without slug
        return None
    named = cast("list[str]", slugs)
    try:
        joined = "\n".join(named)
    except TypeError:  # a slug that is not text: as row by row
        return None
    if joined.lower() != joined:  # a slug not folded yet (lower case leaves each as it is)
        return None
    first = dict(zip(named, at, strict=False))
    if len(first) != len(named):  # a slug two rows name: the first row of each, below
        return None
    domain = row_domain(desired[at[0]], options, system_domain)
    if domains is not None:
        domains[spelt.pop()] = domain
    return {domain: Need(first)}


def _row_by_row(
    desired: Sequence[LinkSpec],
    options: SyncOptions,
    system_domain: str,
    skip: Collection[int],
    domains: dict[str | None, str] | None,
) -> dict[str, Need]:
    """``needs`` of any rows, one row at a time."""
    out: dict[str, Need] = {}
    given: dict[str | None, Need] = {}  # a row's domain as given -> its domain's need
    spelt: object = _NO_ROW  # the domain as given of the row before, and its need
    need = Need()
    first = need.slugs.setdefault
    for at, spec in rows_by_slug(desired, skip, shared_ints(len(desired))):
        if spec.domain is not spelt:  # rows in a run share their domain's text
            spelt = spec.domain
            known = given.get(spec.domain)
            if known is None:
                domain = row_domain(spec, options, system_domain)
                known = given[spec.domain] = out.setdefault(domain, Need())
                if domains is not None:
                    domains[spec.domain] = domain
            need, first = known, known.slugs.setdefault
        slug = spec.slug
        if slug:
            folded = slug.lower()  # ``fold_slug``: the slug itself when already folded
            if first(slug if folded == slug else folded, at) is not at:
                need.repeated = True
        elif spec.url:  # a row with neither (a hidden row, not read) needs nothing
            need.must_list = need.by_url = True
    return out
