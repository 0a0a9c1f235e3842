"""Runs over several targets: ``linksync.plan_all`` and ``linksync.apply_all``.

The targets (workspaces) are named in the config file's ``targets:`` block
(``linksync.config.targets``). A run over them:

1. reads the block (a wrong shape is a ``ConfigError``: nothing runs) and resolves each
   target's settings; a target that cannot be resolved (its key variable not set, a bad
   URL) fails alone, as ``CONFIG_ERROR``;
2. checks every output of every target together before the first request: each
   target's reports (a path given once names one file per target, see
   ``for_target``), journals, run locks, saved plans; no two on one path, none on a
   file any target reads. A problem is a ``ConfigError`` for the whole run: nothing
   was done;
2b. reads the workspace each target reaches (``linksync.config.identity``), however
   its URL is spelt: two targets on one workspace are a ``ConfigError`` naming both
   (nothing done); a target whose service cannot be asked (a wrong key) fails alone;
3. runs the targets at once, each in a thread of its own with its own event loop and
   its own client, so each key has its own rate limiter (a 429 on one key pauses that
   target only), its own lock and journal. An error ends its target only, and is kept
   in its ``TargetResult`` with the error's constant;
4. returns ``AllResults``: one ``TargetResult`` per target, and the combined exit code
   (``linksync.model.outcome.combined_exit_code``).

A scheduler that runs one target per job passes one name: ``apply_all(["brand-a"])``.
Ctrl-C (or ``cancel``) stops every target as it stops one run: no new requests, those
in flight finish, the reports are written.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_all
from dataclasses import replace
from os import PathLike
from typing import Any

from linksync.config import Settings
from linksync.config.identity import (
    WorkspaceIdentity,
    local_identity,
    read_identities,
    refuse_shared,
)
from linksync.config.targets import Workspace, load_workspaces
from linksync.errors import ConfigError, LinksyncError, describe
from linksync.logs import log_run_end, target_named
from linksync.model.outcome import EXIT_OK, RemoteWrites, error_constant, exit_code_for
from linksync.pipeline.all_results import AllResults, TargetResult, for_target
from linksync.pipeline.applying import ApplyRun
from linksync.pipeline.entry import plan_async, prepare_apply
from linksync.pipeline.fields import over
from linksync.pipeline.preflight import Checks, run_checks, run_paths
from linksync.pipeline.request import (
    Connection,
    Hooks,
    Notify,
    Outputs,
    PlanOutputs,
    Reading,
    SyncPolicy,
)
from linksync.sync.results import CancelSignal

Targets = Sequence[str | Workspace] | None


#: The hooks of a run over targets: one ``Hooks`` for every target, or a function of the
#: target's name that gives its own (the command line's name each target in its lines).
HooksOf = Hooks | Callable[[str], Hooks] | None


def plan_all(
    targets: Targets = None,
    config: str | PathLike[str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | PathLike[str] | None = None,
    connection: Connection | None = None,
    reading: Reading | None = None,
    sync: SyncPolicy | None = None,
    notify: Notify | None = None,
    outputs: PlanOutputs | None = None,
    hooks: HooksOf = None,
) -> AllResults:
    """Plan every target of the config (or the ``targets`` named, or given as
    ``Workspace`` objects), at once; nothing is written to any workspace.

    Args:
        targets: the targets' names, or Workspace objects (default: every target of the
            config).
        config: the config file with targets: (default: ./linksync.yaml).
        env: the environment (default: os.environ).
        cwd: where ./linksync.yaml and a sandbox's default state are (default: here).
        connection: how every target is reached (``Connection``: --insecure,
            --concurrency, the proxy and TLS trust), over each target's profile.
        reading: how every target's sources are read and checked (``Reading``).
        sync: what every target's plan may do, over the target's own mode and scope
            (``SyncPolicy``).
        notify: the alert at each target's end (``Notify``).
        outputs: ``PlanOutputs``: ``out`` saves one plan per target, a path with
            {target} or one file per target beside it (see ``for_target``); with
            ``detailed_exitcode`` a target with changes exits 3.
        hooks: the ``Hooks`` of every target, or a function of a target's name that
            gives its own.
    """
    outputs = outputs or PlanOutputs()
    workspaces, settings, failed = _resolve(targets, config, env, cwd, connection or Connection())
    out = outputs.out
    checks = Checks()
    for ws in workspaces:
        if ws.name in settings and out is not None:
            paths = run_paths(
                settings[ws.name], journal=False, lock=False, plan_out=for_target(out, ws.name)
            )
            checks += run_checks(settings[ws.name], ws.files, paths).named(ws.name)
    checks.check()
    _one_workspace_each(settings, failed)

    def one(ws: Workspace) -> TargetResult:
        own = replace(outputs, out=for_target(out, ws.name) if out is not None else None)
        planned = asyncio.run(
            plan_async(
                list(ws.files),
                settings[ws.name],
                reading=reading,
                sync=_policy(sync, ws),
                notify=notify,
                outputs=own,
                hooks=_hooks(hooks, ws.name),
            )
        )
        label = settings[ws.name].target.label
        return TargetResult(ws.name, label, planned.exit_code, planned=planned)

    runnable = [ws for ws in workspaces if ws.name in settings and ws.name not in failed]
    _log_failed(failed)
    done = _in_threads(runnable, one, settings, lambda ws: None, cancel=None)
    return AllResults("plan", tuple(failed.get(ws.name) or done[ws.name] for ws in workspaces))


def apply_all(
    targets: Targets = None,
    config: str | PathLike[str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | PathLike[str] | None = None,
    connection: Connection | None = None,
    reading: Reading | None = None,
    sync: SyncPolicy | None = None,
    notify: Notify | None = None,
    outputs: Outputs | None = None,
    hooks: HooksOf = None,
) -> AllResults:
    """Plan and apply every target of the config (or the ``targets`` named, or given as
    ``Workspace`` objects), at once, each with its own client, rate limiter, lock and
    journal. Raises ``ConfigError`` (nothing done) for a wrong config or an output that
    cannot be written; an error of one target is in its ``TargetResult``.

    Args:
        targets: the targets' names, or Workspace objects (default: every target of the
            config).
        config: the config file with targets: (default: ./linksync.yaml).
        env: the environment (default: os.environ).
        cwd: where ./linksync.yaml and a sandbox's default state are (default: here).
        connection: how every target is reached (``Connection``), over each target's
            profile.
        reading: how every target's sources are read and checked (``Reading``).
        sync: what every target's run may do, over the target's own mode and scope
            (``SyncPolicy``).
        notify: the alert at each target's end (``Notify``).
        outputs: ``Outputs``: ``reports`` writes one report per target and path
            (out/{target}.csv; see ``for_target``), ``lock_wait`` is each target's;
            the outputs of one run (annotate, qr, journal, lock, reads) are refused.
        hooks: the ``Hooks`` of every target (its ``cancel`` stops them all), or a
            function of a target's name that gives its own.
    """
    outputs = outputs or Outputs()
    one_run = [name for name in _ONE_RUN if getattr(outputs, name) != getattr(Outputs(), name)]
    if one_run:
        raise ConfigError(
            f"{', '.join(one_run)}: outputs of one run; a run over targets writes the "
            "reports (one per target) and takes each target's lock and journal"
        )
    workspaces, settings, failed = _resolve(targets, config, env, cwd, connection or Connection())
    stop = threading.Event()
    runs: dict[str, ApplyRun] = {}
    for ws in workspaces:
        if ws.name not in settings:
            continue
        own = _hooks(hooks, ws.name)
        try:
            runs[ws.name] = prepare_apply(
                list(ws.files), settings[ws.name], reading=reading, sync=_policy(sync, ws),
                notify=notify, hooks=replace(own, cancel=_Either(stop, own.cancel)),
                outputs=replace(outputs, reports=[for_target(r, ws.name) for r in outputs.reports]),
            )  # fmt: skip
        except ConfigError as exc:
            failed[ws.name] = _error(ws.name, settings[ws.name], exc)
    _preflight_together(runs)
    for name, identity in _one_workspace_each(settings, failed).items():
        if name in runs:
            runs[name].identity = identity  # read once: the run's lock is keyed on it

    def one(ws: Workspace) -> TargetResult:
        run = runs[ws.name]
        results = asyncio.run(run.go())
        code = results.exit_code if results.confirmed else EXIT_OK
        return TargetResult(
            ws.name, run.label, code, results=results, writes=results.writes,
            journal=results.journal,
        )  # fmt: skip

    def written(ws: Workspace) -> ApplyRun:
        return runs[ws.name]

    runnable = [ws for ws in workspaces if ws.name in runs and ws.name not in failed]
    _log_failed(failed)
    done = _in_threads(runnable, one, settings, written, cancel=stop)
    return AllResults("apply", tuple(failed.get(ws.name) or done[ws.name] for ws in workspaces))


#: ``Outputs`` fields that name one run's files (``apply_all`` refuses them).
_ONE_RUN = ("annotate", "qr", "journal", "lock", "reads")


def _policy(sync: SyncPolicy | None, ws: Workspace) -> SyncPolicy:
    """One target's policy: the caller's, over the target's own mode and scope."""
    return over(sync or SyncPolicy(), SyncPolicy(**ws.keywords()))


