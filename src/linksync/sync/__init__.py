"""The sync engine: remote state -> diff -> Plan -> executor -> Results.

``diff`` is pure; ``fetch_remote`` reads what the diff needs through the client;
``execute`` applies a plan within the client's rate limit and journals every request.
"""

from __future__ import annotations

from linksync.sync.diff import compare, create_payload, diff
from linksync.sync.options import MODES, Mode, SyncOptions
from linksync.sync.plan import Change, DomainFetch, FieldChange, Plan, QuotaNote, Safety
from linksync.sync.state import DomainInfo, OrgInfo, RemoteState

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
