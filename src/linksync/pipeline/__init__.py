"""The run, as a library: ``linksync.plan`` and ``linksync.apply``.

A run is the same wherever it starts (the command line, the web page, the GitHub
Action through the command line, a scheduler's Python code): every output path checked
before the first request, the run lock, the plan, rows that failed in the last run
first, the journal, reports streamed in source order, annotated copies, QR codes, run
facts and an exit code that says what happened. Front ends parse their input, call one
of these, and render what comes back::

    import linksync
    from linksync import Outputs, SyncPolicy

    planned = linksync.plan(["links/"])            # Planned: .plan, .exit_code
    results = linksync.apply(                      # Results: .rows, .exit_code
        ["links/"], sync=SyncPolicy(owner_tag="managed"), outputs=Outputs(reports=["out.csv"])
    )

What a run is asked is a few typed values (``request``: ``Reading``, ``SyncPolicy``,
``Notify``, ``Outputs`` / ``PlanOutputs``, ``Hooks``; ``Connection`` for a run over
targets), each field with its line of help, its flag and its profile key
(``help(linksync.Reading)``). In ``Hooks``, ``events`` (a ``RunEvents``) tells a front
end what happens as it happens and lets it confirm the plan; ``on_progress`` (a
``ProgressSink``) follows the rows; ``cancel`` stops the run from another thread.

``undo`` reverses what a run wrote (its journal holds what each link held before), as
a run of its own with the same request values; ``plan_undo`` shows that plan only::

    linksync.undo("20260301T020000Z-3fa9c1", outputs=Outputs(reports=["undo.csv"]))

``plan_all`` and ``apply_all`` run the targets (workspaces) a config file names, at
once, each with its own client and rate limiter, and return one ``TargetResult`` per
target and the combined exit code (``AllResults``; see ``all_runs``)::

    every = linksync.apply_all(outputs=Outputs(reports=["out/{target}.csv"]))  # at once
    one = linksync.apply_all(["brand-a"])                      # one target per job

Layer: under the front ends. It may import every library package (config, sources,
validate, api, sync, report, export, and below); only ``cli``, ``ui`` and the facade import it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what editors and type checkers see; imported on first use
    from linksync.pipeline.all_results import AllResults, TargetResult, for_target
    from linksync.pipeline.all_runs import apply_all, plan_all
    from linksync.pipeline.applying import ApplyRun
    from linksync.pipeline.entry import apply, apply_async, plan, plan_async, prepare_apply
    from linksync.pipeline.events import RunEvents
    from linksync.pipeline.inputs import Sources
    from linksync.pipeline.planning import Planned
    from linksync.pipeline.request import (
        Connection,
        Hooks,
        Notify,
        Outputs,
        PlanOutputs,
        Reading,
        SyncPolicy,
    )
    from linksync.pipeline.undoing import plan_undo, undo
    from linksync.sync.results import CancelSignal, ProgressSink, Results

#: Where each public name lives: imported when first asked for, so that a command
#: reading one module of the package (``validate``: the request, the readers' setup)
#: does not load the engine, the client and the report writers.
_HOMES = {
    **dict.fromkeys(("AllResults", "TargetResult", "for_target"), "all_results"),
    **dict.fromkeys(("apply_all", "plan_all"), "all_runs"),
    "ApplyRun": "applying",
    **dict.fromkeys(("apply", "apply_async", "plan", "plan_async", "prepare_apply"), "entry"),
    "RunEvents": "events",
    "Sources": "inputs",
    "Planned": "planning",
    **dict.fromkeys(("plan_undo", "undo"), "undoing"),
    **dict.fromkeys(
        ("Connection", "Hooks", "Notify", "Outputs", "PlanOutputs", "Reading", "SyncPolicy"),
        "request",
    ),
}
_SYNC = ("CancelSignal", "ProgressSink", "Results")

__all__ = [
    "AllResults",
    "ApplyRun",
    "CancelSignal",
    "Connection",
    "Hooks",
    "Notify",
    "Outputs",
    "PlanOutputs",
    "Planned",
    "ProgressSink",
    "Reading",
    "Results",
    "RunEvents",
    "Sources",
    "SyncPolicy",
    "TargetResult",
    "apply",
    "apply_all",
    "apply_async",
    "for_target",
    "plan",
    "plan_all",
    "plan_async",
    "plan_undo",
    "prepare_apply",
    "undo",
]


def __getattr__(name: str) -> Any:
    from importlib import import_module

    if name in _HOMES:
        return getattr(import_module(f"linksync.pipeline.{_HOMES[name]}"), name)
    if name in _SYNC:
        return getattr(import_module("linksync.sync.results"), name)
    raise AttributeError(f"module 'linksync.pipeline' has no attribute {name!r}")