def _hooks(hooks: HooksOf, name: str) -> Hooks:
    if hooks is None:
        return Hooks()
    return hooks if isinstance(hooks, Hooks) else hooks(name)


def _resolve(
    targets: Targets,
    config: str | PathLike[str] | None,
    env: Mapping[str, str] | None,
    cwd: str | PathLike[str] | None,
    connection: Connection,
) -> tuple[tuple[Workspace, ...], dict[str, Settings], dict[str, TargetResult]]:
    """The workspaces, the settings of those that resolve, the failure of the others."""
    given = list(targets or ())
    named = [t for t in given if isinstance(t, str)]
    if given and len(named) == len(given):
        workspaces = load_workspaces(config, named, env=env, cwd=cwd)
    elif not given:
        workspaces = load_workspaces(config, env=env, cwd=cwd)
    elif named:
        raise ConfigError("give targets as names or as Workspace objects, not both")
    else:
        workspaces = tuple(t for t in given if isinstance(t, Workspace))
        names = [w.name for w in workspaces]
        if len(set(names)) != len(names):
            raise ConfigError("two targets of one run have the same name")
    settings: dict[str, Settings] = {}
    failed: dict[str, TargetResult] = {}
    for ws in workspaces:
        try:
            settings[ws.name] = ws.settings(
                env=env,
                insecure=connection.insecure,
                concurrency=connection.concurrency,
                cwd=cwd,
                network=connection.network,
            )
        except ConfigError as exc:
            failed[ws.name] = _error(ws.name, None, exc)
    local = {n: local_identity(s.target) for n, s in settings.items()}  # no request
    labels = {n: s.target.label for n, s in settings.items()}
    refuse_shared({n: i for n, i in local.items() if i is not None}, labels)
    return workspaces, settings, failed


