"""Fewer garbage collections while a run holds many rows in memory.

Reading a YAML file builds a tree of dicts, and a run keeps several hundred thousand
objects alive (the rows, the changes, the results); with Python's default thresholds
(a young collection every 700 allocations) the collector walks them again and again.
While the run's reading and validation (``linksync.pipeline.inputs.read_and_validate``:
``linksync validate``, the page's Check) or a whole run (``linksync.plan``,
``linksync.apply``) goes, the young generation's threshold is raised to 100,000.
Reference cycles are still collected, later; memory grows by at most the garbage of
100,000 allocations. The thresholds are the process's, so the run sets them, not the
readers or validation: a library function called on its own leaves the process as it
found it.

What it saves a user (``benchmarks/kept_helpers.py``: the command in a fresh process,
with it and without, 3 runs each on a shared 2-core machine, the built-in sandbox;
medians of CPU time, which the machine's load moves less than wall time):
``linksync validate`` of a YAML file of 50,000 links, 7.1 s of CPU instead of 12.3 s
(wall 8.0 s instead of 15.0 s); ``linksync plan`` of a CSV of 100,000 new links, 7.9 s
of CPU instead of 9.7 s. No difference for ``validate`` of a CSV or an xlsx of 100,000
rows, nor for ``apply`` of 10,000 creates (its wall time is the requests').

The first to start raises the thresholds, the last to end puts back what it found, so
runs side by side (``apply_all``, threads of a web page) never leave them changed.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["fewer_collections"]

YOUNG_THRESHOLD = 100_000

_lock = threading.Lock()
_running = 0
_saved: tuple[int, int, int] = gc.get_threshold()


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Raise the young generation's threshold while the block runs (see module)."""
    global _running, _saved
    with _lock:
        if _running == 0:
            _saved = gc.get_threshold()
            young, middle, old = _saved
            if young:  # 0: collection is off; leave it so
                gc.set_threshold(max(young, YOUNG_THRESHOLD), middle, old)
        _running += 1
    try:
        yield
    finally:
        with _lock:
            _running -= 1
            if _running == 0:
                gc.set_threshold(*_saved)
