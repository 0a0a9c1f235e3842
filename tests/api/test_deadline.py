"""A request's deadline: a TimeoutError when it passes, any other cancellation as is."""

from __future__ import annotations

import asyncio

import pytest

from linksync.api.deadline import Deadline


def test_a_request_past_its_deadline_raises_timeout_error() -> None:
    async def slow() -> None:
        with Deadline(0.01):
            await asyncio.sleep(5)

    async def main() -> float:
        loop = asyncio.get_running_loop()
        start = loop.time()
        with pytest.raises(TimeoutError):
            await slow()
        return loop.time() - start

    assert asyncio.run(main()) < 1.0


def test_a_request_within_its_deadline_is_left_alone_and_its_timer_cancelled() -> None:
    async def main() -> str:
        with Deadline(0.05):
            await asyncio.sleep(0)
        await asyncio.sleep(0.1)  # past the deadline: nothing fires any more
        return "done"

    assert asyncio.run(main()) == "done"


def test_a_cancellation_from_outside_goes_through_as_it_is() -> None:
    async def main() -> None:
        async def request() -> None:
            with Deadline(5):
                await asyncio.sleep(5)

        task = asyncio.ensure_future(request())
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())


def test_a_cancellation_from_outside_after_the_deadline_passed_wins() -> None:
    async def main() -> None:
        async def request() -> None:
            with Deadline(0.01):
                try:
                    await asyncio.sleep(5)
                except asyncio.CancelledError:  # the deadline's: a clean-up that waits
                    await asyncio.sleep(5)

        task = asyncio.ensure_future(request())
        await asyncio.sleep(0.05)  # the deadline has passed, the clean-up waits
        task.cancel()  # and now a cancellation from outside: not a timeout
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())


def test_outside_a_task_it_refuses() -> None:
    with pytest.raises(RuntimeError):
        Deadline(1).__enter__()
