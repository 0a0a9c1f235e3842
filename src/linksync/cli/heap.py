"""One malloc heap for the command's process (glibc).

glibc gives each thread that allocates its own heap (an "arena", up to eight a core),
and memory freed in one heap serves only the threads of that heap. A command's work
runs one thread at a time (Python's lock), yet the reading of a source, the requests
and the diff spread their buffers over several heaps, and what one of them freed stays
with it. One heap lets what the reading freed serve the listing and the diff: a plan of
200,000 unchanged rows peaks at 294 MB instead of 304 MB
(``benchmarks/throughput.py --case scale-200k``, ``docs/performance.md``).

A ``MALLOC_ARENA_MAX`` the user set wins (glibc reads it at start); elsewhere than on
glibc nothing is done.
"""

from __future__ import annotations

import ctypes
import os
import sys

#: ``M_ARENA_MAX`` of glibc's ``mallopt``.
_M_ARENA_MAX = -8


def one_heap() -> bool:
    """Ask glibc for one heap for every thread of the process; True when it agreed."""
    if os.environ.get("MALLOC_ARENA_MAX") or not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(_M_ARENA_MAX, 1))
