"""Without nginx or tinyproxy the network tests are skipped with what to install;
with LINKSYNC_NETWORK_TESTS=required (CI, once it installed them) they fail instead."""

from __future__ import annotations

import pytest

from .conftest import REQUIRED_VARIABLE, require

ABSENT = "/nonexistent/sbin/nginx"


def test_a_missing_program_skips_saying_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(REQUIRED_VARIABLE, raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install nginx tinyproxy"):
        require(ABSENT)


def test_a_missing_program_fails_when_the_tests_are_required(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(REQUIRED_VARIABLE, "required")
    with pytest.raises(pytest.fail.Exception, match=f"{ABSENT} not found"):
        require(ABSENT)
