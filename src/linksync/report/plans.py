"""Plans for people: report rows of a plan, a plain-text table for the terminal, and
markdown for a pull-request comment."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from linksync.model import Action, Problem, RowResult, RunInfo, Status, in_column
from linksync.model.results import expiry_note
from linksync.report.base import Closing, ReportOptions
from linksync.report.cells import field_change_text
from linksync.report.markdown import MarkdownWriter
from linksync.sync.plan import Change, Plan
from linksync.sync.slugs import Slugless

MAX_SHOWN = 200


def plan_row(ch: Change) -> RowResult:
    """A plan change as a report row (status ``planned``, or invalid/skipped)."""
    status = Status.PLANNED
    if ch.action is Action.INVALID:
        status = Status.INVALID
    elif ch.action is Action.SKIP:
        status = Status.SKIPPED
    err = ch.error
    return RowResult.from_change(
        ch,
        status,
        constant=err.constant if err else None,
        message=err.message if err else ch.reason,
        field_name=err.field if err else None,
        column=err.column if err else None,
        field_changes=tuple((f.field, f.old, f.new) for f in ch.fields),
    )


def plan_rows(plan: Plan) -> list[RowResult]:
    return [plan_row(ch) for ch in plan.changes]


def slugless_note(plan: Plan) -> str | None:
    """How the plan's creates without a slug get one (None when it has none)."""
    n = sum(
        1
        for ch in plan.changes
        if ch.action is Action.CREATE and ch.spec is not None and not ch.spec.slug
    )
    if not n:
        return None
    rows = "1 row" if n == 1 else f"{n} rows"
    if plan.options.slugless is Slugless.STABLE:
        return (
            f"{rows} without a slug: created with a stable slug derived from domain and URL "
            "(shown per row): runs racing on other machines make one link per row"
        )
    return (
        f"{rows} without a slug: the service picks a random slug (slugless: random); only "
        "the run lock on this machine keeps another run from making a second link"
    )


def _stable(ch: Change) -> bool:
    return ch.action is Action.CREATE and ch.spec is not None and not ch.spec.slug and bool(ch.slug)


def describe_change(ch: Change) -> str:
    where = ch.provenance.where() if ch.provenance else "(remote)"
    label = f"{ch.label()} (stable slug)" if _stable(ch) else ch.label()
    head = f"{ch.action.value:<9} {label}  [{where}]"
    lines = [head]
    for f in ch.fields:
        lines.append("            " + field_change_text(f.field, f.old, f.new))
    note = expiry_note(ch.spec) if ch.action in (Action.CREATE, Action.REPLACE) else None
    if note is not None:
        lines.append(f"            {note}")
    for p in ch.problems:
        message = in_column(p.message, p.field, ch.provenance, p.column)
        lines.append(f"            {p.severity.value} {p.constant}: {message}")
    if ch.reason:
        lines.append(f"            {ch.reason}")
    return "\n".join(lines)


def render_plan_text(plan: Plan) -> str:
    """The plan as text: fetch cost, changes (unchanged rows counted), quota, verdict."""
    out: list[str] = []
    counts = plan.counts
    out.append(
        "Plan: " + ", ".join(f"{n} {a}" for a, n in counts.items() if n) if plan.changes else
        "Plan: no rows"
    )  # fmt: skip
    for f in plan.fetches:
        total = f" of {f.total}" if f.total is not None else ""
        out.append(
            f"  fetched {f.domain}: {f.strategy}, {f.requests} requests, {f.links} links{total}"
        )
    out.append(f"  requests to read the workspace: {plan.requests}")
    if plan.quota is not None:
        out.append(f"  quota: {plan.quota.describe()}")
    out.append(f"  unmanaged: {plan.unmanaged.describe()}")
    out.extend(f"  {p.severity.value}: {p.constant}: {p.message}" for p in plan.problems)
    slugless = slugless_note(plan)
    if slugless is not None:
        out.append(f"  slugs: {slugless}")
    shown = [ch for ch in plan.changes if ch.action is not Action.UNCHANGED]
    for ch in shown[:MAX_SHOWN]:
        out.append(describe_change(ch))
    if len(shown) > MAX_SHOWN:
        out.append(f"... and {len(shown) - MAX_SHOWN} more changes (see --format json)")
    if plan.safety.refused:
        verdict = "REFUSED" if not plan.options.force else "over the limit, forced"
        out.append(f"Safety: {verdict}: {plan.safety.reason}")
        if not plan.options.force:
            out.append("  apply would refuse this plan; pass --force to apply it anyway")
    if not plan.has_changes:
        out.append("No changes: the workspace matches the sources.")
    return "\n".join(out)


def plan_notes(plan: Plan) -> tuple[str, ...]:
    """What a reader of the plan should know beyond its rows: quota, unmanaged links."""
    notes: list[str] = []
    if plan.quota is not None and plan.quota.excess:
        notes.append(f"Quota: {plan.quota.describe()}.")
    notes.append(f"Unmanaged: {plan.unmanaged.describe()}.")
    notes.extend(f"{p.severity.value.title()}: {p.constant}: {p.message}." for p in plan.problems)
    slugless = slugless_note(plan)
    if slugless is not None:
        notes.append(f"Slugs: {slugless}.")
    return tuple(notes)


def render_plan_markdown(
    plan: Plan, *, title: str | None = None, file_problems: Sequence[Problem] = ()
) -> str:
    """The plan as markdown for a pull-request comment: counts, notes, a table of the
    first ``DEFAULT_MD_ROWS`` changes with old -> new for each changed field ("... and N
    more" past that), or "No changes". Ends with a newline.

    ``file_problems`` (a file or folder not read, a sheet refused: ``Planned.file_problems``)
    each get a note first, so a comment never says "No changes" of sources it did not
    read without saying so."""
    options = ReportOptions(title=title)
    with tempfile.TemporaryDirectory() as tmp:
        writer = MarkdownWriter(Path(tmp) / "plan.md", options)
        for row in plan_rows(plan):
            writer.write(row)
        info = RunInfo(target=plan.target or "", mode=plan.options.mode.value, dry_run=True)
        refused = plan.safety.reason if plan.refused else None
        unread = tuple(
            f"{p.severity.value.capitalize()} in {p.where()}: {p.constant}: {p.message}"
            for p in file_problems
        )
        path = writer.close(info, Closing(unread + plan_notes(plan), refused))
        return path.read_text(encoding="utf-8")
