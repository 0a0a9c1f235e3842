"""One shared rate limiter per client, paced from the service's ``x-ratelimit-*`` headers.

Rules, shared by every task that uses the client:

1. at most ``concurrency`` requests in flight (a semaphore): the user's ceiling;
2. until the first answer arrives, one request at a time: nothing is known of the limit;
3. in flight at most the cap (``api/inflight.py``), which follows Little's law: the
   service's long-run rate (the limit over the window's length) times the observed
   latency, doubled, plus 4, within [2, ``concurrency``]; it is 4 after the first answer
   and grows by at most 1 per answer, and the sends that need a new connection (more in
   flight than at any time in the last 5 s: idle connections live about that long) go
   at most 4 in any 10 ms: new connections open a few at a time, never dozens in one
   instant, and idle ones are reused (a transport opens one only when none is idle);
4. one ``resume_at`` instant parks every task: it is set from ``Retry-After`` on a 429
   and from ``x-ratelimit-reset`` when ``x-ratelimit-remaining`` reaches 0, so a 429
   pauses every worker, not only the one that got it;
5. the window's budget: a sender may go only while ``remaining`` (the smallest figure
   the window's answers gave, or the whole limit when a new window starts) is larger
   than the requests in flight, since each of them may still be counted in this window
   (a request sent just before a window ends may be counted in the next one);
6. pacing: the sends the window has left are spread evenly over the time it has left,
   so workers do not burst at a window's start; but when everything that wants to go
   (the senders waiting, and ``queued``: what callers announce they still hold) fits in
   what the window has left, it goes without spacing (within the cap), since holding it
   back could only lose time (the end of a run, a single command). A send is due one
   spacing after the previous one was due, so a timer that woke late is made up (by one
   spacing at most);
7. the senders wait in line: one at a time applies these rules and hands over to the
   next when it goes, so a pacing step or an answer wakes one task, not all of them.

A window ends at its ``x-ratelimit-reset`` (a Unix time; values below 10^9 are read as
seconds from now) plus the lag of the service's clock behind ours, learned when an
answer is counted in a window that had already ended, by our clock, when the request
was sent. The next window then starts with the whole limit (``x-ratelimit-limit``, or
one more than the largest ``remaining`` seen) and ends one window length later (the
shortest distance seen between two reset values; before two were seen, the longest time
left that an answer announced) until its own answers tell. Any estimate is safe: every
request sent is either answered, and its answer names its window, or still in flight,
and counted against the next window too.

Counting the requests in flight against every window is what makes a client alone on
its key never receive a 429, whatever the latency. The clock is wall time (the reset is
a Unix time); clock and sleep are injectable so tests run without real waiting.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from linksync.api.defaults import DEFAULT_CONCURRENCY
from linksync.api.failures import header
from linksync.api.inflight import InFlightCap

Sleep = Callable[[float], Awaitable[None]]
Clock = Callable[[], float]

#: Values of x-ratelimit-reset below this are read as seconds from now, not Unix time.
_RELATIVE_RESET_BELOW = 1_000_000_000.0
#: Two reset values closer than this name the same window (Unix-time resets are exact;
#: resets given as seconds from now drift by up to their rounding, one second).
_SAME_WINDOW = 0.5
_SAME_WINDOW_RELATIVE = 1.0
#: Added to a learned lag of the service's clock (seconds).
_LAG_MARGIN = 0.25
#: The shortest window the cap's rate assumes before the window's length is known (s).
_ASSUMED_WINDOW = 1.0


def _number(headers: Mapping[str, str], name: str) -> float | None:
    # aiohttp's and httpx's headers look names up case-insensitively; a plain dict not
    value = header(headers, name) if isinstance(headers, dict) else headers.get(name)
    if value is None:
        return None
    try:
        number = float(value)  # surrounding whitespace allowed, as str.strip() removes it
    except ValueError:
        return None
    return number if math.isfinite(number) else None


@dataclass(slots=True)
class LimiterState:
    """A snapshot: when every task may send again (rule 4), for the client's
    ``rate_limit_wait``; for tests and benchmarks, rule 3's figures."""

    resume_at: float
    #: The in-flight cap now (rule 3), and the most requests ever in flight at once.
    cap: int = 1
    max_in_flight: int = 0
    #: The latency the cap is computed with (seconds; None before the first answer).
    latency_s: float | None = None


