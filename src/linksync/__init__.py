"""linksync: keep a link-shortening workspace in step with a declared list of links.

``linksync.plan`` and ``linksync.apply`` are the run as a library call (see
``linksync.pipeline``); they are imported on first use, so ``import linksync`` stays
light.
"""

from __future__ import annotations

import logging
from typing import Any

from linksync._version import __version__

__all__ = ["__version__", "apply", "apply_async", "plan", "plan_async"]

# A library leaves logging to the application: without a handler configured, the
# run's structured events (a failed row is a warning) are not printed on stderr.
logging.getLogger("linksync").addHandler(logging.NullHandler())


def __getattr__(name: str) -> Any:
    if name in ("plan", "apply", "plan_async", "apply_async"):
        from linksync import pipeline

        return getattr(pipeline, name)
    raise AttributeError(f"module 'linksync' has no attribute {name!r}")
