"""Local validation: the service's rules applied before any request.

``validate(batch)`` checks every desired link with the rules of ``linksync.rules``
(shared with the sandbox) and returns every problem at once, each with its constant,
provenance and field, plus the set of invalid rows:

- INVALID_URL: url, apple, google (scheme, host, port, whitespace, invisible Unicode
  named as ``U+200B ZERO WIDTH SPACE at position 24``); MISSING_URL when a row has none.
- INVALID_SLUG / RESERVED_SLUG; INVALID_EXPIRY (malformed, or not after ``now``).
- DUPLICATE_IN_SOURCE: the same domain and slug again (case-insensitive; no domain
  means the default domain), naming the first row; the first declaration stays valid.
- INVALID_REQUEST: tags and descriptions the service would refuse (``linksync.rules``:
  tag length, count, line breaks and invisible characters; description length).
- INVALID_FIELD: an invalid domain name, values of the wrong shape, cells that are not
  what they show (found by readers), placeholders such as ``N/A`` or ``TBD`` and Excel
  error values such as ``#N/A`` where a value belongs.

Reader warnings (a number format applied, a hyperlink target read, an unknown column)
stay warnings unless ``strict``, which makes every warning an error.

The team's UTM rules (``utm_rules``: the profile's, a YAML file's ``defaults:
utm_rules:`` over them) are checked on each final URL (``linksync.validate.utm``:
UTM_MISSING, UTM_NOT_ALLOWED, UTM_CASE, UTM_SPACES, UTM_TOO_LONG); with
``fix_utm_case`` case and spaces are fixed instead, each fix a warning on its row.

With ``fix_invisible`` the invisible characters are stripped and each fix is reported
as a warning; the fixed values are in ``Validation.frames`` / ``specs``. The cells the
readers merge into the URL (``utm_*``, a column read as the query) had theirs taken out
before the merge (``SpecFrame.stripped``): an error INVALID_URL on the cell, or the
same warning with ``fix_invisible``.

The checks run over columns, not rows. Each column first goes through a cheap filter
(``linksync.validate.filters``, once per distinct value where values repeat) that
passes only values the scalar rule would pass too; the values it does not pass,
usually a handful, go through the scalar rule of ``linksync.rules``,
which decides and words the message. So results are those of the scalar rules by construction.

Layer: beside ``sync``, above ``sources``. It may import sources, api, sandbox and the
lowest layer (errors, model, rules, safe), never sync, config or anything above.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import cached_property
from itertools import chain
from typing import Any

from linksync.model import LINK_FIELDS, LinkSpec, Problem, Severity
from linksync.model.utm_rules import UtmRules
from linksync.sources import SourceBatch
from linksync.sources.frame import SpecFrame, column_lines
from linksync.validate.duplicates import duplicates
from linksync.validate.rows import FrameChecker, offsets
from linksync.validate.utm import UtmChecker

_FIELD_ORDER = {f: i for i, f in enumerate(LINK_FIELDS)}
STRICT_NOTE = " (an error under --strict)"
#: The counts of a sheet or file in ``Validation.summary``, before its first row.
_ZERO = dict.fromkeys(("rows", "invalid", "errors", "warnings"), 0)


@dataclass(frozen=True)
class Validation:
    """Result of ``validate``.

    ``problems``: file-level problems of the readers first, then every row problem in
    source order (by row, then field). ``invalid``: positions (in ``specs`` order) of
    rows with at least one error. ``frames``: the links after ``--fix-invisible``.
    ``file_problems``: the problems that belong to no row (a file, a sheet, a YAML
    key outside ``links:``); an error among them means the sources cannot be applied.
    """

    frames: tuple[SpecFrame, ...]
    problems: tuple[Problem, ...]
    invalid: frozenset[int]
    file_problems: tuple[Problem, ...] = ()
    #: Lines for the run's output: the column mapping of each sheet read
    #: (``SpecFrame.column_report``), and checks made (a destination check's count and time).
    notes: tuple[str, ...] = ()

    @property
    def total(self) -> int:
        return sum(len(f) for f in self.frames)

    @property
    def errors(self) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if p.severity is Severity.ERROR)

    @property
    def warnings(self) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if p.severity is Severity.WARNING)

    @property
    def ok(self) -> bool:
        """No error at all (warnings allowed)."""
        return not self.errors

    @cached_property
    def specs(self) -> tuple[LinkSpec, ...]:
        return tuple(self.iter_specs())

    def iter_specs(self) -> Iterator[LinkSpec]:
        """Every row's ``LinkSpec``, frame after frame (made a block of rows at a time)."""
        return chain.from_iterable(b for frame in self.frames for b in frame.spec_blocks())

    def summary(self) -> list[dict[str, Any]]:
        """Per sheet/file: rows, invalid rows, errors, warnings (for the table)."""
        counts: dict[tuple[str, str | None], dict[str, Any]] = {}  # in the order first met

        def entry_of(source: str, sheet: str | None) -> dict[str, Any]:
            return counts.setdefault((source, sheet), {"source": source, "sheet": sheet, **_ZERO})

        for frame, offset in offsets(self.frames):
            entry = entry_of(frame.source, frame.sheet)
            entry["rows"] += len(frame)
            entry["invalid"] += sum(1 for i in self.invalid if offset <= i < offset + len(frame))
        for p in self.problems:
            src = p.provenance.source if p.provenance else ""
            sheet = p.provenance.sheet if p.provenance else None
            entry = entry_of(src, sheet)
            entry["errors" if p.severity is Severity.ERROR else "warnings"] += 1
        return list(counts.values())


