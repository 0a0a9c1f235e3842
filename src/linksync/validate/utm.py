"""The team's UTM rules (``linksync.model.utm_rules``) checked on each row's final URL,
after its UTM columns (or a YAML entry's ``utm:``) were merged into it.

Each breach is an error on the row's ``url``, naming the parameter, the value and the
rule, with its own constant: ``UTM_MISSING`` (a required parameter absent or empty),
``UTM_NOT_ALLOWED`` (not among the allowed values, or not matching the pattern; the
nearest allowed value is named, ``newsleter`` -> ``newsletter``), ``UTM_CASE`` (not
lowercase), ``UTM_SPACES`` (a space where the rules want none), ``UTM_TOO_LONG``.
Errors, not warnings: they are the team's own rules, and a value that splits a
campaign's numbers cannot be taken back once the link is printed.

With ``fix`` (``--fix-utm-case``) case and spaces are fixed in the URL instead, each fix
a warning on its row naming the old and the new value; the fixed value is then checked
against the other rules. Nothing else of the URL is rewritten: only the fixed
parameter's text in the query changes.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from urllib.parse import quote_plus, unquote_plus

import numpy as np

from linksync.model import Problem, Severity
from linksync.model.utm_rules import UtmRules
from linksync.sources.frame import SpecFrame
from linksync.validate.suggest import use

#: (index in the frame, Problem)
Found = list[tuple[int, Problem]]


def _split(url: str) -> tuple[str, list[str], str]:
    """(the URL before its query, the query's ``name=value`` parts, ``#`` and the
    fragment): joined again as ``head?parts&...tail``, the URL is byte for byte."""
    base, hash_, fragment = url.partition("#")
    head, _, query = base.partition("?")
    return head, query.split("&") if "?" in base else [], hash_ + fragment


def _pair(part: str) -> tuple[str, str]:
    """(parameter name lowercased, value) of one ``name=value`` part of a query."""
    key, _, value = part.partition("=")
    return unquote_plus(key).strip().lower(), unquote_plus(value)


def _fixed(value: str, rules: UtmRules) -> str:
    out = value
    if rules.no_spaces:
        out = rules.no_spaces.join(out.split())
    if rules.lowercase:
        out = out.lower()
    return out


def _near(value: str, allowed: Iterable[str]) -> str | None:
    choices = list(allowed)
    folded = {c.lower(): c for c in choices}
    if value.strip().lower() in folded:
        return folded[value.strip().lower()]
    close = difflib.get_close_matches(value.lower(), list(folded), n=1, cutoff=0.75)
    return folded[close[0]] if close else None


class UtmChecker:
    """Checks one frame's URLs; ``found`` the problems, ``frame`` the fixed frame."""

    def __init__(self, frame: SpecFrame, rules: UtmRules, fix: bool, skip: set[int]):
        self.frame = frame
        self.rules = rules
        self.fix = fix
        self.skip = skip
        self.found: Found = []

    def _add(self, i: int, constant: str, message: str, warn: bool = False) -> None:
        severity = Severity.WARNING if warn else Severity.ERROR
        prov = self.frame.provenance(i)
        self.found.append((i, Problem(constant, message, prov, "url", severity)))

    def run(self) -> SpecFrame:
        col = self.frame.values["url"]
        new = None
        for i in np.flatnonzero(self.frame.is_set("url")).tolist():
            url = col[i]
            if i in self.skip or not isinstance(url, str):
                continue
            fixed = self._row(i, url)
            if fixed != url:
                if new is None:
                    new = col.copy()
                new[i] = fixed
        if new is not None:
            self.frame = self.frame.with_values("url", new)
        return self.frame

    def _row(self, i: int, url: str) -> str:
        rules = self.rules
        head, parts, tail = _split(url)
        pairs = [_pair(part) for part in parts]
        seen = {name for name, value in pairs if value.strip()}
        for name in rules.required or ():
            if name not in seen:
                self._add(
                    i,
                    "UTM_MISSING",
                    f"{name} is missing from the URL (the team's utm_rules require "
                    f"{', '.join(rules.required or ())})",
                )
        changed = False
        for k, (name, value) in enumerate(pairs):
            if not name.startswith("utm_") or not parts[k]:
                continue
            good = self._value(i, name, value)
            if self.fix and good != value:
                parts[k] = f"{parts[k].partition('=')[0]}={quote_plus(good)}"
                changed = True
        return f"{head}?{'&'.join(parts)}{tail}" if changed else url

    def _value(self, i: int, name: str, value: str) -> str:
        """Check one parameter; returns the value after any fix. A value that breaks
        the case or space rule is checked against the others as it would be fixed, so
        one typo is named once."""
        rules = self.rules
        good = _fixed(value, rules)
        shown = value
        if good != value and self.fix:
            constant = "UTM_CASE" if rules.lowercase and value != value.lower() else "UTM_SPACES"
            message = f"{name} {value!r} changed to {good!r} (--fix-utm-case)"
            self._add(i, constant, message, warn=True)
            shown = value = good
        elif good != value:
            if rules.no_spaces and value != rules.no_spaces.join(value.split()):
                self._add(
                    i,
                    "UTM_SPACES",
                    f"{name} {value!r} has spaces (utm_rules no_spaces: "
                    f"{rules.no_spaces!r}){use(good)}, or pass --fix-utm-case",
                )
            if rules.lowercase and value != value.lower():
                self._add(
                    i,
                    "UTM_CASE",
                    f"{name} {value!r} is not lowercase (utm_rules lowercase)"
                    f"{use(good)}, or pass --fix-utm-case",
                )
            value = good
        allowed = (rules.allowed or {}).get(name)
        if allowed is not None and value not in allowed:
            self._add(
                i,
                "UTM_NOT_ALLOWED",
                f"{name} {shown!r} is not an allowed value (utm_rules allowed: "
                f"{', '.join(allowed)}){use(_near(value, allowed))}",
            )
        pattern = (rules.patterns or {}).get(name)
        if pattern is not None and re.fullmatch(pattern, value) is None:
            self._add(
                i,
                "UTM_NOT_ALLOWED",
                f"{name} {shown!r} does not match the pattern {pattern} (utm_rules pattern)",
            )
        if rules.max_length is not None and len(value) > rules.max_length:
            self._add(
                i,
                "UTM_TOO_LONG",
                f"{name} {shown!r} has {len(value)} characters; the team's utm_rules allow "
                f"at most {rules.max_length} (max_length)",
            )
        return value
