"""The error that ends an apply which wrote already (``StoppedAfterWrites``, or
``InterruptedAfterWrites`` for a second Ctrl-C): what it wrote, where its journal is
(``linksync.pipeline.applying``)."""

from __future__ import annotations

from pathlib import Path

from linksync.errors import StoppedAfterWrites
from linksync.model.outcome import RemoteWrites


def after_writes(
    kind: type[StoppedAfterWrites], lead: str, writes: RemoteWrites, journal: Path | None
) -> StoppedAfterWrites:
    """The error that ends a run which wrote already: what it wrote, where its journal is."""
    written = writes.describe()
    return kind(
        f"{lead}: {written}; the journal {journal} holds every result",
        written=written,
        journal=str(journal) if journal else None,
    )
