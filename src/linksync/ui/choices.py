"""What the user chose on the page: the column mapping and the run's options.

The page sends them as JSON with every step (check, plan, apply); they become the
run's request (``linksync.pipeline.request``: a ``Reading`` and a ``SyncPolicy``), the
same values the command line's flags become, and the page shows that command line too
(``command_line``, written from the fields' flags), so a run started on the page can be
repeated in a terminal or a scheduled job.

    choices = Choices.from_json({"mapping": {"Approved by": "ignore"}, "mode": "upsert"})
    linksync.plan(paths, settings, reading=choices.reading, sync=choices.sync)

How the file is read (the date format, the time zone of dates written without one, the
encoding of CSV files, the cell texts that mean empty, the UTM case fix) are the
reading options of ``--date-format``, ``--timezone``, ``--encoding``, ``--empty-value``
and ``--fix-utm-case``; the page shows the profile's values at first, and
``beyond(profile)`` leaves out what the profile already says, so the command line shown
names only what the page changed.

The password of an encrypted workbook is no choice: it travels beside the choices, is
never kept with them (``linksync.ui.unlock``), and the command line names
``--workbook-password-file FILE`` in its place.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from linksync.config.profiles import Profile
from linksync.errors import ConfigError
from linksync.pipeline.fields import command_words
from linksync.pipeline.request import Outputs, Reading, SyncPolicy
from linksync.rules.timestamps import time_zone, zone_name
from linksync.sources.columns import compile_mapping
from linksync.sources.options import DateFormat, ReadOptions
from linksync.sync.options import MODES

_MAX_MAPPINGS = 500
_MAX_TEXT = 300
_MAX_EMPTY_VALUES = 50


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or len(value) > _MAX_TEXT:
        raise ConfigError(f"{what}: expected a text of at most {_MAX_TEXT} characters")
    return value


def _empty_values(value: Any) -> tuple[str, ...]:
    """'N/A, TBD' (as typed in the page's box) or a list: the texts, without blanks."""
    items = value if isinstance(value, list) else _text(value or "", "cells that mean empty")
    items = items.split(",") if isinstance(items, str) else items
    out = tuple(dict.fromkeys(_text(v, "cells that mean empty").strip() for v in items))
    out = tuple(v for v in out if v)
    if len(out) > _MAX_EMPTY_VALUES:
        raise ConfigError(f"cells that mean empty: at most {_MAX_EMPTY_VALUES} texts")
    return out


def _flag(data: Mapping[str, Any], key: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise ConfigError(f"{key}: expected true or false")
    return value


@dataclass(frozen=True)
class Choices:
    """The page's choices (see module docstring): how the uploads are read, what the
    run may do, and whether the downloads hold QR codes."""

    reading: Reading = field(default_factory=Reading)
    sync: SyncPolicy = field(default_factory=SyncPolicy)
    qr: bool = True

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
        date_format = _text(data.get("date_format") or "", "date format").strip() or None
        encoding = _text(data.get("encoding") or "", "encoding").strip() or None
        zone = _text(data.get("timezone") or "", "time zone").strip() or None
        # Refused here, with the readers' own words, as the flags are.
        ReadOptions.build(date_format=date_format, encoding=encoding, timezone=zone)
        reading = Reading(
            mapping=mapping,
            fix_invisible=_flag(data, "fix_invisible"),
            check_destinations=(
                _flag(data, "check_destinations") if "check_destinations" in data else None
            ),
            date_format=date_format,
            timezone=zone,
            encoding=encoding,
            empty_values=_empty_values(data.get("empty_values")),
            fix_utm_case=_flag(data, "fix_utm_case"),
        )
        sync = SyncPolicy(
            mode=None if mode == "upsert" else mode,  # the default: no --mode
            default_domain=domain or None,
            scope_domains=scope,
            ai_slug=_flag(data, "ai_slug"),
            ai_og=_flag(data, "ai_og"),
        )
        return cls(reading, sync, qr=_flag(data, "qr") if "qr" in data else True)

    def beyond(self, profile: Profile) -> Choices:
        """These choices less what ``profile`` says already (it applies all the same):
        the command line shown then names only what the page changed."""
        asked = self.reading
        same_dates = DateFormat.parse(asked.date_format) == DateFormat.parse(profile.date_format)
        same_empties = set(asked.empty_values or ()) == set(profile.empty_values)
        same_zone = zone_name(time_zone(asked.timezone)) == zone_name(time_zone(profile.timezone))
        reading = replace(
            asked,
            check_destinations=(
                None
                if asked.check_destinations is profile.check_destinations
                else asked.check_destinations
            ),
            date_format=None if same_dates else asked.date_format,
            timezone=None if same_zone else asked.timezone,
            encoding=None if asked.encoding == profile.encoding else asked.encoding,
            empty_values=None if same_empties else asked.empty_values,
        )
        return replace(self, reading=reading)

    def command_line(
        self, names: Sequence[str], annotated: Sequence[str] = (), *, password_file: bool = False
    ) -> str:
        """The ``linksync apply`` command that does what the page does: the flags of
        the choices' fields (``linksync.pipeline.fields.command_words``); a default
        domain is a profile's ``default_domain:`` on the command line, said after it;
        with ``password_file`` (an encrypted workbook), ``--workbook-password-file
        FILE``, never the password."""
        outputs = Outputs(annotate=annotated, qr="qr-codes.zip" if self.qr else None)
        reading = replace(self.reading, workbook_password_file="FILE" if password_file else None)
        words = ["linksync", "apply", *names, *command_words([reading, self.sync, outputs])]
        line = shlex.join(words)
        if self.sync.default_domain:
            line += f"  # with default_domain: {self.sync.default_domain} in linksync.yaml"
        return line


#: The page's choices of a date format, as ``--date-format`` takes them.
DATE_FORMATS = {
    "iso": "ISO (2026-12-31) or Excel dates",
    "dmy": "Day first (31/12/2026)",
    "mdy": "Month first (12/31/2026)",
    "pattern": "Another pattern",
}


#: The zones the page's time-zone box suggests (any IANA name is taken).
TIME_ZONES = (
    "UTC",
    "Europe/London",
    "Europe/Dublin",
    "Europe/Lisbon",
    "Europe/Paris",
    "Europe/Berlin",
    "Europe/Madrid",
    "Europe/Rome",
    "Europe/Amsterdam",
    "Europe/Stockholm",
    "Europe/Warsaw",
    "Europe/Athens",
    "Europe/Istanbul",
    "Europe/Moscow",
    "Africa/Lagos",
    "Africa/Johannesburg",
    "Africa/Cairo",
    "Asia/Dubai",
    "Asia/Kolkata",
    "Asia/Singapore",
    "Asia/Shanghai",
    "Asia/Hong_Kong",
    "Asia/Tokyo",
    "Asia/Seoul",
    "Australia/Perth",
    "Australia/Sydney",
    "Pacific/Auckland",
    "America/St_Johns",
    "America/Halifax",
    "America/New_York",
    "America/Chicago",
    "America/Denver",
    "America/Phoenix",
    "America/Los_Angeles",
    "America/Anchorage",
    "Pacific/Honolulu",
    "America/Mexico_City",
    "America/Bogota",
    "America/Sao_Paulo",
    "America/Argentina/Buenos_Aires",
)


def reading_view(prof: Profile) -> dict[str, Any]:
    """The reading options as the page shows them first: the profile's."""
    fmt = (prof.date_format or "iso").strip()
    known = fmt.lower() in DATE_FORMATS
    return {
        "date_formats": DATE_FORMATS,
        "date_format": fmt.lower() if known else "pattern",
        "date_pattern": "" if known else fmt,
        "timezone": zone_name(time_zone(prof.timezone)),
        "timezones": TIME_ZONES,
        "encoding": prof.encoding or "",
        "empty_values": ", ".join(prof.empty_values),
        "utm_rules": prof.utm_rules is not None,
    }
