"""linksync: keep a link-shortening workspace in step with a declared list of links.

``linksync.plan`` and ``linksync.apply`` are the run as a library call (see
``linksync.pipeline``), ``linksync.undo`` reverses what a run wrote (``linksync.plan_undo``
shows how), ``linksync.plan_all`` and ``linksync.apply_all`` the same over the targets
(workspaces) of a config file, and ``linksync.load_workspaces`` reads those targets
(``linksync.config.targets``); they are imported on first use, so ``import linksync``
stays light. What a run is asked is a few typed values, each field with its
line of help, the flag and the profile key that set it (``help(linksync.Reading)``):
``Reading``, ``SyncPolicy``, ``Notify``, ``Outputs`` / ``PlanOutputs``, ``Hooks``, and
``Connection`` for a run over targets (``linksync.pipeline.request``)::

    linksync.apply(["links/"], sync=linksync.SyncPolicy(mode="mirror", owner_tag="managed"))
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from linksync._version import __version__

if TYPE_CHECKING:  # what editors and type checkers show for linksync.apply(...)
    from linksync.config.targets import load_workspaces
    from linksync.pipeline import (
        Connection,
        Hooks,
        Notify,
        Outputs,
        PlanOutputs,
        Reading,
        SyncPolicy,
        apply,
        apply_all,
        apply_async,
        plan,
        plan_all,
        plan_async,
        plan_undo,
        undo,
    )

__all__ = [
    "Connection",
    "Hooks",
    "Notify",
    "Outputs",
    "PlanOutputs",
    "Reading",
    "SyncPolicy",
    "__version__",
    "apply",
    "apply_all",
    "apply_async",
    "load_workspaces",
    "plan",
    "plan_all",
    "plan_async",
    "plan_undo",
    "undo",
]

_RUNS = (
    "plan", "apply", "plan_async", "apply_async", "plan_all", "apply_all", "undo", "plan_undo",
)  # fmt: skip
_REQUEST = ("Reading", "SyncPolicy", "Notify", "Outputs", "PlanOutputs", "Hooks", "Connection")

# A library leaves logging to the application: without a handler configured, the
# run's structured events (a failed row is a warning) are not printed on stderr.
logging.getLogger("linksync").addHandler(logging.NullHandler())


def __getattr__(name: str) -> Any:
    if name in _RUNS or name in _REQUEST:
        from linksync import pipeline

        return getattr(pipeline, name)
    if name == "load_workspaces":
        from linksync.config.targets import load_workspaces

        return load_workspaces
    raise AttributeError(f"module 'linksync' has no attribute {name!r}")
