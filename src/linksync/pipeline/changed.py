"""Runs that read only what changed since a git ref (``Reading.changed_since``,
``--changed-since REF``).

``read_changed_sources`` reads the source files git says differ from ``REF`` (now, and
as they were at ``REF``: ``linksync.sources.changed``), validates every row of them as
it is now (what ``validate`` shows), and keeps for a plan only the links whose
declaration differs (``linksync.sync.partial.declared_changes``): added or changed
links, and the links no longer declared (``removed``), which only a mirror acts on.

``make_plan`` then reads from the workspace those links alone (point reads:
``fetch_remote(..., named=True)``), and ``narrow_plan`` keeps, of the deletes a mirror
would make, only those of removed links: the links of files the run did not read are
never deleted, nor counted as unmanaged. The thresholds are judged against the
workspace's link count (a partial run counts no scope). The plan records what it was
made of (``Plan.partial``), which its notes show (the pull-request comment).

A full run stays the reconciliation: drift and hand edits on the service, links of
files no one changed, duplicates across files are what it finds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from linksync.errors import ConfigError
from linksync.model import LinkKey, LinkSpec, Problem
from linksync.model.links import fold_domain
from linksync.pipeline.events import RunEvents
from linksync.pipeline.inputs import (
    SourceReading,
    Sources,
    checked,
    load_specs,
    read_and_validate,
    read_options,
    refuse_file_errors,
    refuse_undeclared,
    source_paths,
    with_destinations,
)
from linksync.pipeline.overlap import read_beside
from linksync.sync.partial import Partial, declared_changes

if TYPE_CHECKING:
    from pathlib import Path

    from linksync.sources import SourceBatch
    from linksync.sync.options import SyncOptions
    from linksync.sync.plan import Change, Plan
    from linksync.sync.state import RemoteState
    from linksync.validate import Validation


@dataclass(frozen=True)
class Changed:
    """What a run since a ref read: ``batch``, the changed files as they are now;
    ``full``, every row of them validated (what ``validate`` shows); ``validation``,
    the links whose declaration differs, validated (what a plan plans; the file-level
    problems of the files read included, so a mirror refuses a file that now declares
    nothing); ``removed``, the links declared at the ref and no longer; ``partial``,
    the record a plan keeps."""

    batch: SourceBatch
    full: Validation
    validation: Validation
    removed: tuple[LinkSpec, ...]
    partial: Partial
    #: The errors of versions at the ref not read in full (their links all count as
    #: changed, none as removed): told as notes.
    old_problems: tuple[Problem, ...] = ()
    #: The config files that changed since the ref too (their settings, UTM rules or
    #: default domain, apply to every link): told as a note.
    settings: tuple[str, ...] = ()
    #: The ref as given and the commit it names, when HEAD does not descend from it
    #: (the plan compared with their merge base): told as a note.
    moved: tuple[str, str] | None = None
    #: A shallow clone could not tell whether HEAD descends from the ref: told as a note.
    shallow: bool = False

    @property
    def notes(self) -> tuple[str, ...]:
        """What the run tells before its result: the files read, each with its status,
        and the versions at the ref that could not be compared."""
        p = self.partial
        files = "; ".join(f"{name} ({status})" for name, status in p.files) or "none"
        said = [f"--changed-since {p.since}: {len(p.files)} source file(s) changed: {files}"]
        if self.moved is not None:
            ref, named = self.moved
            said.append(
                f"HEAD does not descend from {ref} ({named[:12]}): {ref} moved on since this "
                f"branch left it, or the branch was rebased; compared with where this branch "
                f"left {ref}, their merge base {p.commit[:12]}, so the changes made on {ref} "
                "since are not taken for this branch's"
            )
        if self.shallow:
            said.append(
                f"the clone is shallow: whether HEAD descends from {p.ref} cannot be told, so "
                f"the files are compared with {p.ref} as it is; if {p.ref} moved on since "
                "this branch left it, its changes since count as this branch's undoing them "
                "(fetch the history, fetch-depth: 0, to compare with where the branch left it)"
            )
        said += [
            f"{problem.where()} at {p.ref}: {problem.message} (not compared: every link of "
            "the file counts as changed, none as removed)"
            for problem in self.old_problems
        ]
        said += [
            f"{name} changed since {p.ref} too: its settings apply to every link, and only "
            "the links of the changed files were read with them; run without "
            "--changed-since to plan every link"
            for name in self.settings
        ]
        return tuple(said)


def read_declared(
    sources: Sources,
    setup: SourceReading,
    *,
    default_domain: str | None,
    config: Path | None,
    note: Callable[[str], None],
) -> tuple[Validation, Changed | None]:
    """A run's sources read and validated: of only what changed since a git ref when
    ``setup`` asks (``read_changed_sources``, its notes told), else all (``load_specs``)."""
    if not setup.reading.changed_since:
        return load_specs(sources, setup, default_domain=default_domain), None
    changed = read_changed_sources(sources, setup, default_domain=default_domain, config=config)
    for line in changed.notes:
        note(line)
    return changed.validation, changed


@dataclass(frozen=True, slots=True)
class RunReading:
    """What an apply's reading needs of the run: its options, its config file, and
    whether it applies a saved plan (its sources are read for their passwords only)."""

    options: SyncOptions
    config: Path | None = None
    saved: bool = False


async def read_run(
    sources: Sources, setup: SourceReading, run: RunReading, events: RunEvents, *, beside: bool
) -> tuple[Validation, Changed | None]:
    """An apply's sources read and validated (``read_declared``; in a worker thread
    ``beside`` the calls sent meanwhile, ``linksync.pipeline.overlap``), their problems
    and notes told to ``events``; then refused (``MirrorRefused``, ``FileProblems``) for
    declaring nothing in a mirror or for a file-level error, unless ``run.saved``."""
    if run.saved:  # read for the passwords only: nothing to check
        setup = setup.without_checks()
    validation, changed = await read_beside(
        beside, read_declared, sources, setup, default_domain=run.options.default_domain,
        config=run.config, note=events.note,
    )  # fmt: skip
    events.problems(validation.file_problems)
    for note in validation.notes:
        events.note(note)
    if not run.saved:
        refuse_undeclared(validation, run.options)
        refuse_file_errors(validation)
    return validation, changed


def validate_sources(
    sources: Sources,
    setup: SourceReading,
    *,
    default_domain: str | None,
    note: Callable[[str], None],
) -> tuple[SourceBatch, Validation]:
    """What ``linksync validate`` checks: the sources read and every row validated, of
    only the files changed since a git ref when ``setup`` asks (their notes told)."""
    if setup.reading.changed_since:
        changed = read_changed_sources(
            sources, setup, default_domain=default_domain, check_all=True
        )
        for line in changed.notes:
            note(line)
        return changed.batch, changed.full
    read, result = read_and_validate(sources, setup, default_domain=default_domain)
    assert read is not None  # sources here are paths
    return read, result


def read_changed_sources(
    sources: Sources,
    setup: SourceReading,
    *,
    default_domain: str | None = None,
    check_all: bool = False,
    config: Path | None = None,
) -> Changed:
    """Read and validate what changed since ``setup.reading.changed_since`` (see the
    module docstring). A destination check (``check_destinations``) requests the
    destinations of the links planned, or of every row read (``check_all``: what
    ``validate`` shows). A ``ConfigError`` outside a git repository, with a ref git
    does not know, or with ``LinkSpec`` objects for sources."""
    from linksync.sources import SourceBatch
    from linksync.sources.changed import read_changed

    ref = setup.reading.changed_since
    if not ref:
        raise ConfigError("read_changed_sources needs Reading(changed_since=REF)")
    paths = source_paths(sources)
    if len(paths) != len(list(sources)):
        raise ConfigError(
            "--changed-since reads the source files at a git ref: give file paths, not "
            "LinkSpec objects"
        )
    watch = (config,) if config is not None else ()
    got = read_changed(paths, ref, options=read_options(setup), watch=watch)
    new = got.new
    batch = SourceBatch(tuple(new.frames), tuple(new.problems), tuple(new.unknown))
    full = checked(batch, setup, default_domain=default_domain)
    old = [s for frame in got.old.frames for s in frame.iter_specs()]
    planned, removed = declared_changes(old, batch.specs, default_domain)
    files = tuple((f.display, f.status) for f in got.files)
    ref_shown = got.ref if got.ref_commit is None else f"the merge base of {got.ref} and HEAD"
    partial = Partial(ref_shown, got.commit, files, len(planned), len(removed))
    if check_all:
        full = with_destinations(full, setup)
        validation = _narrowed(full, planned)
    else:
        validation = with_destinations(_narrowed(full, planned), setup)
    moved = None if got.ref_commit is None else (got.ref, got.ref_commit)
    return Changed(
        batch, full, validation, tuple(removed), partial, got.old_problems, got.settings, moved,
        got.shallow,
    )  # fmt: skip


def _narrowed(full: Validation, planned: Sequence[int]) -> Validation:
    """``full`` with only the rows at ``planned`` (their problems, which of them are
    invalid), one frame per file; every file-level problem kept."""
    from linksync.sources.frame import SpecFrame

    specs = full.specs
    kept = [specs[i] for i in planned]
    places = {s.provenance.place for s in kept if s.provenance is not None}
    groups: dict[tuple[str, str | None], list[LinkSpec]] = {}
    for spec in kept:
        prov = spec.provenance
        groups.setdefault((prov.source, prov.sheet) if prov else ("", None), []).append(spec)
    frames = tuple(
        SpecFrame.from_specs(group, source=source, sheet=sheet)
        for (source, sheet), group in groups.items()
    )
    at = {i: n for n, i in enumerate(planned)}
    invalid = frozenset(at[i] for i in full.invalid if i in at)
    file_level = set(map(id, full.file_problems))
    problems = tuple(
        p
        for p in full.problems
        if id(p) in file_level or (p.provenance is not None and p.provenance.place in places)
    )
    return replace(full, frames=frames, problems=problems, invalid=invalid)


def narrow_plan(plan: Plan, remote: RemoteState, changed: Changed) -> Plan:
    """The plan of a partial run: the rows planned, and of the links no row claims only
    the removed ones (a delete, a delete refused, a link an invalid row keeps); the
    thresholds judged against the workspace's link count; no unmanaged count (no domain
    was read in full); ``partial`` recorded."""
    from linksync.sync.compare import row_domain
    from linksync.sync.plan import Unmanaged
    from linksync.sync.safety import safety_of

    options, system = plan.options, remote.system_domain
    keys: dict[LinkKey, str] = {}
    urls: dict[tuple[str, str], str] = {}
    for spec in changed.removed:
        domain = row_domain(spec, options, system)
        said = _removed_from(spec, changed.partial)
        if spec.slug:
            keys.setdefault(LinkKey.of(domain, spec.slug), said)
        elif spec.url:
            urls.setdefault((domain, spec.url.strip()), said)

    def removed(ch: Change) -> str | None:
        if ch.slug and LinkKey.of(ch.domain, ch.slug) in keys:
            return keys[LinkKey.of(ch.domain, ch.slug)]
        link = ch.remote
        return None if link is None else urls.get((fold_domain(ch.domain), link.url.strip()))

    kept: list[Change] = []
    for ch in plan.changes:
        if ch.spec is not None:
            kept.append(ch)
        elif (why := removed(ch)) is not None:  # the row says why it is deleted
            kept.append(replace(ch, notes=(*ch.notes, why)))
    changes = tuple(kept)
    existing = max(plan.safety.existing, remote.org.link_count if remote.org else 0)
    safety = safety_of(Counter(ch.action for ch in changes), existing, options)
    return replace(
        plan,
        changes=changes,
        safety=safety,
        unmanaged=Unmanaged(why_not="a partial plan reads only the links it names"),
        partial=changed.partial,
    )


def _removed_from(spec: LinkSpec, partial: Partial) -> str:
    """Why a partial plan acts on a link no row claims: the file and line that declared
    it at the ref, and what became of the file ("no longer declared: links/old.yaml,
    line 3 declared it at main (3f2a9c1b0d4e); the file was deleted since")."""
    prov = spec.provenance
    if prov is None:
        return f"no longer declared: declared at {partial.since}"
    status = dict(partial.files).get(prov.source, "modified")
    where = f"{prov.where()} declared it at {partial.since}"
    return f"no longer declared: {where}; the file was {status} since"


def saved_sources(sources: Sources, plan: Plan) -> Sources:
    """The sources to read for a saved plan's passwords: of a partial plan, only the
    files it read (the others hold none of its rows; none when it read none), when
    each is there; else all of them."""
    from pathlib import Path

    if plan.partial is None or not sources:
        return sources
    files = plan.partial.read_now
    return files if all(Path(f).is_file() for f in files) else sources
