"""The command's process and glibc's heap: one heap, and big blocks handed back.

glibc gives each thread that allocates its own heap (an "arena", up to eight a core),
and memory freed in one heap serves only the threads of that heap. A command's work
runs one thread at a time (Python's lock), yet the reading of a source, the requests
and the diff spread their buffers over several heaps, and what one of them freed stays
with it: ``one_heap`` keeps one.

glibc also raises the size from which a block gets pages of its own each time such a
block is freed (up to 32 MB): after the first list of a million rows is freed, every
block up to that size comes from the heap, and the holes the freed ones leave between
the rows that stay are never handed back. ``fixed_mmap_threshold`` keeps the size at
glibc's own starting value (128 KiB): a big block is given back when freed.

A plan of 200,000 unchanged rows peaks at 285 MB with both instead of 304 MB (the
rows' own memory is unchanged; ``benchmarks/throughput.py --case scale-200k``,
``docs/performance.md``). What the user set (``MALLOC_ARENA_MAX``,
``MALLOC_MMAP_THRESHOLD_``) wins; elsewhere than on glibc nothing is done.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable

#: ``mallopt`` parameters of glibc.
_M_ARENA_MAX = -8
_M_MMAP_THRESHOLD = -3
#: glibc's starting threshold for a block of pages of its own.
MMAP_THRESHOLD = 128 * 1024


def _mallopt(user_setting: str) -> Callable[[int, int], int] | None:
    if os.environ.get(user_setting) or not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return None


def one_heap() -> bool:
    """Ask glibc for one heap for every thread of the process; True when it agreed."""
    mallopt = _mallopt("MALLOC_ARENA_MAX")
    return mallopt is not None and bool(mallopt(_M_ARENA_MAX, 1))


def fixed_mmap_threshold() -> bool:
    """Ask glibc to give every block of ``MMAP_THRESHOLD`` or more pages of its own,
    handed back when it is freed; True when it agreed."""
    mallopt = _mallopt("MALLOC_MMAP_THRESHOLD_")
    return mallopt is not None and bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))
