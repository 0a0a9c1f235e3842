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

And glibc hands the heap's free top back to the system as soon as it passes 128 KiB,
so a run that makes and drops a list page's buffers and records ten thousand times
asks the system for the same pages again each time: a fault of the kernel for each
4 KiB (half a million of them in a plan of a million links, several seconds of system
time). ``padded_top`` keeps 16 MiB of the top in hand: the faults of a plan of 200,000
unchanged rows fall from about 135,000 to 85,000, its peak grows by 3 MB.

A plan of 200,000 unchanged rows peaks at 285 MB with the first two instead of 304 MB
(the rows' own memory is unchanged; ``benchmarks/throughput.py --case scale-200k``,
``docs/performance.md``). What the user set (``MALLOC_ARENA_MAX``,
``MALLOC_MMAP_THRESHOLD_``, ``MALLOC_TOP_PAD_``) wins; elsewhere than on glibc nothing
is done.

And the objects a command's imports make live as long as its process: ``loaded``
freezes them for the garbage collector once the command's modules are loaded, so its
walks during the run leave them out (``main`` holds the young collections off while the
command loads, so they are frozen before any walk). ``kept`` keeps a run's result,
its rows and its links' records, to the process's end: the process ends without
freeing them one by one (0.06 s of CPU for a plan of 200,000 unchanged rows).
"""

from __future__ import annotations

import ctypes
import gc
import os
import sys
from collections.abc import Callable

#: ``mallopt`` parameters of glibc.
_M_ARENA_MAX = -8
_M_MMAP_THRESHOLD = -3
_M_TOP_PAD = -2
#: Holds True once ``own_process`` was called: the process is one command's own.
_OWN: list[bool] = []
#: glibc's starting threshold for a block of pages of its own.
MMAP_THRESHOLD = 128 * 1024
#: What the heap keeps of its free top, and adds when it grows.
TOP_PAD = 16 * 1024 * 1024


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


def padded_top() -> bool:
    """Ask glibc to keep ``TOP_PAD`` of the heap's free top instead of handing it back
    (and to grow the heap by as much more when it grows); True when it agreed."""
    mallopt = _mallopt("MALLOC_TOP_PAD_")
    return mallopt is not None and bool(mallopt(_M_TOP_PAD, TOP_PAD))


def own_process() -> None:
    """Say that this process runs one command (``linksync.cli.main``), not a caller's
    that runs commands among objects of its own (tests through click's runner)."""
    _OWN.append(True)


def loaded() -> None:
    """The command's modules are loaded and its run is about to start: in a process of
    the command's own, what the imports made is frozen for the garbage collector
    (``gc.freeze``), which no longer walks it."""
    if _OWN:
        gc.freeze()


def kept(result: object) -> None:
    """In a process of the command's own, ``result`` (the run's plan, with its rows and
    the records of its links) is never freed: the command ends without freeing it
    object by object, the system takes its memory back whole. It is frozen for the
    garbage collector with everything made before it, so the collections left do not
    walk it either. Elsewhere (tests through click's runner) nothing is done."""
    if _OWN:
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(result))
        gc.freeze()
