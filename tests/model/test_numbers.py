"""A number handed out for a row or a position is one object for the process."""

from __future__ import annotations

from linksync.model.numbers import shared, shared_ints


def test_a_number_is_one_object_whoever_asks() -> None:
    first = shared_ints(5000)
    again = shared_ints(10)
    assert first is again and first[4321] == 4321
    assert all(a is b for a, b in zip(shared(range(1000, 4000)), first[1000:4000], strict=True))
    assert list(shared([3, -1, 7000])) == [3, -1, 7000]  # a negative row: as it is
