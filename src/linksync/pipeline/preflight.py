"""The preflight of a run: every path it will write, checked together before the first
request (``linksync.safe.outputs`` holds the checks themselves).

``run_paths`` says where a plan or apply writes: its reports, annotated copies (and
their QR images folder), the QR zip (``--qr``), journal (default
``.linksync/runs/<run-id>.jsonl``), lock (default: keyed on the workspace, in the user's
state folder, see ``linksync.pipeline.lock``; a service's is known once the run has read
the workspace's identity, and checked when taken) with its holder record, and a saved plan
(``plan --out``). ``run_checks`` puts them beside every file the run reads (sources,
every file under a source folder, the config and API-key files, the sandbox database, a
saved plan given to ``apply --plan``), and its ``check`` raises one ``ConfigError``
naming every output that cannot be written, or would touch a file the run reads: a
usage error, exit 2, and nothing was sent.

    paths = run_paths(settings, reports=["out.csv"], run_id=run_id)
    run_checks(settings, ["campaign.xlsx"], paths).check()
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from linksync.config import Settings
from linksync.config.identity import WorkspaceIdentity, local_identity
from linksync.pipeline.lock import (
    ENV_STATE_DIR,
    default_lock_path,
    foreign_holder,
    foreign_lock,
    holder_path,
)
from linksync.report.annotate import annotate_outputs
from linksync.report.writers import WRITERS
from linksync.safe.leftovers import Leftover, remove_leftovers
from linksync.safe.outputs import (
    JOURNAL_SUFFIXES,
    PLAN_SUFFIXES,
    Output,
    Protected,
    check_outputs,
    protected_inputs,
)
from linksync.sync.journal import default_journal_path

PathArg = str | os.PathLike[str]


@dataclass(frozen=True, slots=True)
class RunPaths:
    """Where one run writes. ``annotate``: (source, copy) pairs. ``journal`` / ``lock``
    None: the run keeps none. ``lock_is_default``: the lock is the workspace's own (with
    ``lock`` None: a service's, known once its identity is read: ``identified``).
    ``qr``: the zip of QR codes (and a QR column in annotated workbooks)."""

    reports: tuple[Path, ...] = ()
    annotate: tuple[tuple[Path, Path], ...] = ()
    journal: Path | None = None
    lock: Path | None = None
    lock_is_default: bool = False
    plan_out: Path | None = None
    qr: Path | None = None

    def outputs(self) -> list[Output]:
        out = [Output(p, "--report", tuple(WRITERS)) for p in self.reports]
        for source, copy in self.annotate:
            out.extend(annotate_outputs(source, copy, qr=self.qr is not None))
        if self.qr is not None:
            from linksync.report.qr import qr_output  # here: only with --qr (loads zipfile)

            out.append(qr_output(self.qr))
        if self.journal is not None:
            out.append(Output(self.journal, "--journal", JOURNAL_SUFFIXES, append=True))
        if self.lock is not None:
            role = "--lock"
            if self.lock_is_default:
                role = f"the run lock (move it with {ENV_STATE_DIR} or --lock FILE)"
            out.append(Output(self.lock, role, in_place=True, foreign=foreign_lock))
            holder = holder_path(self.lock)
            out.append(Output(holder, f"{role}, holder record", foreign=foreign_holder))
        if self.plan_out is not None:
            out.append(Output(self.plan_out, "--out", PLAN_SUFFIXES))
        return out

    def identified(self, identity: WorkspaceIdentity) -> RunPaths:
        """These paths with the default lock of the workspace ``identity`` (read at the
        start of the run) in place of the one not known yet."""
        if self.lock is not None or not self.lock_is_default:
            return self
        return replace(self, lock=default_lock_path(identity))


def run_paths(
    settings: Settings,
    *,
    reports: Sequence[PathArg] = (),
    annotate: Sequence[tuple[Path, Path]] = (),
    journal: PathArg | bool | None = None,
    lock: PathArg | bool | None = None,
    run_id: str | None = None,
    plan_out: PathArg | None = None,
    qr: PathArg | None = None,
) -> RunPaths:
    """The paths of a run. ``journal``/``lock``: a path, None for the default (the
    journal needs ``run_id`` then), False for none."""
    if journal is None or journal is True:
        if run_id is None:
            raise ValueError("the default journal path needs the run id")
        journal_path: Path | None = default_journal_path(run_id)
    else:
        journal_path = None if journal is False else Path(journal)
    lock_is_default = False
    lock_path: Path | None = None
    if lock is None or lock is True:
        lock_is_default, local = True, local_identity(settings.target)
        lock_path = default_lock_path(local) if local is not None else None
    elif lock is not False:
        lock_path = Path(lock)
    return RunPaths(
        reports=tuple(Path(p) for p in reports),
        annotate=tuple(annotate),
        journal=journal_path,
        lock=lock_path,
        lock_is_default=lock_is_default,
        plan_out=Path(plan_out) if plan_out is not None else None,
        qr=Path(qr) if qr is not None else None,
    )


@dataclass(frozen=True, slots=True)
class Checks:
    """What a preflight checks: the outputs of a run, and the files it reads (which no
    output may touch). The checks of several runs add up (``+``) to be checked as one:
    no two outputs on one path, none on a file any of them reads."""

    outputs: tuple[Output, ...] = ()
    reads: tuple[Protected, ...] = ()

    def __add__(self, other: Checks) -> Checks:
        return Checks(self.outputs + other.outputs, self.reads + other.reads)

    def named(self, name: str) -> Checks:
        """The same checks, each output's role naming ``name`` (a target)."""
        return replace(
            self, outputs=tuple(replace(o, role=f"{name}: {o.role}") for o in self.outputs)
        )

    def check(self) -> None:
        """Raise ``ConfigError`` naming every problem (see the module docstring)."""
        check_outputs(self.outputs, self.reads)


def run_checks(
    settings: Settings,
    sources: Sequence[PathArg],
    paths: RunPaths,
    *,
    saved_plan: PathArg | None = None,
) -> Checks:
    """The outputs of ``paths`` and every file the run reads (see the module docstring)."""
    reads = dict(settings.read_files())
    if saved_plan is not None:
        reads["saved plan"] = str(saved_plan)
    return Checks(tuple(paths.outputs()), tuple(protected_inputs(sources, reads)))


def clear_leftovers(paths: RunPaths) -> list[Leftover]:
    """Remove the temporary files killed runs of this host left beside the outputs of
    ``paths`` (``linksync.safe.leftovers``); the ones removed. Called once the preflight
    passed, before anything is written."""
    files = [o.path for o in paths.outputs() if not (o.folder or o.append or o.in_place)]
    return remove_leftovers(files)
