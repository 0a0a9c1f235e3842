"""The team's UTM rules (``utm_rules:`` in a profile, or in a YAML file's ``defaults:``).

A marketing-operations team writes them once; every destination URL is checked against
them after its UTM columns are merged (``linksync.validate.utm``)::

    utm_rules:
      required: [utm_source, utm_medium, utm_campaign]
      allowed:                      # a list of values, or a pattern (a string)
        utm_source: [facebook, newsletter, google]
        utm_medium: [social, email, cpc]
      pattern: {utm_campaign: "^[a-z0-9-]+$"}   # the whole value must match
      lowercase: true
      no_spaces: "-"                # true (replace with "-"), or the replacement
      max_length: 100               # characters of each UTM value

A parameter may be named ``utm_source`` or ``source``. ``parse_utm_rules`` raises
``ValueError`` with the key at fault; the caller words it as a config error (profile)
or a file problem (YAML). Plain values, no I/O: they are the team's rules, not the
service's (``linksync.rules``), and they sit with the values passed between stages
because a reader (a YAML file's rules), the config (a profile's) and validation (which
checks them) all take them.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

#: The UTM parameters a rule may name (Google Analytics' five, and utm_id).
UTM_PARAMETERS = ("utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "utm_id")
RULE_KEYS = ("required", "allowed", "pattern", "lowercase", "no_spaces", "max_length")


@dataclass(frozen=True, slots=True)
class UtmRules:
    """The rules in force; None: not set (a YAML file's rules fill in the profile's,
    key by key, with ``over``)."""

    required: tuple[str, ...] | None = None
    #: parameter -> the allowed values.
    allowed: Mapping[str, tuple[str, ...]] | None = None
    #: parameter -> a regular expression the whole value must match.
    patterns: Mapping[str, str] | None = None
    lowercase: bool | None = None
    #: The character a space is replaced with ("" or None: spaces allowed).
    no_spaces: str | None = None
    max_length: int | None = None

    def over(self, base: UtmRules | None) -> UtmRules:
        """These rules over ``base``'s: a key set here wins, the others are base's."""
        if base is None:
            return self
        given = {f.name: getattr(self, f.name) for f in fields(self)}
        return replace(base, **{k: v for k, v in given.items() if v is not None})

    @property
    def empty(self) -> bool:
        return all(getattr(self, f.name) in (None, (), {}, False, "") for f in fields(self))

    def describe(self) -> list[str]:
        """The rules in force, one line each (for people)."""
        out: list[str] = []
        if self.required:
            out.append(f"required: {', '.join(self.required)}")
        for name, values in (self.allowed or {}).items():
            out.append(f"{name} one of: {', '.join(values)}")
        for name, pattern in (self.patterns or {}).items():
            out.append(f"{name} matches {pattern}")
        if self.lowercase:
            out.append("lowercase")
        if self.no_spaces:
            out.append(f"no spaces (replaced with {self.no_spaces!r})")
        if self.max_length:
            out.append(f"at most {self.max_length} characters a value")
        return out


def parameter_name(name: Any, key: str) -> str:
    """``source`` or ``utm_source`` -> ``utm_source``; anything else a ValueError."""
    text = str(name).strip().lower() if isinstance(name, str) else ""
    full = text if text.startswith("utm_") else f"utm_{text}"
    if full in UTM_PARAMETERS:
        return full
    close = difflib.get_close_matches(full, UTM_PARAMETERS, n=1, cutoff=0.7)
    hint = f' (did you mean "{close[0]}"?)' if close else ""
    raise ValueError(
        f"{key}: {name!r} is not a UTM parameter{hint}; known: {', '.join(UTM_PARAMETERS)}"
    )


def _pattern(text: Any, key: str) -> str:
    if not isinstance(text, str) or not text:
        raise ValueError(f"{key} must be a regular expression (text)")
    try:
        re.compile(text)
    except re.error as exc:
        raise ValueError(f"{key}: {text!r} is not a valid regular expression: {exc}") from None
    return text


def _text_list(value: Any, key: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise ValueError(f"{key} must be a non-empty list")
    if not all(isinstance(v, str) and v for v in value):
        raise ValueError(f"{key} must list text values (quote numbers and yes/no)")
    return tuple(value)


def _bool_text(value: Any) -> Any:
    """``true`` / ``false`` written as text (a YAML source's values are read as text)."""
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return value


def parse_utm_rules(data: Any) -> UtmRules:
    """A ``utm_rules:`` block, checked; ValueError names the key at fault."""
    if not isinstance(data, Mapping):
        raise ValueError("utm_rules must be a mapping such as {required: [utm_source]}")
    unknown = sorted(str(k) for k in data if k not in RULE_KEYS)
    if unknown:
        raise ValueError(
            f"utm_rules: unknown key(s) {', '.join(unknown)}; known: {', '.join(RULE_KEYS)}"
        )
    required = None
    if data.get("required") is not None:
        names = _text_list(data["required"], "utm_rules.required")
        required = tuple(dict.fromkeys(parameter_name(n, "utm_rules.required") for n in names))
    allowed: dict[str, tuple[str, ...]] = {}
    patterns: dict[str, str] = {}
    for block in ("allowed", "pattern"):
        given = data.get(block)
        if given is None:
            continue
        if not isinstance(given, Mapping):
            raise ValueError(f"utm_rules.{block} must map a parameter to its rule")
        for name, rule in given.items():
            key = f"utm_rules.{block}.{name}"
            param = parameter_name(name, key)
            if param in allowed or param in patterns:
                raise ValueError(f"{key}: {param} has a rule already: keep one")
            if block == "allowed" and isinstance(rule, list):
                allowed[param] = _text_list(rule, key)
            else:
                patterns[param] = _pattern(rule, key)
    lowercase = _bool_text(data.get("lowercase"))
    if lowercase is not None and not isinstance(lowercase, bool):
        raise ValueError("utm_rules.lowercase must be true or false")
    no_spaces = _bool_text(data.get("no_spaces"))
    if no_spaces is True:
        no_spaces = "-"
    elif no_spaces is False:
        no_spaces = ""
    elif no_spaces is not None and (
        not isinstance(no_spaces, str) or len(no_spaces) != 1 or no_spaces.isspace()
    ):
        raise ValueError('utm_rules.no_spaces must be true, false or one character such as "-"')
    max_length = data.get("max_length")
    if isinstance(max_length, str) and max_length.strip().isdigit():
        max_length = int(max_length)  # a YAML source's values are read as text
    if max_length is not None and (
        isinstance(max_length, bool) or not isinstance(max_length, int) or max_length < 1
    ):
        raise ValueError("utm_rules.max_length must be a whole number of characters, 1 or more")
    return UtmRules(
        required=required,
        allowed=allowed or None,
        patterns=patterns or None,
        lowercase=lowercase,
        no_spaces=no_spaces,
        max_length=max_length,
    )
