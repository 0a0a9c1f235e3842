"""What the user chose on the page: the column mapping and the run's options.

The page sends them as JSON with every step (check, plan, apply); they become the
keywords of ``linksync.plan`` / ``linksync.apply``, the same ones the command line's
flags become, and the page shows that command line too (``command_line``), so a run
started on the page can be repeated in a terminal or a scheduled job.

    choices = Choices.from_json({"mapping": {"Approved by": "ignore"}, "mode": "upsert"})
    linksync.plan(paths, settings=settings, **choices.keywords())
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from linksync.errors import ConfigError
from linksync.sources.columns import compile_mapping
from linksync.sync.options import MODES

_MAX_MAPPINGS = 500
_MAX_TEXT = 300


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or len(value) > _MAX_TEXT:
        raise ConfigError(f"{what}: expected a text of at most {_MAX_TEXT} characters")
    return value


def _flag(data: Mapping[str, Any], key: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise ConfigError(f"{key}: expected true or false")
    return value


@dataclass(frozen=True, slots=True)
class Choices:
    """The page's choices (see module docstring). ``mapping``: header -> field (or
    "ignore"), as ``--map HEADER=FIELD``."""

    mapping: Mapping[str, str] = field(default_factory=dict)
    mode: str = "upsert"
    default_domain: str | None = None
    scope: tuple[str, ...] = ()  # mirror mode deletes only on these domains (--domain)
    fix_invisible: bool = False
    ai_slug: bool = False
    ai_og: bool = False
    qr: bool = True
    #: Request each destination URL first (None: the profile's ``check_destinations:``).
    check_destinations: bool | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Choices:
        """Parse and check what the page sent (a JSON object); ``ConfigError`` says what
        is wrong."""
        raw = data.get("mapping") or {}
        if not isinstance(raw, Mapping) or len(raw) > _MAX_MAPPINGS:
            raise ConfigError("mapping: expected an object {header: field}")
        mapping = {_text(k, "mapping"): _text(v, "mapping") for k, v in raw.items()}
        compile_mapping(mapping)  # an unknown field is refused here, as --map does
        mode = _text(data.get("mode") or "upsert", "mode")
        if mode not in MODES:
            raise ConfigError(f"mode: {mode!r} is not one of {', '.join(MODES)}")
        domain = _text(data.get("default_domain") or "", "default domain").strip()
        scope = _text(data.get("scope") or "", "mirror domains").replace(",", " ").split()
        return cls(
            mapping=mapping,
            mode=mode,
            default_domain=domain or None,
            scope=tuple(scope),
            fix_invisible=_flag(data, "fix_invisible"),
            ai_slug=_flag(data, "ai_slug"),
            ai_og=_flag(data, "ai_og"),
            qr=_flag(data, "qr") if "qr" in data else True,
            check_destinations=(
                _flag(data, "check_destinations") if "check_destinations" in data else None
            ),
        )

    def reading(self) -> dict[str, Any]:
        """The reading keywords (the column step and Check need only these)."""
        return {
            "mapping": dict(self.mapping) or None,
            "fix_invisible": self.fix_invisible,
            "check_destinations": self.check_destinations,
        }

    def keywords(self) -> dict[str, Any]:
        """The keywords of ``linksync.plan`` (and ``apply``) for these choices."""
        return {
            **self.reading(),
            "mode": self.mode,
            "default_domain": self.default_domain,
            "scope_domains": self.scope or None,
            "ai_slug": self.ai_slug,
            "ai_og": self.ai_og,
        }

    def command_line(self, names: Sequence[str], annotated: Sequence[str] = ()) -> str:
        """The ``linksync apply`` command that does what the page does (a default
        domain is a profile's ``default_domain:`` on the command line: said after it)."""
        words = ["linksync", "apply", *names]
        for header, target in self.mapping.items():
            words += ["--map", f"{header}={target}"]
        if self.mode != "upsert":
            words += ["--mode", self.mode]
        for domain in self.scope:
            words += ["--domain", domain]
        for name in annotated:
            words += ["--annotate", name]
        words += [
            flag
            for flag, on in (
                ("--fix-invisible", self.fix_invisible),
                ("--ai-slug", self.ai_slug),
                ("--ai-og", self.ai_og),
                ("--check-destinations", self.check_destinations is True),
                ("--no-check-destinations", self.check_destinations is False),
            )
            if on
        ]
        if self.qr:
            words += ["--qr", "qr-codes.zip"]
        line = shlex.join(words)
        if self.default_domain:
            line += f"  # with default_domain: {self.default_domain} in linksync.yaml"
        return line
