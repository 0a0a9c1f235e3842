"""The page's Check and Plan steps: one library call each, and what the page shows
of what comes back.

``check`` is ``linksync.pipeline.checking.check`` (the uploads read and validated as
``linksync.plan`` and ``linksync.apply`` read them: the same readers, the same ``--map``
mapping over the profile's ``columns:``, the same rules); ``CheckView`` shows its
column preview of each sheet and every problem with its cell and what to change.
``make_plan`` is ``linksync.plan`` itself; ``PlanView`` is what the page shows of it:
every change (old -> new per field), the counts, the quota and the safety verdict as
the command line words them. The plan stays in the server (``ShownPlan``) so Apply runs
exactly the plan that was shown (``linksync.apply(plan=...)``: a row changed in the
workspace since is refused with STALE_PLAN, never overwritten).

The uploads live under temporary paths; every text shown names a file by the name it
was uploaded with, and a command-line flag by the page's control that does the same
(``PageFiles.say``). An encrypted workbook is read with the password the request
carries, for that request only (``linksync.ui.unlock``).
"""

from __future__ import annotations

import secrets
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import linksync
from linksync.config import Settings
from linksync.errors import SourceError
from linksync.model import Action, Severity
from linksync.model.declared import password_mark, shown_password
from linksync.model.results import expiry_note
from linksync.pipeline.checking import CellProblem
from linksync.pipeline.checking import check as check_sources
from linksync.pipeline.planning import Planned
from linksync.pipeline.request import Reading
from linksync.report.annotate import SPREADSHEET_SUFFIXES
from linksync.report.cells import field_change_text, show_value
from linksync.report.plans import slugless_note
from linksync.sources.named import NamedSource
from linksync.sync.plan import Change
from linksync.ui.choices import Choices
from linksync.ui.fixes import fix_for, visible
from linksync.ui.unlock import locked_words
from linksync.ui.uploads import Upload
from linksync.ui.words import page_words

if TYPE_CHECKING:
    from linksync.sources.preview import SheetPreview

#: Changes listed on the page at most (the reports after apply hold every row).
MAX_ROWS = 500


@dataclass(frozen=True, slots=True)
class PageFiles:
    """The uploads, as the sources of a run (in the order received; ``of``: the
    encrypted workbooks last)."""

    uploads: tuple[Upload, ...]

    @classmethod
    def of(cls, uploads: list[Upload]) -> PageFiles:
        """The uploads in the order received, the encrypted workbooks after the others:
        they get no annotated copy, and the copies go with the spreadsheet sources in
        order (``--annotate``), so every step reads them in that order."""
        return cls(tuple(sorted(uploads, key=lambda u: u.encrypted)))

    @property
    def encrypted(self) -> tuple[Upload, ...]:
        """The encrypted workbooks (read with the password the page asks for)."""
        return tuple(u for u in self.uploads if u.encrypted)

    @property
    def paths(self) -> list[Path]:
        return [u.path for u in self.uploads]

    @property
    def sources(self) -> list[NamedSource]:
        """The uploads as a run's sources: read at their temporary paths, named by the
        names they were uploaded with in everything the run writes and says (reports,
        journal, annotated copies, messages)."""
        return [NamedSource(u.path, u.name) for u in self.uploads]

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(u.upload_id for u in self.uploads)

    @property
    def names(self) -> list[str]:
        return [u.name for u in self.uploads]

    @property
    def spreadsheets(self) -> list[str]:
        """The names of the uploads an annotated copy is made of, in order (not an
        encrypted workbook's: the copy would hold it decrypted)."""
        return [
            u.name
            for u in self.uploads
            if u.path.suffix.lower() in SPREADSHEET_SUFFIXES and not u.encrypted
        ]

    def source_error(self, error: SourceError, password: str | None) -> str:
        """A source that cannot be read, as the page says it: an encrypted upload that
        needs its password, or the one typed does not open (``locked_words``)."""
        return locked_words(self.uploads, error, password) or self.say(str(error))

    def shorten(self, text: str | None) -> str:
        """``text`` with every upload's temporary path replaced by its name."""
        out = text or ""
        for u in self.uploads:
            out = out.replace(str(u.path), u.name)
        return out

    def say(self, text: str | None) -> str:
        """``text`` as the page shows it: files by their names, flags by the page's
        controls (``linksync.ui.words``)."""
        return page_words(self.shorten(text))


