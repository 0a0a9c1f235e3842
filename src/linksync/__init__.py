"""linksync: keep a link-shortening workspace in step with a declared list of links."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
