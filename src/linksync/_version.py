"""The version of linksync: written here only (``pyproject.toml`` reads it from here)."""

__version__ = "0.1.0"
