"""The command's process asks glibc for one heap and a fixed threshold for blocks of
pages of their own, unless the user chose otherwise."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

ASK = "from linksync.cli import heap; print(heap.one_heap(), heap.fixed_mmap_threshold())"
GLIBC = sys.platform.startswith("linux") and os.confstr("CS_GNU_LIBC_VERSION") is not None


def _run(**env: str) -> str:
    mine = ("MALLOC_ARENA_MAX", "MALLOC_MMAP_THRESHOLD_")
    clean = {k: v for k, v in os.environ.items() if k not in mine}
    done = subprocess.run(
        [sys.executable, "-c", ASK],
        env={**clean, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@pytest.mark.skipif(not GLIBC, reason="glibc's heaps only")
def test_one_heap_on_glibc() -> None:
    assert _run() == "True True"


def test_what_the_user_set_wins() -> None:
    assert _run(MALLOC_ARENA_MAX="4", MALLOC_MMAP_THRESHOLD_="65536") == "False False"


def test_the_command_still_runs_with_one_heap() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "linksync", "--version"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and done.stdout.strip()
