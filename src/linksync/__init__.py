"""linksync: keep a link-shortening workspace in step with a declared list of links."""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

__all__ = ["__version__", "apply", "plan"]


def __getattr__(name: str) -> Any:
    """``linksync.plan`` and ``linksync.apply`` (the sync engine's Python API), imported
    on first use so ``import linksync`` stays light."""
    if name in ("plan", "apply"):
        from linksync.sync import run

        return getattr(run, name)
    raise AttributeError(f"module 'linksync' has no attribute {name!r}")
