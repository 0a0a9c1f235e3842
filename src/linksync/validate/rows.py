"""The column checks of ``linksync.validate``, one frame at a time.

Each check works on a whole column: a cheap filter (``linksync.validate.filters``) passes
the values the scalar rule of ``linksync.rules`` would pass too, and only the rest go
through the rule, which decides and words the message. Besides the service's rules
(URL, slug, expiry, tags, description) the checks name what a spreadsheet holds for
"nothing" (``N/A``, ``-``, ``TBD``) and Excel error values exported as text
(``#N/A``), which would otherwise be sent as if they were values.

A row a reader could not read (an extra value beyond the header, an unclosed quote)
carries the reader's error and is not checked further; a field the reader already
flagged is not flagged twice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from linksync import rules
from linksync.model import Problem, Provenance, Severity
from linksync.rules.timestamps import WRITTEN_RE, format_ts, parse_iso
from linksync.sources.frame import SpecFrame, Stripped
from linksync.sources.options import EXCEL_ERRORS, PLACEHOLDER_VARIANTS, looks_like_local_date
from linksync.validate.filters import (
    describe_value,
    fast_slug_ok,
    fast_url_ok,
    has_invisible,
    per_distinct,
    slug_message,
    url_message,
)
from linksync.validate.suggest import suggest_domain, suggest_expiry, suggest_tag, use

_URL_FIELDS = ("url", "apple", "google")
_FIXABLE = ("url", "apple", "google", "slug", "domain")
_TEXT_FIELDS = ("url", "slug", "domain", "description", "password", "expires_at", "apple", "google")
#: Placeholders and Excel error texts: "nothing" where a value belongs.
_NOTHING = PLACEHOLDER_VARIANTS | EXCEL_ERRORS
_LONGEST_NOTHING = max(map(len, _NOTHING))
#: The rows of a column's values: their positions, or every row (``range``).
Rows = np.ndarray | range


def offsets(frames: Sequence[SpecFrame]) -> Iterator[tuple[SpecFrame, int]]:
    """Each frame with the position of its first row among all rows."""
    offset = 0
    for frame in frames:
        yield frame, offset
        offset += len(frame)


def _per_object(values: list[Any], test: Any) -> np.ndarray:
    """``test`` on each distinct object only: readers share one tuple between the rows
    whose tags cell is the same, so identity finds the repeats without hashing."""
    n = len(values)
    ids = np.fromiter(map(id, values), dtype=np.int64, count=n)
    _, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
    verdict = np.asarray(test([values[i] for i in first.tolist()]), dtype=bool)
    out: np.ndarray = verdict[inverse]
    return out


def _nothing_message(value: str) -> str:
    if value in EXCEL_ERRORS:
        return (
            f"the value is the Excel error {value} (exported from a formula that failed), "
            "not a value: fix the cell in the workbook"
        )
    return (
        f'the value is {value!r}, a placeholder for "nothing": empty the cell, or pass '
        f"--empty-value {value!r} (or the profile's empty_values:) to read it as empty"
    )


def _removed(found: Sequence[tuple[int, str]]) -> str:
    """The warning of a value whose invisible characters (position, character) were removed."""
    named = ", ".join(f"{rules.describe_char(ch)} at position {k + 1}" for k, ch in found)
    return f"removed invisible character(s): {named}"


class FrameChecker:
    """Runs every column check of one frame; collects (global index, field, Problem)."""

    def __init__(self, frame: SpecFrame, offset: int, now: datetime, fix: bool):
        self.frame = frame
        self.offset = offset
        self.now = now
        self.fix = fix
        self.found: list[tuple[int, str | None, Problem]] = []
        self.dead: set[int] = set()  # rows a reader could not read: no further checks
        self.skip: dict[str, set[int]] = {}  # field -> rows already flagged for it
        self._cache: dict[str, tuple[Rows, list[Any]]] = {}
        #: Per field, the length of its longest value as first gathered (a bound for
        #: the values left once rows are flagged).
        self._longest: dict[str, int] = {}

    def add(self, i: int, fname: str, constant: str, message: str, warn: bool = False) -> None:
        prov: Provenance = self.frame.provenance(i)
        severity = Severity.WARNING if warn else Severity.ERROR
        self.found.append(
            (self.offset + i, fname, Problem(constant, message, prov, fname, severity))
        )
        if not warn:
            self.skip.setdefault(fname, set()).add(i)

    def run(self) -> None:
        for i, problem in self.frame.row_problems:
            self.found.append((self.offset + i, problem.field, problem))
            if problem.constant == "HIDDEN_ROW":
                self.dead.add(i)  # a hidden row was not read: nothing to check
            elif problem.severity is Severity.ERROR:
                if problem.field is None:
                    self.dead.add(i)
                else:
                    self.skip.setdefault(problem.field, set()).add(i)
        if self.fix:
            for fname in _FIXABLE:
                self._fix(fname)
        for cell in self.frame.stripped:
            self._stripped(cell)
        # Field by field, so one field's values are held at a time. A placeholder
        # never passes the URL filter, so the URL fields look for them among the
        # values the filter did not pass.
        self._missing_url()
        checks: dict[str, Callable[[], None]] = {
            "url": lambda: self._urls("url"),
            "apple": lambda: self._urls("apple"),
            "google": lambda: self._urls("google"),
            "slug": self._slugs,
            "expires_at": self._expiry,
            "domain": self._domains,
            "tags": self._tags,
            "description": self._descriptions,
            "password": lambda: None,
        }
        for fname, check in checks.items():
            if fname in _TEXT_FIELDS and fname not in _URL_FIELDS:
                self._nothing(fname)
            check()
            self._cache.pop(fname, None)

    def _present(self, fname: str) -> tuple[Rows, list[Any]]:
        """Rows where the field has a value (not flagged yet) and their values; the
        column is gathered once per field and filtered when rows were flagged since.
        Every row of a full column (the usual one): a ``range``, no array of positions."""
        cached = self._cache.get(fname)
        if cached is None:
            col = self.frame.values[fname]
            mask = self.frame.is_set(fname)
            if mask.all():
                cached = self._cache[fname] = (range(len(col)), col.tolist())
            else:
                where = np.flatnonzero(mask)
                cached = self._cache[fname] = (where, col[where].tolist())
        idx, vals = cached
        gone = self.dead | self.skip.get(fname, set())
        if gone and len(idx):
            at = np.arange(len(idx)) if isinstance(idx, range) else idx
            keep = ~np.isin(at, np.fromiter(gone, dtype=np.int64, count=len(gone)))
            if not keep.all():
                return at[keep], [v for v, k in zip(vals, keep.tolist(), strict=True) if k]
        return idx, vals

    def _nothing(self, fname: str) -> None:
        """Placeholders (N/A, -, TBD) and Excel error values (#N/A) where a value belongs."""
        idx, vals = self._present(fname)
        if not vals:
            return
        try:  # every value longer than any placeholder (descriptions): nothing to look up
            if fname != "slug":  # (slugs are short, and hashed for the reserved words anyway)
                lengths = np.fromiter(map(len, vals), dtype=np.int64, count=len(vals))
                self._longest[fname] = int(lengths.max())
                if lengths.min() > _LONGEST_NOTHING:
                    return
        except TypeError:  # values that are not text (specs built in Python)
            pass
        try:
            if _NOTHING.isdisjoint(vals):  # one set lookup per value: the usual case
                return
        except TypeError:  # a value that cannot be hashed (specs built in Python)
            pass
        hits = [j for j, v in enumerate(vals) if isinstance(v, str) and v in _NOTHING]
        for j in hits:
            self.add(int(idx[j]), fname, "INVALID_FIELD", _nothing_message(vals[j]))

    def _tags(self) -> None:
        """Placeholders among the tags, and what the service refuses (one pass over the
        distinct tag lists)."""

        def fine(batch: Sequence[Any]) -> list[bool]:
            return [not set(t) & _NOTHING and rules.check_tags(t) is None for t in batch]

        idx, vals = self._present("tags")
        if not vals:
            return
        ok = _per_object(vals, fine)
        for j in np.flatnonzero(~ok).tolist():
            tags = vals[j]
            word = next((t for t in tags if t in _NOTHING), None)
            if word is not None:
                self.add(int(idx[j]), "tags", "INVALID_FIELD", _nothing_message(word))
                continue
            bad = next((t for t in tags if rules.check_tag(t) is not None), None)
            if bad is None:
                message = f"{len(tags)} tags: the service takes at most {rules.MAX_TAGS}"
            elif rules.find_invisible(bad):
                message = f"tag {describe_value(bad)} contains {rules.describe_invisible(bad)}"
            else:
                message = f"tag {describe_value(bad)}: {rules.check_tag(bad)}"
            if bad is not None:
                message += use(suggest_tag(bad))
            self.add(int(idx[j]), "tags", "INVALID_REQUEST", message)

    def _descriptions(self) -> None:
        idx, vals = self._present("description")
        if self._longest.get("description", rules.MAX_DESCRIPTION_CHARS + 1) <= (
            rules.MAX_DESCRIPTION_CHARS
        ):
            return  # (measured on the values before any row was flagged: no fewer)
        try:
            longest = max(map(len, vals), default=0)
        except TypeError:  # specs built in Python may hold other types
            longest = max((len(str(v)) for v in vals), default=0)
        if longest <= rules.MAX_DESCRIPTION_CHARS:
            return
        for j, v in enumerate(vals):
            if len(str(v)) > rules.MAX_DESCRIPTION_CHARS:
                self.add(
                    int(idx[j]),
                    "description",
                    "INVALID_REQUEST",
                    f"the description has {len(str(v)):,} characters; the service takes at "
                    f"most {rules.MAX_DESCRIPTION_CHARS:,}",
                )

    def _fix(self, fname: str) -> None:
        idx, vals = self._present(fname)
        if not len(idx):
            return
        suspect = has_invisible(vals)
        if not suspect.any():
            return
        col = self.frame.values[fname].copy()
        for j in np.flatnonzero(suspect).tolist():
            text = vals[j]
            if not isinstance(text, str):
                continue
            found = rules.find_invisible(text)
            if not found:
                continue
            col[idx[j]] = rules.strip_invisible(text) or None
            constant = (
                "INVALID_SLUG"
                if fname == "slug"
                else ("INVALID_FIELD" if fname == "domain" else "INVALID_URL")
            )
            self.add(int(idx[j]), fname, constant, _removed(found), True)
        self.frame = self.frame.with_values(fname, col)
        self._cache.pop(fname, None)

    def _stripped(self, cell: Stripped) -> None:
        """A ``utm_*`` or query cell whose invisible characters the reader took out
        before merging it into the URL: an error as in the URL column, or with
        --fix-invisible a warning saying what was removed."""
        value = cell.value
        if self.fix:
            message, severity = _removed(rules.find_invisible(value)), Severity.WARNING
        else:
            message = f"{describe_value(value)} contains {rules.describe_invisible(value)}" + use(
                rules.strip_invisible(value).strip()
            )
            severity = Severity.ERROR
        prov = self.frame.provenance(cell.index)
        problem = Problem("INVALID_URL", message, prov, cell.field, severity, cell.column)
        self.found.append((self.offset + cell.index, cell.field, problem))

    def _missing_url(self) -> None:
        gone = self.dead | self.skip.get("url", set())
        for i in np.flatnonzero(~self.frame.is_set("url")).tolist():
            if i not in gone:
                self.add(
                    i, "url", "MISSING_URL", "no destination URL (required to create the link)"
                )

    def _urls(self, fname: str) -> None:
        idx, vals = self._present(fname)
        if not vals:
            return
        ok = fast_url_ok(vals)
        for j in np.flatnonzero(~ok).tolist():
            v = vals[j]
            if isinstance(v, str) and v in _NOTHING:
                self.add(int(idx[j]), fname, "INVALID_FIELD", _nothing_message(v))
            elif not isinstance(v, str):
                self.add(
                    int(idx[j]), fname, "INVALID_FIELD", f"expected text, got {type(v).__name__}"
                )
            elif rules.check_url(v) is not None:
                self.add(int(idx[j]), fname, "INVALID_URL", url_message(v))

    def _slugs(self) -> None:
        idx, vals = self._present("slug")
        if not vals:
            return
        ok = fast_slug_ok(vals)
        for j in np.flatnonzero(~ok).tolist():
            v = vals[j]
            if not isinstance(v, str):
                self.add(
                    int(idx[j]), "slug", "INVALID_FIELD", f"expected text, got {type(v).__name__}"
                )
                continue
            constant = rules.check_slug(v)
            if constant is not None:
                self.add(int(idx[j]), "slug", constant, slug_message(v, constant))

    def _expiry(self) -> None:
        now_text = format_ts(self.now)

        def after_now(batch: Sequence[Any]) -> list[bool]:
            return [
                isinstance(v, str) and WRITTEN_RE.fullmatch(v) is not None and v > now_text
                for v in batch
            ]

        idx, vals = self._present("expires_at")
        if not vals:
            return
        future = per_distinct(vals, after_now)
        for j in np.flatnonzero(~future).tolist():
            v = vals[j]
            text = v if isinstance(v, str) else str(v)
            result = rules.parse_expiry(text, self.now)
            if isinstance(result, datetime):
                continue  # a non-normalised but valid form (specs built in Python)
            dt = parse_iso(text)
            if dt is not None:
                message = f"{describe_value(text)} is in the past (now {now_text})"
            elif looks_like_local_date(text):
                near = suggest_expiry(text)
                written = f"`{near}`" if near else "2030-12-31"
                message = (
                    f"{describe_value(text)} is a day-first or month-first date: pass "
                    "--date-format dmy (or mdy, or the profile's date_format:), or write "
                    f"it as {written}"
                )
            else:
                message = (
                    f"{describe_value(text)} is not an ISO 8601 date-time "
                    "(write e.g. 2030-12-31T23:59:59Z, 2030-12-31 or an Excel date)"
                )
            self.add(int(idx[j]), "expires_at", "INVALID_EXPIRY", message)

    def _domains(self) -> None:
        idx, vals = self._present("domain")
        if not vals:
            return
        verdict = {d: isinstance(d, str) and rules.check_hostname(d) for d in set(map(str, vals))}
        if all(verdict.values()):
            return
        for j, v in enumerate(vals):
            if not verdict.get(str(v), False):
                text = str(v)
                why = (
                    f"contains {rules.describe_invisible(text)}"
                    if rules.find_invisible(text)
                    else "is not a host name such as go.example.com"
                )
                self.add(
                    int(idx[j]),
                    "domain",
                    "INVALID_FIELD",
                    f"{describe_value(text)} {why}" + use(suggest_domain(text)),
                )
