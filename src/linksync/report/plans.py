"""Plans for people: report rows of a plan, a plain-text table for the terminal, and
markdown for a pull-request comment."""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Iterator, Sequence
from functools import partial
from operator import attrgetter
from pathlib import Path
from typing import Any

from linksync.model import Action, Problem, RowResult, RunInfo, Status, in_column
from linksync.model.declared import password_mark, shown_password
from linksync.model.results import expiry_note
from linksync.report.base import Closing, ReportOptions
from linksync.report.cells import field_change_text, show_value
from linksync.report.summary import Counts, Tally
from linksync.sync.plan import Change, Plan
from linksync.sync.slugs import Slugless

MAX_SHOWN = 200
#: Characters of a destination URL, and of another value, in the terminal plan (the
#: JSON plan has every value whole).
URL_WIDTH = 100
VALUE_WIDTH = 60
_INDENT = " " * 12
#: Fields of a create's body shown on the line under it (url: on the first line).
_SENT = ("description", "tags", "apple", "google")


def sent_fields(ch: Change) -> tuple[tuple[str, Any, Any], ...]:
    """(field, None, value) of what a create sends: its URL, then the other fields of
    its body (the password as ``***``, or where it is read from: ``set from env NAME``;
    the expiry is in the row's message)."""
    body = ch.payload
    out: list[tuple[str, Any, Any]] = [("url", None, body.get("url"))]
    out += [(name, None, body[name]) for name in _SENT if body.get(name)]
    if body.get("password") is not None:
        out.append(("password", None, _mark(ch)))
    return tuple(out)


#: A plan row's status by its change's action (``plan_row``): else planned.
_STATUS = {Action.INVALID: Status.INVALID, Action.SKIP: Status.SKIPPED}


def plan_row(ch: Change) -> RowResult:
    """A plan change as a report row (status ``planned``, or invalid/skipped); a
    create's ``field_changes`` are what it sends (``sent_fields``)."""
    err = ch.error
    return RowResult.from_change(
        ch,
        _STATUS.get(ch.action, Status.PLANNED),
        problem=err,
        message=None if err else ch.reason,
        field_changes=sent_fields(ch)
        if ch.action is Action.CREATE
        else tuple((f.field, f.old, f.new) for f in ch.fields),
    )


def plan_rows(plan: Plan) -> Iterator[RowResult]:
    """The report row of every change, built one at a time as an output lists them
    (a saved plan's JSON, markdown, a report file). What only counts rows reads
    ``plan_counts``; what only lists the failed ones, ``failed_rows``."""
    return (plan_row(ch) for ch in plan.changes)


def plan_counts(plan: Plan) -> Counts:
    """``count_results(plan_rows(plan))`` without a report row per change: the changes
    are counted, and a row is built only as the example of each error constant."""
    tally = Tally()
    plain = Counter(map(attrgetter("action"), plan.listed))  # one pass, in C
    plain[Action.UNCHANGED] += plan.quiet  # rows with no problem: counted, not walked
    for ch in plan.listed:
        if not ch.problems:
            continue  # counted above
        plain[ch.action] -= 1
        err = ch.error
        constant = err.constant if err is not None else None
        status = _STATUS.get(ch.action, Status.PLANNED)
        tally.count(ch.action, status, constant, partial(plan_row, ch) if constant else None)
    for action, n in plain.items():
        tally.count(action, _STATUS.get(action, Status.PLANNED), times=n)
    return tally.counts()


def failed_rows(plan: Plan) -> Iterator[RowResult]:
    """The report rows of the plan that failed (its invalid rows), in plan order:
    those of ``plan_rows`` whose ``failed`` is true, with no row built for the others."""
    return (plan_row(ch) for ch in plan.invalid)