class RateLimiter:
    """Shared by every request of one client. Use ``async with limiter.slot() as slot``
    around one request, and ``slot.observe(headers)`` with its answer."""

    def __init__(
        self,
        concurrency: int = DEFAULT_CONCURRENCY,
        *,
        sleep: Sleep = asyncio.sleep,
        clock: Clock = time.time,
        max_reset_wait: float = 120.0,
    ) -> None:
        self._sleep = sleep
        self._clock = clock
        self._max_reset_wait = max_reset_wait
        self._semaphore = asyncio.Semaphore(concurrency)
        self._answer = asyncio.Event()  # replaced after an answer a task waited for
        self._answer_awaited = False  # a task waits for ``_answer`` (it is set, replaced)
        self._in_flight = 0
        self._answered = False
        self._limit: int | None = None
        self._limit_given = False
        self._remaining: int | None = None
        self._reset_at: float | None = None
        self._last_reset: float | None = None  # the last reset value an answer gave
        self._window: float | None = None
        self._window_floor = 0.0  # the window is at least this long (reset - answer time)
        self._lag = 0.0
        self._next_send = 0.0
        self._resume_at = 0.0
        self._waiting = 0
        self._head_taken = False  # a task is running the admission rules
        self._cap = InFlightCap(concurrency)  # rule 3
        self._turns: deque[asyncio.Future[None]] = deque()  # the others, in order
        #: Requests a caller still holds back for later (a pool's queue): a hint for
        #: pacing, never a reason to exceed the window's budget.
        self.queued = 0
        self.waited = 0.0

    def state(self) -> LimiterState:
        return LimiterState(self._resume_at, self._cap.value, self._cap.most, self._cap.latency())

    def pause(self, seconds: float) -> None:
        """Park every task for ``seconds`` from now (a 429's Retry-After)."""
        until = self._clock() + max(0.0, seconds)
        self._resume_at = max(self._resume_at, until)

    # --- admission ------------------------------------------------------------------

    async def enter(self) -> float:
        """Wait until this task may send (rules 1-7) and count it in flight; returns the
        send time, for ``leave``. ``slot()`` wraps the pair."""
        await self._semaphore.acquire()
        self._waiting += 1
        try:
            return await self._admit()
        except BaseException:
            self._semaphore.release()
            raise
        finally:
            self._waiting -= 1

    def leave(self, headers: Mapping[str, str] | None, sent_at: float) -> None:
        """The request ``enter`` let go at ``sent_at`` ended: with its answer's
        ``headers``, or None when no answer came."""
        try:
            self._done(headers, sent_at)
        finally:
            self._semaphore.release()

    async def _admit(self) -> float:
        """Wait until this task may send, count it in flight; returns the send time.

        One task at a time runs the admission rules (the head); the others wait their
        turn in order, and the head hands over when it is let through (a pacing step or
        an answer wakes one task, not every waiting one: benchmarks/README.md)."""
        if self._head_taken:
            turn = asyncio.get_running_loop().create_future()
            self._turns.append(turn)
            try:
                await turn
            except BaseException:
                if turn.done() and not turn.cancelled():
                    self._hand_over()  # it was our turn: give it to the next one
                else:
                    self._turns.remove(turn)
                raise
        else:
            self._head_taken = True
        try:
            step = self._rules()
            while not isinstance(step, float | int):  # something to wait for first
                await step
                step = self._rules()
            return step
        finally:
            self._hand_over()

    def _hand_over(self) -> None:
        """The next waiting task becomes the head (or nobody is)."""
        while self._turns:
            turn = self._turns.popleft()
            if not turn.done():
                turn.set_result(None)
                return
        self._head_taken = False

    def _rules(self) -> float | Awaitable[object]:
        """The head's pass over the rules: the send time when it may go now (counted in
        flight), else what to wait for before the next pass (no coroutine a pass: most
        sends wait for nothing)."""
        while True:
            now = self._clock()
            if self._resume_at > now:
                delay = self._resume_at - now
                self.waited += delay
                return self._sleep(delay)
            self._roll(now)
            if not self._answered and self._in_flight > 0:
                return self._next_answer()  # the first request goes alone
            if self._in_flight >= self._cap.value:
                return self._next_answer()  # rule 3: as many as rate x latency needs
            opening = self._cap.opening_delay(self._in_flight, now)
            if opening > 0:  # rule 3: a few new connections at a time
                return self._answer_or_sleep(opening)  # an answer frees a connection
            budget = None if self._remaining is None else self._remaining - self._in_flight
            if budget is not None and budget <= 0:
                if self._in_flight > 0:
                    return self._next_answer()  # it may free a request (see _observe)
                if self._reset_at is not None:
                    self._resume_at = max(self._resume_at, self._reset_at + self._lag)
                else:  # nothing left and no known end: ask once, the answer will tell
                    self._remaining, self._answered = None, False
                continue
            if self._next_send > now and not self._fits(budget):
                return self._sleep(self._next_send - now)
            # The next send is due one spacing after this one was due, not after it
            # went: a wake-up that came late (timers are rounded up to the millisecond)
            # is made up by the next one, by at most one spacing, so no burst builds up.
            spacing = self._spacing(now, budget)
            self._next_send = max(self._next_send, now - spacing) + spacing
            self._in_flight += 1
            self._cap.sent(self._in_flight, now)
            return now

    def _fits(self, budget: int | None) -> bool:
        """Everything that wants to go fits in what the window has left."""
        return budget is not None and self._waiting + max(0, self.queued) <= budget

    def _spacing(self, now: float, budget: int | None) -> float:
        """Time to the next send: the window's time left over its sends left."""
        if budget is None or self._reset_at is None or self._fits(budget):
            return 0.0
        left = self._reset_at + self._lag - now
        return left / budget if left > 0 else 0.0

    def _next_answer(self) -> Awaitable[bool]:
        """Until the next answer comes."""
        self._answer_awaited = True
        return self._answer.wait()

    async def _answer_or_sleep(self, seconds: float) -> None:
        """Until the next answer (its idle connection may take the send) or ``seconds``."""
        answer = asyncio.ensure_future(self._next_answer())
        timer = asyncio.ensure_future(self._sleep(seconds))
        try:
            await asyncio.wait((answer, timer), return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (answer, timer):
                task.cancel()

    def _roll(self, now: float) -> None:
        """When the known window is over, start the next one with the whole limit."""
        if self._reset_at is None or now < self._reset_at + self._lag:
            return
        self._remaining = self._limit
        window = self._window or self._window_floor
        if window > 0:
            passed = math.floor((now - self._lag - self._reset_at) / window) + 1
            self._reset_at += passed * window
        else:
            self._reset_at = None
        self._next_send = min(self._next_send, now)

    # --- answers --------------------------------------------------------------------

    def _done(self, headers: Mapping[str, str] | None, sent_at: float) -> None:
        self._in_flight -= 1
        now = self._clock()
        self._cap.released(self._in_flight, now)
        if headers is not None:
            self._answered = True
            self._observe(headers, sent_at)
            self._cap.answered(max(0.0, now - sent_at), self._rate())
        if self._answer_awaited:  # else nobody waits: the event stays as it is, unset
            wake, self._answer, self._answer_awaited = self._answer, asyncio.Event(), False
            wake.set()

    def _rate(self) -> float | None:
        """Requests a second the service allows in the long run: the limit over the
        window's length (None: not known). Until two reset values have told the length,
        the longest time left an answer announced stands for it, but not less than
        ``_ASSUMED_WINDOW``: a first answer late in a window would tell a rate many times
        too high. (What a window has left is not counted: spending it faster than this
        rate is a burst the pacing rule allows, not a reason to open more connections.)"""
        if self._limit is None or (self._window is None and self._window_floor <= 0):
            return None
        window = self._window or max(self._window_floor, _ASSUMED_WINDOW)
        return self._limit / window

    def _observe(self, headers: Mapping[str, str], sent_at: float) -> None:
        remaining = _number(headers, "x-ratelimit-remaining")
        if remaining is None:
            return
        now = self._clock()
        self._roll(now)
        rem = max(0, int(remaining))
        limit = _number(headers, "x-ratelimit-limit")
        if limit is not None and limit >= 1:
            self._limit, self._limit_given = int(limit), True
        elif not self._limit_given:
            self._limit = max(self._limit or 1, rem + 1)
        reset = _number(headers, "x-ratelimit-reset")
        same = _SAME_WINDOW
        if reset is not None and reset < _RELATIVE_RESET_BELOW:
            reset, same = now + reset, _SAME_WINDOW_RELATIVE
        if reset is None:
            self._take(rem)
            return
        reset = min(reset, now + self._max_reset_wait)
        if reset <= sent_at - self._lag:
            # Counted in a window that had ended, by our clock, before it was sent: the
            # service's clock is behind ours by at least that much (and a little more:
            # ending our windows late is safe, their answers tell the service's window).
            lag = min(sent_at - reset + _LAG_MARGIN, self._max_reset_wait)
            self._lag = max(self._lag, lag)
        if reset + self._lag <= now:
            return  # an answer of a window that is over
        self._learn_window(reset, same)
        self._window_floor = max(self._window_floor, reset - now)
        current = self._reset_at
        if current is None or reset < current - same:
            # The first figure of the running window, or its end is sooner than estimated.
            self._reset_at = reset
            self._take(rem)
        elif reset > current + same:
            # The service has moved on to a later window: its figure replaces ours.
            self._reset_at, self._remaining = reset, rem
        else:
            self._reset_at = max(current, reset)  # the later end is the safe one
            self._take(rem)
        if self._remaining == 0:
            self._resume_at = max(self._resume_at, self._reset_at + self._lag)

    def _take(self, rem: int) -> None:
        """Answers of one window arrive out of order: the smallest figure is the newest."""
        self._remaining = rem if self._remaining is None else min(self._remaining, rem)

    def _learn_window(self, reset: float, same: float) -> None:
        last = self._last_reset
        if last is not None and reset > last + same:
            step = reset - last
            self._window = step if self._window is None else min(self._window, step)
        if last is None or reset > last + same:
            self._last_reset = reset

    def slot(self) -> Slot:
        """``async with limiter.slot() as slot:`` around one request (rules 1-7)."""
        return Slot(self)


class Slot:
    """One admitted request; record its answer's headers with :meth:`observe`. An
    async context manager of its own (not a generator): one is entered per request."""

    __slots__ = ("_limiter", "_sent_at", "headers")

    def __init__(self, limiter: RateLimiter) -> None:
        self._limiter = limiter
        self._sent_at = 0.0
        self.headers: Mapping[str, str] | None = None

    def observe(self, headers: Mapping[str, str]) -> None:
        self.headers = headers

    async def __aenter__(self) -> Slot:
        self._sent_at = await self._limiter.enter()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._limiter.leave(self.headers, self._sent_at)
