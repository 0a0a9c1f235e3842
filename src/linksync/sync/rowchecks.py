"""The checks of a row the diff makes before it looks for the row's link
(``linksync.sync.diff``): the row's domain, and that it names a link at all."""

from __future__ import annotations

from linksync.model import LinkSpec, Problem
from linksync.sync.state import RemoteState


def problem(constant: str, message: str, spec: LinkSpec | None, field: str | None) -> Problem:
    """A finding of a row (``spec``; none: of no row) about ``field``."""
    return Problem(constant, message, spec.provenance if spec else None, field)


def domain_problem(remote: RemoteState, spec: LinkSpec, domain: str) -> Problem | None:
    """The problem of a row's domain: not registered in the workspace, or not active."""
    if domain == remote.system_domain:
        return None
    info = remote.custom_domains.get(domain)
    if info is None:
        return problem(
            "DOMAIN_NOT_FOUND",
            f"domain {domain} is not registered in this workspace",
            spec,
            "domain",
        )
    if not info.active:
        return problem(
            "DOMAIN_NOT_ACTIVE",
            f"domain {domain} is registered but not active (status {info.status})",
            spec,
            "domain",
        )
    return None


def missing_url(spec: LinkSpec) -> Problem | None:
    """The problem of a row with neither a slug nor a destination URL."""
    if spec.slug or (spec.url and spec.url.strip()):
        return None
    return problem("MISSING_URL", "row has neither a slug nor a destination URL", spec, "url")