def slugless_note(plan: Plan) -> str | None:
    """How the plan's creates without a slug get one (None when it has none)."""
    if not plan.counts[Action.CREATE.value]:
        return None
    n = sum(
        1
        for ch in plan.listed
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


def _sent(ch: Change) -> str | None:
    """'with tags: [a, b]; password: (set)': what a create sends beyond its URL and
    expiry (each on a line of its own)."""
    body = ch.payload
    parts = [f"{name}: {show_value(body[name], VALUE_WIDTH)}" for name in _SENT if body.get(name)]
    if body.get("password") is not None:
        parts.append(f"password: {shown_password(_mark(ch))}")
    return "with " + "; ".join(parts) if parts else None


def _mark(ch: Change) -> str:
    """What stands for a row's password: ``***``, or ``set from env NAME``."""
    return password_mark(ch.spec.declared.password_from if ch.spec is not None else None)


def _destination(ch: Change) -> str:
    """' -> https://example.com/autumn?utm_source=news' for a create, replace or
    retire (the URL sent), ' (was https://...)' for a delete."""
    if ch.action in (Action.CREATE, Action.REPLACE, Action.RETIRE) and ch.payload.get("url"):
        return f" -> {show_value(ch.payload['url'], URL_WIDTH)}"
    if ch.action is Action.DELETE and ch.remote is not None:
        return f" (was {show_value(ch.remote.url, URL_WIDTH)})"
    return ""


def describe_change(ch: Change) -> str:
    """The lines of one change in the terminal plan: action, link, the URL a create
    sends, where the row is; then old -> new of each changed field, what else a create
    sends, its expiry, the row's notes, problems and reason."""
    where = ch.provenance.where() if ch.provenance else "(remote)"
    label = f"{ch.label()} (stable slug)" if _stable(ch) else ch.label()
    head = f"{ch.action.value:<9} {label}{_destination(ch)}  [{where}]"
    lines = [head]
    for f in ch.fields:
        lines.append(_INDENT + field_change_text(f.field, f.old, f.new, VALUE_WIDTH))
    sent = _sent(ch) if ch.action is Action.CREATE else None
    if sent is not None:
        lines.append(_INDENT + sent)
    note = expiry_note(ch.spec) if ch.action in (Action.CREATE, Action.REPLACE) else None
    if note is not None:
        lines.append(_INDENT + note)
    for text in ch.notes:
        lines.append(f"{_INDENT}note: {text}")
    for p in ch.problems:
        message = in_column(p.message, p.field, ch.provenance, p.column)
        lines.append(f"{_INDENT}{p.severity.value} {p.constant}: {message}")
    if ch.reason:
        lines.append(_INDENT + ch.reason)
    return "\n".join(lines)


def shown_changes(plan: Plan) -> list[Change]:
    """The changes a plan for people lists: every change but the unchanged rows that
    have nothing to say (no note, no warning)."""
    return [
        ch for ch in plan.listed if ch.action is not Action.UNCHANGED or ch.notes or ch.problems
    ]


def _rows(n: int, what: str) -> str:
    return f"{n} {'row' if n == 1 else 'rows'} {what}"


def left_to_do(plan: Plan) -> tuple[str, ...]:
    """What a plan leaves undone: '4 rows are invalid', '2 skipped', '1 blocked
    (STALE_PLAN)', '1 password not sent (--reset-passwords sends it)'."""
    counts = plan.counts
    out: list[str] = []
    invalid, skipped = counts.get(Action.INVALID.value, 0), counts.get(Action.SKIP.value, 0)
    if invalid:
        out.append(_rows(invalid, "is invalid" if invalid == 1 else "are invalid"))
    if skipped:
        out.append(f"{skipped} skipped")
    blocked: Counter[str] = Counter()
    unsent = 0
    for ch in plan.listed:  # the quiet rows are neither blocked nor warned
        if ch.blocked_by is not None:
            blocked[ch.blocked_by] += 1
        if ch.problems and any(p.constant == "PASSWORD_NOT_SENT" for p in ch.problems):
            unsent += 1
    if blocked:
        n = sum(blocked.values())
        out.append(f"{n} blocked ({', '.join(sorted(blocked))})")
    if unsent:
        noun = "password" if unsent == 1 else "passwords"
        out.append(f"{unsent} {noun} not sent (--reset-passwords sends them)")
    return tuple(out)


def plan_ending(plan: Plan) -> str | None:
    """The plan's last line when it sends nothing: 'No changes: the workspace matches
    the sources.' only when nothing is invalid, skipped, blocked or unsent, else
    'Nothing to send: 4 rows are invalid; 2 skipped.'; None when it has writes."""
    if plan.has_changes:
        return None
    left = left_to_do(plan)
    if not left:
        return "No changes: the workspace matches the sources."
    return f"Nothing to send: {'; '.join(left)}."


def _facts(plan: Plan, any_quota: bool) -> Iterator[tuple[str, str]]:
    """(heading, text) of what a plan says beyond its rows, for the terminal and for
    ``plan_notes``: the partial read, the quota (``any_quota``: also when not exceeded),
    unmanaged and ignored links, the plan's problems, how slugless rows get a slug."""
    if plan.partial is not None:
        yield "", plan.partial.describe()
    if plan.quota is not None and (any_quota or plan.quota.excess):
        yield "quota", plan.quota.describe()
    yield "unmanaged", plan.unmanaged.describe()
    if plan.ignored.count:
        yield "ignored", plan.ignored.describe()
    yield from ((p.severity.value, f"{p.constant}: {p.message}") for p in plan.problems)
    slugless = slugless_note(plan)
    if slugless is not None:
        yield "slugs", slugless


def render_plan_text(plan: Plan) -> str:
    """The plan as text: fetch cost, changes (unchanged rows counted), quota, verdict."""
    out: list[str] = []
    counts = plan.counts
    said = ", ".join(f"{n} {a}" for a, n in counts.items() if n)
    out.append(f"Plan: {said}" if said else "Plan: no rows")
    for f in plan.fetches:
        total = f" of {f.total}" if f.total is not None else ""
        asked = "1 request" if f.requests == 1 else f"{f.requests} requests"
        held = "1 link" if f.links == 1 else f"{f.links} links"
        out.append(f"  fetched {f.domain}: {f.strategy}, {asked}, {held}{total}")
    out.append(f"  requests to read the workspace: {plan.requests}")
    out.extend(f"  {head}{': ' if head else ''}{text}" for head, text in _facts(plan, True))
    shown = shown_changes(plan)
    for ch in shown[:MAX_SHOWN]:
        out.append(describe_change(ch))
    if len(shown) > MAX_SHOWN:
        out.append(f"... and {len(shown) - MAX_SHOWN} more changes (see --format json)")
    if plan.safety.refused:
        verdict = "REFUSED" if not plan.options.force else "over the limit, forced"
        out.append(f"Safety: {verdict}: {plan.safety.reason}")
        if not plan.options.force:
            out.append("  apply would refuse this plan; pass --force to apply it anyway")
    ending = plan_ending(plan)
    if ending is not None:
        out.append(ending)
    return "\n".join(out)


def plan_notes(plan: Plan) -> tuple[str, ...]:
    """What a reader of the plan should know beyond its rows: quota, unmanaged links."""
    return tuple(
        f"{head.capitalize()}{': ' if head else ''}{text}." for head, text in _facts(plan, False)
    )


def render_plan_markdown(
    plan: Plan, *, title: str | None = None, file_problems: Sequence[Problem] = ()
) -> str:
    """The plan as markdown for a pull-request comment: counts, notes, a table of the
    first ``DEFAULT_MD_ROWS`` changes with old -> new for each changed field ("... and N
    more" past that), or "No changes". Ends with a newline.

    ``file_problems`` (a file or folder not read, a sheet refused: ``Planned.file_problems``)
    each get a note first, so a comment never says "No changes" of sources it did not
    read without saying so."""
    from linksync.report.markdown import MarkdownWriter  # here: a run's plan needs none

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