def validate(
    source: SourceBatch | Sequence[LinkSpec],
    *,
    fix_invisible: bool = False,
    default_domain: str | None = None,
    now: datetime | None = None,
    strict: bool = False,
    utm_rules: UtmRules | None = None,
    fix_utm_case: bool = False,
) -> Validation:
    """Check every desired link (see module docstring).

    ``source``: a ``SourceBatch`` (its reader problems are included, and rows with a
    reader error are invalid) or plain ``LinkSpec`` objects. ``default_domain``: the
    domain of rows that name none, for duplicate detection. ``now``: the instant
    expiries must come after (default: the current time). ``strict``: every warning
    (of the readers and of validation) is an error, so its row is invalid and a
    file-level one stops apply (``--strict``, for CI). ``utm_rules``: the team's UTM
    rules (the profile's ``utm_rules:``; a YAML file's own fill in over them).
    ``fix_utm_case``: lower the case and replace spaces in UTM values instead of
    refusing them, each fix a warning (``--fix-utm-case``).
    """
    if isinstance(source, SourceBatch):
        frames = list(source.frames)
        attached = {id(p) for f in frames for _, p in f.row_problems}
        file_problems = [p for p in source.problems if id(p) not in attached]
    else:
        frames = [SpecFrame.from_specs(list(source))] if source else []
        file_problems = []
    when = (now or datetime.now(UTC)).astimezone(UTC)
    found: list[tuple[int, int, int, Problem]] = []
    fixed: list[SpecFrame] = []
    seq = 0
    for frame, offset in offsets(frames):
        checker = FrameChecker(frame, offset, when, fix_invisible)
        checker.run()
        for idx, fname, problem in checker.found:
            found.append((idx, _FIELD_ORDER.get(fname or "", -1), seq, problem))
            seq += 1
        in_force = frame.utm_rules.over(utm_rules) if frame.utm_rules else utm_rules
        if in_force is not None and not in_force.empty:
            skip = checker.dead | checker.skip.get("url", set())
            utm = UtmChecker(checker.frame, in_force, fix_utm_case, skip)
            checker.frame = utm.run()
            for i, problem in utm.found:
                found.append((offset + i, _FIELD_ORDER["url"], seq, problem))
                seq += 1
        fixed.append(checker.frame)
    for idx, fname, problem in duplicates(fixed, default_domain):
        found.append((idx, _FIELD_ORDER.get(fname, -1), seq, problem))
        seq += 1
    found.sort(key=lambda t: (t[0], t[1], t[2]))
    if strict:
        file_problems = [_strict(p) for p in file_problems]
        found = [(i, o, q, _strict(p)) for i, o, q, p in found]
    invalid = frozenset(idx for idx, _, _, p in found if p.severity is Severity.ERROR)
    problems = (*file_problems, *(p for *_, p in found))
    # The column mapping each sheet was read with, printed by validate and plan.
    notes = column_lines(fixed)
    return Validation(tuple(fixed), tuple(problems), invalid, tuple(file_problems), notes)


def _strict(p: Problem) -> Problem:
    if p.severity is Severity.ERROR:
        return p
    return replace(p, severity=Severity.ERROR, message=p.message + STRICT_NOTE)