@dataclass(frozen=True, slots=True)
class ProblemRow:
    """One line of the Check table."""

    severity: str
    constant: str
    source: str
    sheet: str | None
    row: int | None
    column: str | None
    value: str
    fix: str
    message: str


@dataclass(frozen=True)
class CheckView:
    """What the Check step shows: the sheets' columns, the counts, every problem; or
    ``error`` when a file cannot be read at all."""

    sheets: tuple[SheetPreview, ...] = ()
    problems: tuple[ProblemRow, ...] = ()
    counts: dict[str, int] = field(default_factory=dict)
    error: str | None = None
    #: The profile's UTM rules in force, one line each (``UtmRules.describe``).
    utm_rules: tuple[str, ...] = ()
    #: The notes of the checks made (the destination check: how many URLs, how long).
    notes: tuple[str, ...] = ()
    #: The names of the encrypted workbooks (the page asks for their password).
    encrypted: tuple[str, ...] = ()

    @property
    def constants(self) -> list[str]:
        return sorted({p.constant for p in self.problems})

    @property
    def sheet_names(self) -> list[str]:
        return sorted({p.sheet or p.source for p in self.problems})

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "sheets": [s.to_dict() for s in self.sheets]}


def _problem_row(found: CellProblem, files: PageFiles) -> ProblemRow:
    p = found.problem
    prov = p.provenance
    return ProblemRow(
        severity=p.severity.value,
        constant=p.constant,
        source=files.shorten(prov.source if prov else None),
        sheet=prov.sheet if prov else None,
        row=prov.row if prov else None,
        column=p.column_name,
        value=visible(found.value),
        fix=fix_for(p.constant),
        message=files.say(p.message),
    )


def check(
    files: PageFiles, choices: Choices, settings: Settings, password: str | None = None
) -> CheckView:
    """``linksync.pipeline.checking.check`` of the uploads with the page's choices (no
    request to the target; with the destination check ticked, one to each destination
    URL), encrypted workbooks opened with ``password``, as the page shows it."""
    encrypted = tuple(u.name for u in files.encrypted)
    try:
        checked = check_sources(
            files.sources,
            settings,
            with_password(choices.reading, password),
            default_domain=choices.sync.default_domain,
        )
    except SourceError as exc:
        return CheckView(error=files.source_error(exc, password), encrypted=encrypted)
    sheets = tuple(
        replace(s, source=files.shorten(s.source), note=s.note and files.say(s.note))
        for s in checked.sheets
    )
    problems = tuple(_problem_row(p, files) for p in checked.problems)
    rules = settings.profile.utm_rules
    in_force = tuple(rules.describe()) if rules is not None else ()
    notes = tuple(files.say(n) for n in checked.notes)
    return CheckView(
        sheets,
        problems,
        dict(checked.counts),
        utm_rules=in_force,
        notes=notes,
        encrypted=encrypted,
    )


def with_password(reading: Reading, password: str | None) -> Reading:
    """``reading`` with the password of encrypted workbooks, for one library call."""
    return replace(reading, workbook_password=password) if password else reading


# --- the plan ----------------------------------------------------------------------


@dataclass(frozen=True)
class ShownPlan:
    """A plan the page showed: what Apply runs, for the files and choices it was made
    from (never the password that read them: the apply's request brings it again)."""

    plan_id: str
    planned: Planned
    choices: Choices
    upload_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ChangeRow:
    """One line of the plan table."""

    action: str
    link: str
    where: str
    fields: tuple[str, ...]
    constant: str | None
    message: str
    fix: str


def field_lines(
    ch: Change, sending: tuple[Action, ...] = (Action.CREATE, Action.REPLACE)
) -> tuple[str, ...]:
    """Old -> new for each field an update changes; what a change of the ``sending``
    actions sends (a password, write-only, only as "set")."""
    if ch.fields:
        return tuple(visible(field_change_text(f.field, f.old, f.new)) for f in ch.fields)
    if ch.action in sending:
        return tuple(
            _payload_line(ch, key, value)
            for key, value in ch.payload.items()
            if value is not None and key not in ("domain", "slug")  # the short link says them
        )
    return ()


