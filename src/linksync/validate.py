"""Local validation: the service's rules applied before any request.

``validate(batch)`` checks every desired link with the rules of ``linksync.rules``
(shared with the sandbox) and returns every problem at once, each with its constant,
provenance and field, plus the set of invalid rows:

- INVALID_URL: url, apple, google (scheme, host, port, whitespace, invisible Unicode
  named as ``U+200B ZERO WIDTH SPACE at position 24``); MISSING_URL when a row has none.
- INVALID_SLUG / RESERVED_SLUG; INVALID_EXPIRY (malformed, or not after ``now``).
- DUPLICATE_IN_SOURCE: the same domain and slug again (case-insensitive; no domain
  means the default domain), naming the first row; the first declaration stays valid.
- INVALID_FIELD: an invalid domain name, values of the wrong shape (found by readers).

With ``fix_invisible`` the invisible characters are stripped and each fix is reported
as a warning; the fixed values are in ``Validation.frames`` / ``specs``.

The checks run over columns, not rows. Each column first goes through a cheap filter
(``linksync.sources.checks``: whole-column character tests, one prefix regex over the
joined column) that passes only values the scalar rule would pass too; the values it
does not pass, usually a handful, go through the scalar rule of ``linksync.rules``,
which decides and words the message. So results are those of the scalar rules by construction.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from linksync import rules
from linksync.model import LINK_FIELDS, LinkSpec, Problem, Provenance, Severity
from linksync.sources import SourceBatch
from linksync.sources.checks import (
    EXPIRY_FIELDS_RE,
    describe_value,
    fast_slug_ok,
    fast_url_ok,
    has_invisible,
    per_distinct,
    slug_message,
    url_message,
)
from linksync.sources.frame import SpecFrame
from linksync.sources.normalize import map_distinct

_FIELD_ORDER = {f: i for i, f in enumerate(LINK_FIELDS)}
_URL_FIELDS = ("url", "apple", "google")
_FIXABLE = ("url", "apple", "google", "slug", "domain")


@dataclass(frozen=True)
class Validation:
    """Result of ``validate``.

    ``problems``: file-level problems of the readers first, then every row problem in
    source order (by row, then field). ``invalid``: positions (in ``specs`` order) of
    rows with at least one error. ``frames``: the links after ``--fix-invisible``.
    """

    frames: tuple[SpecFrame, ...]
    problems: tuple[Problem, ...]
    invalid: frozenset[int]

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
        for frame in self.frames:
            yield from frame.iter_specs()

    def iter_valid(self) -> Iterator[LinkSpec]:
        """The links without errors, in source order."""
        for i, spec in enumerate(self.iter_specs()):
            if i not in self.invalid:
                yield spec

    def is_invalid(self, index: int) -> bool:
        return index in self.invalid

    @cached_property
    def invalid_rows(self) -> frozenset[tuple[str, str | None, int | None]]:
        """(source, sheet, row) of every invalid row."""
        out: set[tuple[str, str | None, int | None]] = set()
        for frame, offset in _offsets(self.frames):
            for i in sorted(self.invalid):
                if offset <= i < offset + len(frame):
                    p = frame.provenance(i - offset)
                    out.add((p.source, p.sheet, p.row))
        return frozenset(out)

    def summary(self) -> list[dict[str, Any]]:
        """Per sheet/file: rows, invalid rows, errors, warnings (for the table)."""
        out: list[dict[str, Any]] = []
        counts: dict[tuple[str, str | None], dict[str, Any]] = {}
        for frame, offset in _offsets(self.frames):
            key = (frame.source, frame.sheet)
            entry = counts.get(key)
            if entry is None:
                entry = counts[key] = {
                    "source": frame.source,
                    "sheet": frame.sheet,
                    "rows": 0,
                    "invalid": 0,
                    "errors": 0,
                    "warnings": 0,
                }
                out.append(entry)
            entry["rows"] += len(frame)
            entry["invalid"] += sum(1 for i in self.invalid if offset <= i < offset + len(frame))
        for p in self.problems:
            src = p.provenance.source if p.provenance else ""
            sheet = p.provenance.sheet if p.provenance else None
            entry = counts.get((src, sheet))
            if entry is None:
                entry = counts[(src, sheet)] = {
                    "source": src,
                    "sheet": sheet,
                    "rows": 0,
                    "invalid": 0,
                    "errors": 0,
                    "warnings": 0,
                }
                out.append(entry)
            entry["errors" if p.severity is Severity.ERROR else "warnings"] += 1
        return out


def _offsets(frames: Sequence[SpecFrame]) -> Iterator[tuple[SpecFrame, int]]:
    offset = 0
    for frame in frames:
        yield frame, offset
        offset += len(frame)


def validate(
    source: SourceBatch | Sequence[LinkSpec],
    *,
    fix_invisible: bool = False,
    default_domain: str | None = None,
    now: datetime | None = None,
) -> Validation:
    """Check every desired link (see module docstring).

    ``source``: a ``SourceBatch`` (its reader problems are included, and rows with a
    reader error are invalid) or plain ``LinkSpec`` objects. ``default_domain``: the
    domain of rows that name none, for duplicate detection. ``now``: the instant
    expiries must come after (default: the current time).
    """
    if isinstance(source, SourceBatch):
        frames = list(source.frames)
        file_problems = [p for p in source.problems if not _is_row_problem(p)]
    else:
        frames = [SpecFrame.from_specs(list(source))] if source else []
        file_problems = []
    when = (now or datetime.now(UTC)).astimezone(UTC)
    found: list[tuple[int, int, int, Problem]] = []
    fixed: list[SpecFrame] = []
    seq = 0
    for frame, offset in _offsets(frames):
        checker = _FrameChecker(frame, offset, when, fix_invisible)
        checker.run()
        fixed.append(checker.frame)
        for idx, fname, problem in checker.found:
            found.append((idx, _FIELD_ORDER.get(fname or "", -1), seq, problem))
            seq += 1
    for idx, fname, problem in _duplicates(fixed, default_domain):
        found.append((idx, _FIELD_ORDER.get(fname, -1), seq, problem))
        seq += 1
    found.sort(key=lambda t: (t[0], t[1], t[2]))
    invalid = frozenset(idx for idx, _, _, p in found if p.severity is Severity.ERROR)
    problems = (*file_problems, *(p for *_, p in found))
    return Validation(tuple(fixed), tuple(problems), invalid)


def _is_row_problem(p: Problem) -> bool:
    return p.provenance is not None and p.provenance.row is not None and p.field is not None


class _FrameChecker:
    """Runs every column check of one frame; collects (global index, field, Problem)."""

    def __init__(self, frame: SpecFrame, offset: int, now: datetime, fix: bool):
        self.frame = frame
        self.offset = offset
        self.now = now
        self.fix = fix
        self.found: list[tuple[int, str | None, Problem]] = []

    def add(self, i: int, fname: str, constant: str, message: str, warn: bool = False) -> None:
        prov: Provenance = self.frame.provenance(i)
        severity = Severity.WARNING if warn else Severity.ERROR
        self.found.append(
            (self.offset + i, fname, Problem(constant, message, prov, fname, severity))
        )

    def run(self) -> None:
        for i, problem in self.frame.row_problems:
            self.found.append((self.offset + i, problem.field, problem))
        if self.fix:
            for fname in _FIXABLE:
                self._fix(fname)
        self._missing_url()
        for fname in _URL_FIELDS:
            self._urls(fname)
        self._slugs()
        self._expiry()
        self._domains()

    def _present(self, fname: str) -> tuple[np.ndarray, list[Any]]:
        col = self.frame.values[fname]
        idx = np.flatnonzero(pd.notna(col))
        return idx, col[idx].tolist()

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
            named = ", ".join(f"{rules.describe_char(ch)} at position {k + 1}" for k, ch in found)
            constant = (
                "INVALID_SLUG"
                if fname == "slug"
                else ("INVALID_FIELD" if fname == "domain" else "INVALID_URL")
            )
            self.add(int(idx[j]), fname, constant, f"removed invisible character(s): {named}", True)
        self.frame = self.frame.with_values(fname, col)

    def _missing_url(self) -> None:
        urls = self.frame.values["url"]
        for i in np.flatnonzero(pd.isna(urls)).tolist():
            self.add(i, "url", "MISSING_URL", "no destination URL (required to create the link)")

    def _urls(self, fname: str) -> None:
        idx, vals = self._present(fname)
        if not vals:
            return
        ok = fast_url_ok(vals)
        for j in np.flatnonzero(~ok).tolist():
            v = vals[j]
            if not isinstance(v, str):
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
        idx, vals = self._present("expires_at")
        if not vals:
            return
        now_text = rules.format_ts(self.now)

        def after_now(batch: Sequence[Any]) -> list[bool]:
            return [
                isinstance(v, str) and EXPIRY_FIELDS_RE.fullmatch(v) is not None and v > now_text
                for v in batch
            ]

        future = per_distinct(vals, after_now)
        for j in np.flatnonzero(~future).tolist():
            v = vals[j]
            text = v if isinstance(v, str) else str(v)
            result = rules.parse_expiry(text, self.now)
            if isinstance(result, datetime):
                continue  # a non-normalised but valid form (specs built in Python)
            dt = rules.parse_iso(text)
            if dt is not None:
                message = f"{describe_value(text)} is in the past (now {now_text})"
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
                self.add(
                    int(idx[j]),
                    "domain",
                    "INVALID_FIELD",
                    f"{describe_value(str(v))} is not a host name such as go.example.com",
                )


def _duplicates(
    frames: Sequence[SpecFrame], default_domain: str | None
) -> list[tuple[int, str, Problem]]:
    domains: list[np.ndarray] = []
    slugs: list[np.ndarray] = []
    positions: list[np.ndarray] = []
    default = (default_domain or "").lower()
    for frame, offset in _offsets(frames):
        slug = frame.values["slug"]
        idx = np.flatnonzero(pd.notna(slug))
        if not len(idx):
            continue
        dom = pd.Series(frame.values["domain"][idx], dtype=object).fillna(default)
        domains.append(map_distinct(dom, _lower))
        slugs.append(_lower_all(slug[idx].tolist()))
        positions.append(idx + offset)
    if not positions:
        return []
    all_dom = np.concatenate(domains)
    all_slug = np.concatenate(slugs)
    allpos = np.concatenate(positions)
    dcodes, _dom_uniques = pd.factorize(all_dom)
    scodes, slug_uniques = pd.factorize(all_slug)
    codes = dcodes.astype(np.int64) * (len(slug_uniques) + 1) + scodes
    _sorted, first = np.unique(codes, return_index=True)
    _keys, inverse = np.unique(codes, return_inverse=True)
    first_of = allpos[first[inverse]]
    dup = np.flatnonzero(first_of != allpos)
    out: list[tuple[int, str, Problem]] = []
    for k in dup.tolist():
        pos, first_pos = int(allpos[k]), int(first_of[k])
        prov = _provenance_at(frames, pos)
        where = _provenance_at(frames, first_pos).where()
        shown = f"{all_dom[k] or '(default domain)'}/{all_slug[k]}"
        message = f"{shown} is declared twice; first at {where}"
        out.append((pos, "slug", Problem("DUPLICATE_IN_SOURCE", message, prov, "slug")))
    return out


def _lower(v: Any) -> str:
    return str(v).lower()


def _lower_all(values: list[Any]) -> np.ndarray:
    """Lower-cased text of every value (one joined string when the values allow)."""
    out = np.empty(len(values), dtype=object)
    if set(map(type, values)) <= {str}:
        big = "\n".join(values)
        if big.count("\n") == len(values) - 1:
            out[:] = big.lower().split("\n") if values else []
            return out
    out[:] = [_lower(v) for v in values]
    return out


def _provenance_at(frames: Sequence[SpecFrame], pos: int) -> Provenance:
    for frame, offset in _offsets(frames):
        if offset <= pos < offset + len(frame):
            return frame.provenance(pos - offset)
    raise IndexError(pos)
