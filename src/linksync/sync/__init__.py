"""The sync engine: remote state -> diff -> Plan -> executor -> Results.

``diff`` is pure; ``fetch_remote`` (``sync.remote``) reads what the diff needs through
the client; ``execute`` (``sync.execute``) applies a plan within the client's rate
limit. The whole run around them (lock, outputs, reports, journal) is
``linksync.pipeline``: ``linksync.plan`` and ``linksync.apply``.

Layer: beside ``validate``, above ``api``. It may import api, sources, sandbox and the
lowest layer (errors, model, rules, safe), never config, reports or the pipeline.
"""

from __future__ import annotations

from linksync.sync.compare import compare
from linksync.sync.diff import diff
from linksync.sync.options import Mode, SyncOptions
from linksync.sync.plan import Plan
from linksync.sync.state import DomainInfo, OrgInfo, RemoteState

__all__ = [
    "DomainInfo",
    "Mode",
    "OrgInfo",
    "Plan",
    "RemoteState",
    "SyncOptions",
    "compare",
    "diff",
]