def _payload_line(ch: Change, key: str, value: object) -> str:
    """One field a create sends; the expiry with the zone it was read in."""
    if key == "password":  # never the value: (set), or (set from env NAME)
        source = ch.spec.declared.password_from if ch.spec is not None else None
        return f"{key}: {shown_password(password_mark(source))}"
    if key == "expiresAt":
        note = expiry_note(ch.spec)
        if note is not None:
            return note
    return visible(f"{key}: {show_value(value, 80)}")


def _change_row(ch: Change, files: PageFiles) -> ChangeRow:
    prov = ch.provenance
    err = ch.error
    notes = [p.message for p in ch.problems if p.severity is Severity.WARNING]
    if ch.reason:
        notes.append(ch.reason)
    message = files.say(err.message if err is not None else "; ".join(notes))
    return ChangeRow(
        action=ch.action.value,
        link=ch.label(),
        where=files.shorten(prov.where()) if prov is not None else "",
        fields=field_lines(ch),
        constant=err.constant if err is not None else ch.blocked_by,
        message=message,
        fix=fix_for(err.constant if err is not None else ch.blocked_by),
    )


@dataclass(frozen=True)
class PlanView:
    """What the Plan step shows of a ``ShownPlan``."""

    plan_id: str
    counts: dict[str, int]
    rows: tuple[ChangeRow, ...]
    more: int
    writes: int
    quota: str | None
    quota_excess: int
    refused: str | None  # the safety threshold crossed (apply refuses without force)
    forced: bool
    unmanaged: str
    slugs: str | None  # how rows without a slug get one (stable or random)
    requests: int
    file_problems: tuple[str, ...]
    command_line: str

    @property
    def nothing_to_do(self) -> bool:
        return self.writes == 0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "nothing_to_do": self.nothing_to_do}


def annotated_name(name: str) -> str:
    """'campaign.xlsx' -> 'campaign-annotated.xlsx' (the annotated copy's name)."""
    stem, dot, ext = name.rpartition(".")
    return f"{stem}-annotated.{ext}" if dot else f"{name}-annotated"


def make_plan(
    files: PageFiles, choices: Choices, settings: Settings, password: str | None = None
) -> ShownPlan:
    """``linksync.plan`` of the uploads with the page's choices (reads the workspace,
    writes nothing), encrypted workbooks opened with ``password``. What the profile says
    already is left to the profile (the same run), so the command line shown names only
    what the page changed."""
    choices = choices.beyond(settings.profile)
    reading = with_password(choices.reading, password)
    planned = linksync.plan(files.sources, settings, reading=reading, sync=choices.sync)
    return ShownPlan(secrets.token_hex(8), planned, choices, files.ids)


def plan_view(shown: ShownPlan, files: PageFiles) -> PlanView:
    plan = shown.planned.plan
    listed = [ch for ch in plan.listed if ch.action is not Action.UNCHANGED]
    quota = plan.quota
    return PlanView(
        plan_id=shown.plan_id,
        counts=plan.counts,
        rows=tuple(_change_row(ch, files) for ch in listed[:MAX_ROWS]),
        more=max(0, len(listed) - MAX_ROWS),
        writes=len(plan.writes),
        quota=quota.describe() if quota is not None else None,
        quota_excess=quota.excess if quota is not None else 0,
        refused=plan.safety.reason if plan.safety.refused else None,
        forced=plan.options.force,
        unmanaged=plan.unmanaged.describe(),
        slugs=slugless_note(plan),
        requests=plan.requests,
        file_problems=tuple(
            files.say(f"{p.severity.value}: {p.where()}: {p.constant}: {p.message}")
            for p in shown.planned.file_problems
        ),
        command_line=shown.choices.command_line(
            files.names,
            [annotated_name(n) for n in files.spreadsheets],
            password_file=bool(files.encrypted),
        ),
    )
