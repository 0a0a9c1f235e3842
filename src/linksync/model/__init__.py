"""Plain values passed between stages: desired links, remote links, per-row results.

Stages: sources -> LinkSpec (with Provenance) -> validate -> remote state (RemoteLink)
-> Plan -> executor -> RowResult -> report writers.

Field names are snake_case in Python and camelCase on the wire; ``API_NAMES`` maps one
to the other. A link's identity is a ``LinkKey`` (domain and slug, folded to lower
case); a row's origin is its ``Provenance`` (``place``: source, sheet, row). Each value
has one ``to_dict`` (plain JSON types) and, when something reads it back, one
``from_dict`` (a run's ``RunInfo`` is only written); a desired link's password is
written as ``"***"``, never in clear.

What a run's results mean as an exit code is ``model.outcome``, the team's UTM rules
(a profile's or a YAML file's ``utm_rules:``) are ``model.utm_rules``; neither is
re-exported here.

Layer: the lowest, beside ``errors``, ``rules`` and ``safe``; it may import only those and
the standard library.
"""

from linksync.model.links import (
    API_NAMES,
    FIELD_FROM_API,
    LINK_FIELDS,
    LinkKey,
    LinkSpec,
    Place,
    Problem,
    Provenance,
    RemoteLink,
    Severity,
    plain,
)
from linksync.model.results import (
    RESULT_COLUMNS,
    Action,
    RowResult,
    RunInfo,
    Status,
    in_column,
)

__all__ = [
    "API_NAMES",
    "FIELD_FROM_API",
    "LINK_FIELDS",
    "RESULT_COLUMNS",
    "Action",
    "LinkKey",
    "LinkSpec",
    "Place",
    "Problem",
    "Provenance",
    "RemoteLink",
    "RowResult",
    "RunInfo",
    "Severity",
    "Status",
    "in_column",
    "plain",
]
