"""Row numbers and row positions, each number one object for the whole process.

A plan of a million rows holds a million row numbers (in the rows' ``Provenance``) and
a million positions (the plan's ``Change.index``, the diff's claims): two million
``int`` objects of 32 bytes each, where one million distinct numbers would do (the row
number of one row is the position of another). ``shared_ints`` hands out the same
object for the same number, as Python itself does for numbers up to 256.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

_INTS: list[int] = list(range(1024))


def shared_ints(stop: int) -> list[int]:
    """A list whose item ``i`` is the number ``i``, the same object at each call, for
    every ``i`` below ``stop`` at least (read it, never change it)."""
    if len(_INTS) < stop:
        _INTS.extend(range(len(_INTS), stop))
    return _INTS


def shared(numbers: Iterable[int]) -> Iterator[int]:
    """``numbers``, each as the shared object (as they are: any negative one)."""
    got = list(numbers)
    if not got or min(got) < 0:
        return iter(got)
    ints = shared_ints(max(got) + 1)
    return map(ints.__getitem__, got)
