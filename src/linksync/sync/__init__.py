"""The sync engine: remote state -> diff -> Plan -> executor -> Results.

``diff`` is pure; ``fetch_remote`` (``sync.remote``) reads what the diff needs through
the client; ``execute`` (``sync.execute``) applies a plan within the client's rate
limit. The whole run around them (lock, outputs, reports, journal) is
``linksync.pipeline``: ``linksync.plan`` and ``linksync.apply``.

Layer: beside ``validate``, above ``api``. It may import api, sources, sandbox and the
lowest layer (errors, model, rules, safe), never config, reports or the pipeline.
"""

from __future__ import annotations

from linksync.sync.compare import compare, create_payload
from linksync.sync.diff import diff
from linksync.sync.options import MODES, Mode, SyncOptions
from linksync.sync.plan import Change, FieldChange, Plan
from linksync.sync.state import DomainFetch, DomainInfo, OrgInfo, RemoteState
from linksync.sync.verdicts import QuotaNote, Safety

__all__ = [
    "MODES",
    "Change",
    "DomainFetch",
    "DomainInfo",
    "FieldChange",
    "Mode",
    "OrgInfo",
    "Plan",
    "QuotaNote",
    "RemoteState",
    "Safety",
    "SyncOptions",
    "compare",
    "create_payload",
    "diff",
]
