"""The rows of a plan that plan nothing and say nothing, held compactly.

A plan of a million rows that match their links is a million ``unchanged`` changes
with no note and no problem. ``QuietRows`` holds such rows as their positions and the
links they match (12 bytes a row, where a ``Change`` costs ten times that), and
``PlanChanges`` is a plan's every change: the changes held one by one (``listed``:
every change that does or says something, and the deletes) and the quiet rows, merged
in plan order. A ``Change`` is made for a quiet row only as the sequence is read (a
saved plan, JSON, markdown, a report file, a library caller): what only counts the
rows, or looks at those that say something, reads ``listed`` and ``len(quiet)``.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from typing import overload

from linksync.model import Action, LinkSpec, RemoteLink
from linksync.model.numbers import shared_ints
from linksync.sync.change import Change


class QuietRows:
    """Rows of ``desired`` whose change is ``unchanged`` with no note, no problem and
    no field: ``at`` their positions (ascending), ``links`` the link each matches, and
    ``domains`` the link's domain (folded) by the row's domain as given. Filled by the
    diff (``linksync.sync.unchanged``), then read only."""

    __slots__ = ("at", "desired", "domains", "links")

    def __init__(self, desired: Sequence[LinkSpec] = ()) -> None:
        self.desired = desired
        self.at = array("I")
        self.links: list[RemoteLink] = []
        self.domains: dict[str | None, str] = {}

    def __len__(self) -> int:
        return len(self.at)

    def claimed_on(self) -> dict[str, int]:
        """Per domain (folded), how many of its links the quiet rows claim: each claims
        its own (a later row naming it is a duplicate, not quiet). Told only when the
        rows' domains are one (else by none)."""
        domains = set(self.domains.values())
        return {domains.pop(): len(self.at)} if len(domains) == 1 else {}

    def change(self, k: int) -> Change:
        """The change of the ``k``-th quiet row: what the diff's full path makes of it."""
        index = self.at[k]
        spec, link = self.desired[index], self.links[k]
        position = shared_ints(index + 1)[index]  # the row number's own object
        domain = self.domains[spec.domain]
        return Change(Action.UNCHANGED, domain, link.slug, position, spec, link)


class PlanChanges(Sequence[Change]):
    """Every change of a plan, in plan order: ``listed`` (source rows in source order,
    then the changes of no row) with the ``quiet`` rows among them. Read whole (indexed)
    it holds a ``Change`` per row from then on; iterated, it makes one at a time."""

    __slots__ = ("_all", "listed", "quiet")

    def __init__(self, listed: tuple[Change, ...], quiet: QuietRows) -> None:
        self.listed = listed
        self.quiet = quiet
        self._all: tuple[Change, ...] | None = None

    def __len__(self) -> int:
        return len(self.listed) + len(self.quiet)

    def __iter__(self) -> Iterator[Change]:
        return iter(self._all) if self._all is not None else self._merged()

    def _merged(self) -> Iterator[Change]:
        quiet = self.quiet
        at, n, k, make = quiet.at, len(quiet), 0, quiet.change
        for ch in self.listed:
            if k < n:
                if ch.spec is None:  # the changes of no row come after every row
                    while k < n:
                        yield make(k)
                        k += 1
                else:
                    while k < n and at[k] < ch.index:
                        yield make(k)
                        k += 1
            yield ch
        while k < n:
            yield make(k)
            k += 1

    @overload
    def __getitem__(self, i: int) -> Change: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[Change, ...]: ...
    def __getitem__(self, i: int | slice) -> Change | tuple[Change, ...]:
        if self._all is None:
            self._all = tuple(self._merged())
        return self._all[i]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PlanChanges | tuple | list):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"PlanChanges({len(self.listed)} listed, {len(self.quiet)} quiet rows)"
