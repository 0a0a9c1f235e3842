"""JSON forms of the values a plan holds: provenance, desired links, remote links,
problems. Plain dicts with JSON types; ``linksync.sync.plan`` builds on them. Link
passwords never appear: a desired link's password is written as ``"***"``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from linksync.model import LinkSpec, Problem, Provenance, RemoteLink, Severity

REDACTED = "***"


def plain(value: Any) -> Any:
    if isinstance(value, tuple | list | frozenset | set):
        items = [plain(v) for v in value]
        return sorted(items) if isinstance(value, frozenset | set) else items
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    return value


def tuple_if_list(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _provenance_to_dict(p: Provenance) -> dict[str, Any]:
    return {"source": p.source, "sheet": p.sheet, "row": p.row, "columns": dict(p.columns)}


def _provenance_from_dict(d: Mapping[str, Any]) -> Provenance:
    return Provenance(
        source=str(d["source"]),
        sheet=d.get("sheet"),
        row=d.get("row"),
        columns=dict(d.get("columns") or {}),
    )


def spec_to_dict(spec: LinkSpec) -> dict[str, Any]:
    return {
        "url": spec.url,
        "slug": spec.slug,
        "domain": spec.domain,
        "description": spec.description,
        "tags": list(spec.tags) if spec.tags is not None else None,
        "password": REDACTED if spec.password is not None else None,
        "expires_at": spec.expires_at,
        "apple": spec.apple,
        "google": spec.google,
        "managed": sorted(spec.managed),
        "provenance": _provenance_to_dict(spec.provenance) if spec.provenance else None,
    }


def spec_from_dict(d: Mapping[str, Any]) -> LinkSpec:
    tags = d.get("tags")
    return LinkSpec(
        url=d.get("url"),
        slug=d.get("slug"),
        domain=d.get("domain"),
        description=d.get("description"),
        tags=tuple(tags) if tags is not None else None,
        password=d.get("password"),
        expires_at=d.get("expires_at"),
        apple=d.get("apple"),
        google=d.get("google"),
        managed=frozenset(d.get("managed") or ()),
        provenance=_provenance_from_dict(d["provenance"]) if d.get("provenance") else None,
    )


def remote_from_dict(d: Mapping[str, Any]) -> RemoteLink:
    """A RemoteLink from its ``to_dict`` (wire names)."""
    return RemoteLink(
        domain=str(d["domain"]),
        slug=str(d["slug"]),
        url=str(d.get("url") or ""),
        id=d.get("id"),
        short_url=d.get("shortUrl"),
        description=d.get("description"),
        tags=tuple(d.get("tags") or ()),
        apple=d.get("apple"),
        google=d.get("google"),
        has_password=bool(d.get("hasPassword", False)),
        expires_at=d.get("expiresAt"),
        created_at=d.get("createdAt"),
        updated_at=d.get("updatedAt"),
    )


def problem_to_dict(p: Problem) -> dict[str, Any]:
    out = {
        "constant": p.constant,
        "message": p.message,
        "field": p.field,
        "severity": p.severity.value,
        "provenance": _provenance_to_dict(p.provenance) if p.provenance else None,
    }
    if p.column is not None:  # a column no field names (a value beyond the header)
        out["column"] = p.column
    return out


def problem_from_dict(d: Mapping[str, Any]) -> Problem:
    return Problem(
        constant=str(d["constant"]),
        message=str(d.get("message") or ""),
        provenance=_provenance_from_dict(d["provenance"]) if d.get("provenance") else None,
        field=d.get("field"),
        severity=Severity(d.get("severity", "error")),
        column=d.get("column"),
    )
