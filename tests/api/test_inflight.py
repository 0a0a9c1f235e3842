"""``InFlightCap`` by itself: the target, the growth, the new connections (the
limiter's rule 3; the limiter with it is in ``test_connections.py``)."""

from __future__ import annotations

from linksync.api.inflight import InFlightCap


def test_the_target_is_rate_times_latency_with_headroom_within_floor_and_ceiling() -> None:
    cap = InFlightCap(64)
    assert cap.target(100.0) == 64  # no latency known yet: the ceiling
    cap.answered(0.030, 100.0)  # first answer: latency 30 ms + 2 x 15 ms
    assert abs((cap.latency() or 0) - 0.060) < 1e-12
    assert cap.target(100.0) == 12 + 4  # 100/s x 60 ms x 2 + 4
    assert cap.target(None) == 64  # no rate headers: the ceiling
    assert cap.target(1.0) == 1 + 4  # 1/s x 60 ms x 2, rounded up, + 4
    assert cap.target(100_000.0) == 64
    assert InFlightCap(3).target(100.0) == 3  # the user's ceiling holds
    tiny = InFlightCap(64)
    tiny.answered(0.0, 1.0)
    assert tiny.target(1.0) == 4  # a floor of 2 under the spare of 4


def test_the_cap_grows_by_one_an_answer_and_falls_at_once() -> None:
    cap = InFlightCap(64)
    assert cap.value == 1
    cap.answered(0.030, None)  # no rate: the target is the ceiling
    assert cap.value == 4
    for expected in (5, 6, 7, 8):
        cap.answered(0.030, None)
        assert cap.value == expected
    cap.answered(0.001, 10.0)  # a slow rate and a fast answer: the target is small
    assert cap.value == cap.target(10.0) < 8
    one = InFlightCap(1)
    one.answered(0.030, None)
    assert one.value == 1  # --concurrency 1: one at a time, always


def test_sends_that_need_a_new_connection_go_four_in_any_ten_ms() -> None:
    cap = InFlightCap(64)
    now = 100.0
    for n in range(1, 5):  # four new highs at one instant
        assert cap.opening_delay(n - 1, now) == 0.0
        cap.sent(n, now)
    assert cap.most == 4
    assert abs(cap.opening_delay(4, now) - 0.010) < 1e-9  # a fifth new one waits 10 ms
    assert cap.opening_delay(3, now) == 0.0  # below the most so far: an idle connection
    assert cap.opening_delay(4, now + 0.010) == 0.0


def test_after_a_quiet_spell_the_connections_count_as_new_again() -> None:
    """Idle connections are closed after about 5 s (keep-alive): rising again to a level
    not used for longer opens new ones, four at a time; within 5 s they are reused."""
    cap = InFlightCap(64)
    for n in range(1, 9):  # eight levels reached, 10 ms apart
        cap.sent(n, 100.0 + n * 0.01)
    for n in range(8, 0, -1):
        cap.released(n - 1, 100.2)  # all answered: eight idle connections
    for n in range(1, 9):  # 3 s later: every level is warm, none waits
        assert cap.opening_delay(n - 1, 103.2) == 0.0
        cap.sent(n, 103.2)
    for n in range(8, 0, -1):
        cap.released(n - 1, 103.3)
    later = 110.0  # 6.7 s later: the connections were closed
    for n in range(1, 5):
        assert cap.opening_delay(n - 1, later) == 0.0
        cap.sent(n, later)
    assert cap.opening_delay(4, later) > 0.0  # the fifth new one waits