def _one_workspace_each(
    settings: Mapping[str, Settings], failed: dict[str, TargetResult]
) -> dict[str, WorkspaceIdentity]:
    """The workspace each target reaches (step 2b): a target whose identity cannot be
    read goes to ``failed``; two on one workspace are a ``ConfigError``."""
    todo = {name: s for name, s in settings.items() if name not in failed}
    known: dict[str, WorkspaceIdentity] = {}
    for name, got in read_identities(todo).items():
        if isinstance(got, WorkspaceIdentity):
            known[name] = got
        else:
            failed[name] = _error(name, settings[name], got)
    refuse_shared(known, {name: s.target.label for name, s in todo.items()})
    return known


def _preflight_together(runs: Mapping[str, ApplyRun]) -> None:
    checks = Checks()
    for name, run in runs.items():
        checks += run.checks().named(name)
    checks.check()


def _error(name: str, settings: Settings | None, exc: BaseException, **more: Any) -> TargetResult:
    label = settings.target.label if settings is not None else ""
    text = describe(exc) if not _unexpected(exc) else f"{type(exc).__name__}: {exc}"
    return TargetResult(
        name, label, exit_code_for(exc), error=text, error_constant=error_constant(exc), **more
    )


def _log_failed(failed: Mapping[str, TargetResult]) -> None:
    """A ``run_end`` (level error) for each target that fails before its run starts (its
    key variable unset, its workspace not reachable): its name, exit code, constant and
    why, so a log collector hears of every target of the run, not only those that ran."""
    log = logging.getLogger("linksync")
    for name, result in failed.items():
        with target_named(name):
            log_run_end(
                log, counts={}, duration_s=0.0, exit_code=result.exit_code,
                error_constant=result.error_constant or "CONFIG_ERROR", reason=result.error,
            )  # fmt: skip


def _unexpected(exc: BaseException) -> bool:
    return not isinstance(exc, LinksyncError | OSError)


def _in_threads(
    workspaces: Sequence[Workspace],
    one: Callable[[Workspace], TargetResult],
    settings: Mapping[str, Settings],
    run_of: Callable[[Workspace], ApplyRun | None],
    *,
    cancel: threading.Event | None,
) -> dict[str, TargetResult]:
    """``one(ws)`` for every workspace at once, each in a thread; an error ends its
    target only. Ctrl-C sets ``cancel`` (every target stops sending) and waits for them."""
    log = logging.getLogger("linksync")

    def guarded(ws: Workspace) -> TargetResult:
        with target_named(ws.name):  # each line it logs names it
            try:
                return one(ws)
            except Exception as exc:
                if _unexpected(exc):
                    log.exception("target %s failed unexpectedly", ws.name)
                run = run_of(ws)
                writes = run.writes if run is not None else RemoteWrites()
                journal = run.journal if run is not None else None
                journal = journal if journal is not None and journal.is_file() else None
                return _error(ws.name, settings[ws.name], exc, writes=writes, journal=journal)

    if not workspaces:
        return {}
    with ThreadPoolExecutor(len(workspaces), thread_name_prefix="linksync-target") as pool:
        futures: dict[str, Future[TargetResult]] = {
            ws.name: pool.submit(guarded, ws) for ws in workspaces
        }
        try:
            wait_all(futures.values())
        except KeyboardInterrupt:
            if cancel is None:
                raise
            cancel.set()  # every target stops sending; their results are kept
            wait_all(futures.values())
    return {name: f.result() for name, f in futures.items()}


class _Either:
    """A cancel signal set when either of two is."""

    def __init__(self, own: threading.Event, theirs: CancelSignal | None) -> None:
        self.own, self.theirs = own, theirs

    def is_set(self) -> bool:
        return self.own.is_set() or (self.theirs is not None and self.theirs.is_set())
