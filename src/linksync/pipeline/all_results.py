"""What a run over several targets returns: one ``TargetResult`` per target and the
combined exit code (``AllResults``), and how a path given once names one file per
target (``for_target``).

A target ends in one of these ways (``TargetResult.status``):

- ``ok``: every row fine (apply), or a plan without problems;
- ``changes``: a plan with pending changes (``plan --detailed-exitcode``, exit 3);
- ``failed``: some rows invalid or failed, or the run stopped after writing (exit 1);
- ``error``: an error ended the target before or while it ran (a refused key, a lock
  held, an unsafe plan, a key variable not set): ``error`` says it and
  ``error_constant`` names it from the error table; exit 2 when it wrote nothing;
- ``declined``: the plan was not confirmed (nothing applied);
- ``interrupted``: Ctrl-C or the cancel signal (exit 130).

``AllResults.exit_code`` is ``linksync.model.outcome.combined_exit_code`` over the targets.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any

from linksync.model.outcome import (
    EXIT_CHANGES_PENDING,
    EXIT_INTERRUPTED,
    EXIT_MEANINGS,
    EXIT_OK,
    EXIT_USAGE,
    RemoteWrites,
    combined_exit_code,
)
from linksync.pipeline.planning import Planned
from linksync.sync.results import Results

#: Written in a path given once, it is replaced by each target's name.
TARGET_FIELD = "{target}"


def for_target(path: str | PathLike[str], name: str) -> Path:
    """The path of target ``name`` for a path given once for every target:
    ``out/{target}.csv`` -> ``out/brand-a.csv``; a path without ``{target}`` gets the
    name before its extension: ``out/report.csv`` -> ``out/report-brand-a.csv``."""
    text = str(path)
    if TARGET_FIELD in text:
        return Path(text.replace(TARGET_FIELD, name))
    p = Path(text)
    return p.with_name(f"{p.stem}-{name}{p.suffix}")


@dataclass(frozen=True, slots=True)
class TargetResult:
    """How one target of a run over several ended (see the module docstring).
    ``results`` (apply) or ``planned`` (plan) when it ran to its end; ``error`` and
    ``error_constant`` when an error ended it; ``writes``: what it wrote to its
    workspace either way."""

    name: str
    label: str = ""
    exit_code: int = EXIT_OK
    results: Results | None = None
    planned: Planned | None = None
    error: str | None = None
    error_constant: str | None = None
    writes: RemoteWrites = field(default_factory=RemoteWrites)
    journal: Path | None = None

    @property
    def status(self) -> str:
        if self.exit_code == EXIT_INTERRUPTED:
            return "interrupted"
        if self.error is not None:
            return "error"
        if self.results is not None and not self.results.confirmed:
            return "declined"
        if self.exit_code == EXIT_CHANGES_PENDING:
            return "changes"
        return "ok" if self.exit_code == EXIT_OK else "failed"

    @property
    def counts(self) -> dict[str, int]:
        """Rows by status (apply), or changes by action (plan); empty after an error."""
        if self.results is not None:
            return self.results.counts
        if self.planned is not None:
            return self.planned.counts
        return {}

    @property
    def files(self) -> tuple[Path, ...]:
        """The files it wrote: reports and copies (apply), the saved plan (plan)."""
        if self.results is not None:
            return self.results.files
        if self.planned is not None and self.planned.saved_to is not None:
            return (self.planned.saved_to,)
        return ()

    def why(self) -> str:
        """Why it did not end well, in a few words: the error's constant, the run's
        stop, or the count of failed rows; 'nothing written to it' after an error."""
        if self.error_constant is not None:
            after = "nothing written to it" if not self.writes.any else self.writes.describe()
            return f"{self.error_constant}, {after}"
        if self.results is not None and self.results.stopped_by is not None:
            return f"stopped by {self.results.stopped_by}"
        bad = sum(n for k, n in self.counts.items() if k in ("failed", "invalid"))
        return f"{bad} failed or invalid row(s)" if bad else self.status

    def to_dict(self) -> dict[str, Any]:
        results = self.results
        info = results.info if results is not None else None
        return {
            "name": self.name,
            "target": self.label,
            "status": self.status,
            "exit_code": self.exit_code,
            "error_constant": self.error_constant,
            "error": self.error,
            "counts": self.counts,
            "plan_counts": results.plan.counts if results is not None else None,
            "writes": self.writes.to_dict(),
            "stopped_by": results.stopped_by if results is not None else None,
            "files": [str(f) for f in self.files],
            "journal": str(self.journal) if self.journal is not None else None,
            "run_id": info.run_id if info is not None else None,
            "duration_s": round(info.duration_s, 3) if info is not None else None,
            "requests": info.requests if info is not None else None,
            "rate_limit_waits": info.rate_limit_waits if info is not None else None,
        }


@dataclass(frozen=True, slots=True)
class AllResults:
    """What ``plan_all`` / ``apply_all`` return: one ``TargetResult`` per target, in the
    order asked, and the exit code of the whole run."""

    command: str  # "plan" or "apply"
    targets: tuple[TargetResult, ...]

    @property
    def exit_code(self) -> int:
        """The worst code of the targets, 2 only when no target wrote anything
        (``linksync.model.outcome.combined_exit_code``)."""
        return combined_exit_code((t.exit_code, t.writes.any) for t in self.targets)

    @property
    def wrote(self) -> bool:
        """Whether any target may have changed its workspace."""
        return any(t.writes.any for t in self.targets)

    @property
    def failed(self) -> tuple[TargetResult, ...]:
        """The targets that did not end well (failed rows, an error, interrupted)."""
        return tuple(t for t in self.targets if t.status in ("failed", "error", "interrupted"))

    def __getitem__(self, name: str) -> TargetResult:
        for target in self.targets:
            if target.name == name:
                return target
        raise KeyError(name)

    def __iter__(self) -> Iterator[TargetResult]:
        return iter(self.targets)

    def __len__(self) -> int:
        return len(self.targets)

    def verdict(self) -> str:
        """What the exit code says, and why: 'Exit 1: brand-b failed (UNAUTHORIZED,
        nothing written to it); written: brand-a (2 created). A run over targets exits
        2 only when no target wrote anything.'"""
        code = self.exit_code
        parts = [f"Exit {code}: {EXIT_MEANINGS.get(code, '')}"]
        failed = [f"{t.name} ({t.why()})" for t in self.failed]
        if failed:
            parts.append(f"failed: {', '.join(failed)}")
        pending = [t.name for t in self.targets if t.status == "changes"]
        if pending:
            parts.append(f"pending changes: {', '.join(pending)}")
        if self.command == "apply":
            wrote = [f"{t.name} ({t.writes.describe()})" for t in self.targets if t.writes.any]
            parts.append(f"written: {', '.join(wrote)}" if wrote else "nothing written")
        text = "; ".join(parts) + "."
        if any(t.exit_code == EXIT_USAGE for t in self.targets) and code != EXIT_USAGE:
            text += " A run over targets exits 2 only when no target wrote anything."
        return text

    def to_dict(self) -> dict[str, Any]:
        code = self.exit_code
        return {
            "command": self.command,
            "exit_code": code,
            "exit_meaning": EXIT_MEANINGS.get(code, ""),
            "verdict": self.verdict(),
            "wrote": self.wrote,
            "targets": [t.to_dict() for t in self.targets],
        }
