"""Fixtures of the fast reliability tests (helpers live in ``reliability_support``)."""

from __future__ import annotations

import pytest
from reliability_support import FakeTime


@pytest.fixture
def fake_time() -> FakeTime:
    return FakeTime()
