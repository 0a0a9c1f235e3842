"""``plan --all`` / ``apply --all`` (or ``--target NAME``, repeatable): the targets
(workspaces) of the config file's ``targets:`` block, at once. The commands parse their
flags, call ``linksync.plan_all`` / ``linksync.apply_all`` and render: each target's
plan (stderr for apply, stdout for plan), then the summary on stdout, a table with one
row per target and the sentence that explains the exit code (``--json``: the same as
JSON), and exit with the combined code (``linksync.model.outcome.combined_exit_code``).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

import click

from linksync.cli.common import asked, echo, err
from linksync.cli.events import CliEvents
from linksync.cli.options import TargetOptions, on_terminal
from linksync.errors import ConfigError
from linksync.logs import setup_logging
from linksync.safe.secrets import Secrets

if TYPE_CHECKING:
    from linksync.pipeline import AllResults, Outputs, PlanOutputs, TargetResult
    from linksync.sync.plan import Plan


def run_targets(
    run_all: Callable[..., AllResults],
    target: TargetOptions,
    names: Sequence[str],
    *,
    log_format: str,
    flags: Mapping[str, Any],
    yes: bool,
    outputs: Outputs | PlanOutputs,
) -> AllResults:
    """``run_all`` (``plan_all`` or ``apply_all``) of the targets ``names``, with the
    request of the flags given: logging first, the targets (each key and notify URL a
    secret of the log) announced on stderr, each target's events on stderr
    (``TargetEvents``)."""
    from linksync.config.targets import load_workspaces
    from linksync.pipeline import Hooks

    reading, policy, notify = asked(flags)
    secrets = Secrets(notify.urls or ())
    logger = setup_logging(log_format, secrets=secrets)  # type: ignore[arg-type]
    sandbox = target.sandbox or on_terminal()  # for the targets that name no base_url
    workspaces = load_workspaces(target.config, names or None, sandbox=sandbox)
    net = target.connection
    for ws in workspaces:
        try:
            settings = ws.settings(
                insecure=net.insecure, concurrency=net.concurrency, network=net.network
            )
        except ConfigError:
            settings = None  # the run reports it as this target's error
        for secret in (*ws.profile.notify, *(settings.target.secrets() if settings else ())):
            secrets.add(secret)
        via = settings.target.describe().partition(" via proxy ")[2] if settings else ""
        if via:
            err(f"[{ws.name}] via proxy {via}")
    err(f"targets: {', '.join(ws.name for ws in workspaces)}")
    asking = threading.Lock()

    def hooks(name: str) -> Hooks:
        return Hooks(events=TargetEvents(name, asking, yes=yes), logger=logger)

    return run_all(
        workspaces, target.config, connection=net, reading=reading, sync=policy,
        notify=notify, outputs=outputs, hooks=hooks,
    )  # fmt: skip


class TargetEvents(CliEvents):
    """``CliEvents`` of one target of several: messages name it (``prefix``); plans are
    confirmed one target at a time (a lock), each shown right before its question."""

    def __init__(self, name: str, asking: threading.Lock, *, yes: bool) -> None:
        super().__init__(yes=yes, prefix=f"[{name}] ")
        self.name = name
        self.asking = asking

    def planned(self, plan: Plan) -> None:
        if self.yes:
            self._show(plan)

    def _show(self, plan: Plan) -> None:
        from linksync.report import render_plan_text

        err(f"== {self.name} ==\n{render_plan_text(plan)}")  # one write: no interleaving

    def confirm(self, plan: Plan) -> bool:
        if self.yes:
            return True
        with self.asking:
            self._show(plan)
            return click.confirm(
                f"Apply {len(plan.writes)} changes to {self.name}?", default=False, err=True
            )

    def lock_wait(self, holder: Any, seconds: float) -> None:
        err(f"[{self.name}] waiting up to {seconds:g} s for the lock")


def plan_targets(
    target: TargetOptions,
    names: Sequence[str],
    *,
    fmt: str,
    log_format: str,
    flags: Mapping[str, Any],
) -> NoReturn:
    from linksync.pipeline import PlanOutputs, plan_all
    from linksync.pipeline.fields import from_flags

    outputs = from_flags(PlanOutputs, flags)
    every = run_targets(
        plan_all, target, names, log_format=log_format, flags=flags, yes=True, outputs=outputs
    )
    if fmt == "json":
        _json(every, plans=True)
    elif fmt == "markdown":
        echo(_markdown(every), nl=False)
    else:
        for t in every:
            echo(f"== {t.name}: {t.label or '(not resolved)'} ==")
            echo(_plan_text(t))
        _table(every)
    sys.exit(every.exit_code)


def apply_targets(
    target: TargetOptions,
    names: Sequence[str],
    *,
    yes: bool,
    as_json: bool,
    outputs: Outputs,
    log_format: str,
    flags: Mapping[str, Any],
) -> NoReturn:
    from linksync.pipeline import apply_all

    if not yes and not sys.stdin.isatty():
        raise ConfigError("no terminal to confirm on: pass --yes to apply without asking")
    every = run_targets(
        apply_all, target, names, log_format=log_format, flags=flags, yes=yes, outputs=outputs
    )
    if as_json:
        _json(every)
    else:
        _table(every)
    sys.exit(every.exit_code)


def _plan_text(t: TargetResult) -> str:
    from linksync.report import render_plan_text

    if t.planned is None:
        return f"Error: {t.error}"
    return render_plan_text(t.planned.plan)


def _markdown(every: AllResults) -> str:
    from linksync.report import render_plan_markdown

    out: list[str] = []
    for t in every:
        if t.planned is not None:
            title = f"linksync plan: {t.name}"
            problems = t.planned.file_problems
            out.append(render_plan_markdown(t.planned.plan, title=title, file_problems=problems))
        else:
            out.append(f"## linksync plan: {t.name}\n\n**Error** `{t.error_constant}`: {t.error}\n")
    out.append(f"**{every.verdict()}**\n")
    return "\n".join(out)


def _json(every: AllResults, *, plans: bool = False) -> None:
    from linksync.cli.workspace_render import emit_json

    data = every.to_dict()
    if plans:
        for item, t in zip(data["targets"], every.targets, strict=True):
            item["plan"] = t.planned.plan.to_dict() if t.planned is not None else None
    emit_json(data)


_PLANNED = ("create", "update", "replace", "delete", "invalid")


def _table(every: AllResults) -> None:
    from linksync.cli.workspace_render import console, table

    planned: tuple[str, ...] = _PLANNED
    if any(t.counts.get("retire") for t in every):  # --retire-to: a column of its own
        planned = (*_PLANNED[:-1], "retire", _PLANNED[-1])
    if every.command == "apply":
        columns = ["target", "status", "exit", "created", "updated", "deleted", "failed"]
    else:
        columns = ["target", "status", "exit", *planned]
    rows = []
    for t in every:
        if every.command == "apply":
            done = t.writes.to_dict()
            numbers = [done["created"], done["updated"], done["deleted"], t.counts.get("failed")]
        else:
            numbers = [t.counts.get(k) for k in planned]
        note = t.error or ", ".join(str(f) for f in t.files)
        rows.append([t.name, t.status, t.exit_code, *numbers, note])
    console().print(table(f"{len(every)} target(s)", [*columns, "error / files"], rows))
    echo(every.verdict())
