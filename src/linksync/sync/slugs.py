"""Stable slugs: the slug a row without one is created with, derived from the row.

A row that names no slug is matched by (domain, URL) like before; when it matches no
link, it is created. With the service's random slug (``Slugless.RANDOM``) two runs
that do not share a lock (two CI runners, two machines) both create it: two links for
one row. With a stable slug (``Slugless.STABLE``, the default) every run derives the
same slug from the row's identity, the domain and the URL as the matcher compares it
(edges stripped), so whichever run comes second is refused by the service's own
uniqueness rule (409 SLUG_EXISTS), reads the link, finds its URL, and adopts it: at
most one link per row, however many runs race, on any number of machines.

A candidate is 7 characters of ``[a-z0-9]`` taken from a SHA-256 of the identity and
the candidate's number: it looks like a generated slug, and is one character longer
than the service's own (6), so it never meets one of those. Candidate 0 is the slug;
a candidate that is reserved (``linksync.rules.RESERVED_SLUGS``), or taken by a link to
another URL, or claimed by another row of the plan, gives way to the next, in the same
order on every machine. After ``MAX_CANDIDATES`` the row is an error: give it a slug.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from enum import StrEnum

from linksync.rules import RESERVED_SLUGS

#: Characters of a stable slug (the service generates 6: the two never meet).
STABLE_SLUG_LENGTH = 7
#: Candidates tried for one row before it is an error.
MAX_CANDIDATES = 8
_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"
#: Bumped only if the derivation ever changes (every existing stable slug would move).
_VERSION = b"linksync-stable-slug-1\n"


class Slugless(StrEnum):
    """How a row without a slug is created: a stable slug derived from the row, or the
    slug the service generates at random."""

    STABLE = "stable"
    RANDOM = "random"


SLUGLESS_MODES: tuple[str, ...] = tuple(m.value for m in Slugless)


def identity_domain(domain: str, system_domain: str | None) -> str:
    """The domain as a stable slug's identity names it: "" for the service's own
    domain, whether or not its name is known (a run against an empty workspace may not
    know it, the next one does: both must derive the same slug)."""
    folded = domain.strip().lower()
    return "" if folded == (system_domain or "").strip().lower() else folded


def stable_identity(domain: str, url: str) -> str:
    """What a stable slug is derived from: the domain (lower case; "" for the system
    domain, see ``identity_domain``) and the URL with its edges stripped, as
    ``RemoteState.with_url`` compares them."""
    return f"{domain.strip().lower()}\n{url.strip()}"


def _base36(number: int) -> str:
    """The last ``STABLE_SLUG_LENGTH`` (7) base-36 digits of ``number``, zero-padded."""
    digits = ""
    for _ in range(STABLE_SLUG_LENGTH):
        number, digit = divmod(number, 36)
        digits = _ALPHABET[digit] + digits
    return digits


def _candidate(identity: str, n: int) -> str:
    """Candidate ``n``: the first 64 bits of SHA-256(version, identity, n) in base 36."""
    digest = hashlib.sha256(b"%s%s\n%d" % (_VERSION, identity.encode("utf-8"), n)).digest()
    return _base36(int.from_bytes(digest[:8], "big"))


def stable_candidates(
    domain: str,
    url: str,
    *,
    start: int = 0,
    reserved: frozenset[str] = RESERVED_SLUGS,
) -> Iterator[tuple[int, str]]:
    """The candidates of a row, as (number, slug), from number ``start`` up to
    ``MAX_CANDIDATES`` (exclusive), reserved words left out."""
    identity = stable_identity(domain, url)
    for n in range(start, MAX_CANDIDATES):
        slug = _candidate(identity, n)
        if slug not in reserved:
            yield n, slug


def first_free(
    domain: str,
    url: str,
    taken: Callable[[str], bool],
    *,
    start: int = 0,
    reserved: frozenset[str] = RESERVED_SLUGS,
) -> tuple[int, str] | None:
    """The first candidate (number, slug) from ``start`` that ``taken`` does not refuse,
    or None when every candidate is reserved or taken."""
    for n, slug in stable_candidates(domain, url, start=start, reserved=reserved):
        if not taken(slug):
            return n, slug
    return None


def candidate_number(domain: str, url: str, slug: str) -> int | None:
    """Which candidate of the row ``slug`` is (None: not one of them)."""
    wanted = slug.lower()
    for n, candidate in stable_candidates(domain, url, reserved=frozenset()):
        if candidate == wanted:
            return n
    return None
