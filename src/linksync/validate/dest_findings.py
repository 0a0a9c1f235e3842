"""The rows' findings of a destination check (``--check-destinations``).

``check_destinations(validation)`` gathers the destinations of the valid rows (``url``,
``apple``, ``google``; http and https only), checks each distinct one once
(``linksync.validate.destinations``) and returns the validation with a problem on every
row whose destination has a finding: a warning, or an error under ``strict`` (the row
is then invalid and not sent). A destination may make two findings: its verdict's
(``DEST_OTHER_HOST``...) and ``DEST_UTM_DROPPED`` when the final URL lacks ``utm_*``
parameters the row's URL carries (``utm_message``). Rows already invalid are not
checked: they are not sent either way, and their own errors come first.
"""

from __future__ import annotations

from dataclasses import replace

from linksync.api.network import Network
from linksync.model import Problem, Severity
from linksync.validate import STRICT_NOTE, Validation
from linksync.validate.destinations import (
    DestinationCheck,
    ProgressFn,
    Verdict,
    check_urls,
)

#: The fields holding a destination.
DEST_FIELDS = ("url", "apple", "google")

#: What each constant says before the detail of its verdict.
_CAUSES: dict[str, str] = {
    "DEST_NOT_FOUND": "the destination is not found",
    "DEST_CLIENT_ERROR": "the destination refuses the request",
    "DEST_SERVER_ERROR": "the destination's server fails",
    "DEST_TIMEOUT": "the destination does not answer",
    "DEST_UNREACHABLE": "the destination cannot be reached",
    "DEST_TLS_ERROR": "the destination's HTTPS is not trusted",
    "DEST_REDIRECT_LOOP": "the destination never lands",
    "DEST_OTHER_HOST": "the destination redirects to another host",
    "DEST_HTTPS_AVAILABLE": "the destination redirects http:// to https://",
}


def message(verdict: Verdict) -> str:
    """The row's message for a verdict with a finding: the cause, the detail, the
    final URL and the status."""
    constant = verdict.constant or ""
    text = f"{_CAUSES.get(constant, constant)}: {verdict.detail}"
    if verdict.final != verdict.url and verdict.final not in verdict.detail:
        text += f" (final URL {verdict.final})"
    if verdict.status is not None and not verdict.detail.startswith(str(verdict.status)):
        text += f" [status {verdict.status}]"
    return text


def utm_message(verdict: Verdict) -> str:
    """The row's message of a destination whose final URL lacks ``utm_*`` parameters the
    row's URL carries: the final URL, the redirects' statuses, the parameters lost (and
    those kept with another value)."""
    statuses = ", ".join(str(s) for s in verdict.redirects)
    text = (
        f"the destination redirects to {verdict.final} ({statuses}), which drops "
        f"{', '.join(verdict.utm_dropped)}"
    )
    if verdict.utm_changed:
        kept = "; ".join(
            f"{n} arrives as '{new}', not '{old}'" for n, old, new in verdict.utm_changed
        )
        text += f" ({kept})"
    return (
        f"{text}: the campaign's numbers are lost; point the link at the final address, or "
        "fix the redirect to keep the query string"
    )


def findings(verdict: Verdict) -> list[tuple[str, str]]:
    """(constant, message) of each finding a verdict makes on its rows."""
    found = [(verdict.constant, message(verdict))] if verdict.constant is not None else []
    if verdict.utm_dropped:
        found.append(("DEST_UTM_DROPPED", utm_message(verdict)))
    return found


def _checked(value: object) -> str | None:
    if isinstance(value, str) and value.lower().startswith(("http://", "https://")):
        return value
    return None


def check_destinations(
    validation: Validation,
    *,
    strict: bool = False,
    network: Network | None = None,
    progress: ProgressFn | None = None,
) -> tuple[Validation, DestinationCheck]:
    """The validation with the findings of a destination check on its rows, and the
    check (its summary says how many URLs and how long); ``progress(done, total)`` as
    ``check_urls`` calls it."""
    wanted: list[tuple[int, str, str]] = []
    for i, spec in enumerate(validation.iter_specs()):
        if i in validation.invalid:
            continue
        for name in DEST_FIELDS:
            url = _checked(getattr(spec, name))
            if url is not None:
                wanted.append((i, name, url))
    done = check_urls((url for *_, url in wanted), network=network, progress=progress)
    found: dict[int, list[Problem]] = {}
    specs = validation.specs
    severity = Severity.ERROR if strict else Severity.WARNING
    for i, name, url in wanted:
        for constant, said in findings(done.verdicts[url]):
            text = said + (STRICT_NOTE if strict else "")
            problem = Problem(constant, text, specs[i].provenance, name, severity)
            found.setdefault(i, []).append(problem)
    return _merged(validation, found), done


def _merged(validation: Validation, found: dict[int, list[Problem]]) -> Validation:
    """``validation`` with ``found`` (by row position) after each row's own problems."""
    if not found:
        return validation
    position: dict[tuple[str, str | None, int | None], int] = {}
    for i, spec in enumerate(validation.specs):
        p = spec.provenance
        if p is not None:
            position.setdefault((p.source, p.sheet, p.row), i)
    keyed: list[tuple[int, Problem]] = []
    last = -1
    for problem in validation.problems:
        p = problem.provenance
        if p is not None and p.row is not None:
            last = position.get((p.source, p.sheet, p.row), last)
        keyed.append((last, problem))
    # a stable sort: each row's own problems, then its findings, in their order
    keyed += [(i, problem) for i, problems in found.items() for problem in problems]
    keyed.sort(key=lambda t: t[0])
    invalid = validation.invalid | {
        i for i, ps in found.items() if any(p.severity is Severity.ERROR for p in ps)
    }
    return replace(validation, problems=tuple(p for _, p in keyed), invalid=frozenset(invalid))
