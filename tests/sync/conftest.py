"""Fixtures of the sync tests (helpers live in ``sync_helpers``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sync_helpers import Sandbox


@pytest.fixture
def sandbox() -> Sandbox:
    return Sandbox()


@pytest.fixture
def make_sandbox() -> Callable[..., Sandbox]:
    return Sandbox
