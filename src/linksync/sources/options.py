"""What the user told the readers: encoding, date format, placeholders for "empty",
and the documented limits every reader enforces before it reads.

``ReadOptions`` is what every reader is told. A run makes it of its request's
``linksync.pipeline.request.Reading`` (the flags, the page's choices, ``linksync.plan``'s
``reading=``, over the profile's keys): each parameter of ``ReadOptions.build`` is
given the ``Reading`` field of its name.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from itertools import product

from linksync.errors import ConfigError
from linksync.rules.timestamps import time_zone

# --- limits (docs/reliability.md, "Inputs: classes, limits and what you see") -------

#: Cells of one sheet's used range (rows x columns), declared or actual: 2**24, e.g.
#: 1,048,576 rows x 16 columns. Past it the sheet is refused before it is read.
MAX_SHEET_CELLS = 1 << 24
#: Uncompressed bytes of one part of a workbook (a sheet, the shared strings).
MAX_PART_BYTES = 512 << 20
#: Uncompressed bytes of all the parts of one workbook read together.
MAX_WORKBOOK_BYTES = 1 << 30
#: Columns of a CSV header (Excel's own limit).
MAX_COLUMNS = 16_384
#: The header of a CSV must sit in its first bytes (it is found there).
CSV_SAMPLE_BYTES = 256 * 1024
#: Nesting of a YAML document (mappings and lists inside each other).
MAX_YAML_DEPTH = 64
#: A YAML source's suffixes (here, so that telling sources apart loads no YAML parser).
YAML_SUFFIXES: frozenset[str] = frozenset({".yaml", ".yml"})

#: What marketers type for "nothing here". A cell holding one is an error naming the
#: cell, unless the user lists it with ``--empty-value`` (then it reads as empty).
PLACEHOLDERS: tuple[str, ...] = (
    "n/a",
    "n.a.",
    "-",
    "--",
    "---",
    "–",
    "—",
    "tbd",
    "tbc",
    "tba",
    "?",
)

#: Excel's error values, as a cell shows them (and as a CSV export writes them).
EXCEL_ERRORS: frozenset[str] = frozenset(
    {
        "#N/A",
        "#DIV/0!",
        "#REF!",
        "#VALUE!",
        "#NAME?",
        "#NUM!",
        "#NULL!",
        "#SPILL!",
        "#CALC!",
        "#FIELD!",
        "#BLOCKED!",
        "#CONNECT!",
        "#BUSY!",
        "#UNKNOWN!",
        "#GETTING_DATA",
        "#PYTHON!",
    }
)


def case_variants(words: Iterable[str]) -> frozenset[str]:
    """Every upper/lower-case spelling of each word (for hash lookups of a column)."""
    out: set[str] = set()
    for word in words:
        choices = [(ch.lower(), ch.upper()) if ch.isalpha() else (ch,) for ch in word]
        out.update("".join(p) for p in product(*choices))
    return frozenset(out)


PLACEHOLDER_VARIANTS: frozenset[str] = case_variants(PLACEHOLDERS)

# --- dates ---------------------------------------------------------------------------

_DAY_FIRST = re.compile(
    r"(\d{1,2})[./-](\d{1,2})[./-](\d{4})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?", re.ASCII
)
DATE_FORMATS = ("iso", "dmy", "mdy")


@dataclass(frozen=True, slots=True)
class DateFormat:
    """How to read dates that are not ISO 8601: ``dmy`` (31/12/2026, 31.12.2026
    23:59), ``mdy`` (12/31/2026), or a ``strptime`` pattern (``%d %b %Y``). ISO
    8601 is always accepted; ``iso`` accepts nothing else."""

    spec: str

    @classmethod
    def parse(cls, spec: str | None) -> DateFormat | None:
        if spec is None or not spec.strip():
            return None
        text = spec.strip()
        if text.lower() in DATE_FORMATS:
            return None if text.lower() == "iso" else cls(text.lower())
        if "%" not in text:
            raise ConfigError(
                f"date format {spec!r}: use dmy (31/12/2026), mdy (12/31/2026), iso, "
                "or a strptime pattern such as %d.%m.%Y"
            )
        try:
            datetime.strptime(datetime(2030, 12, 31, 23, 59).strftime(text), text)
        except ValueError as exc:
            raise ConfigError(f"date format {spec!r} does not read its own dates: {exc}") from None
        return cls(text)

    def read(self, text: str) -> datetime | None:
        """The naive date-time ``text`` stands for, or None."""
        if "%" in self.spec:
            try:
                return datetime.strptime(text, self.spec)
            except ValueError:
                return None
        m = _DAY_FIRST.fullmatch(text)
        if m is None:
            return None
        a, b, year, hh, mm, ss = m.groups()
        day, month = (a, b) if self.spec == "dmy" else (b, a)
        try:
            return datetime(
                int(year), int(month), int(day), int(hh or 0), int(mm or 0), int(ss or 0)
            )
        except ValueError:
            return None

    def misread(self, text: str) -> str | None:
        """What to say of ``text`` when it looks like a day-first or month-first date
        (``looks_like_local_date``) this format does not read; None otherwise."""
        if not looks_like_local_date(text) or self.read(text) is not None:
            return None
        example = datetime(2026, 12, 31).strftime(self.spec) if "%" in self.spec else None
        flag = f"--date-format {self.spec}"
        said = f"{flag} ({example})" if example else f"{flag} ({_EXAMPLES[self.spec]})"
        other = {"dmy": "mdy", "mdy": "dmy"}.get(self.spec, "")
        other_read = DateFormat(other).read(text) if other else None
        if other_read is not None:
            iso = other_read.strftime("%Y-%m-%d")
            fix = f"it reads as {other} ({iso}): write it as {iso}, or fix the date"
        else:
            fix = "write it as 2030-12-31"
        return f"{text!r} is not a date as {said} reads it; {fix}"


_EXAMPLES = {"dmy": "31/12/2026", "mdy": "12/31/2026"}


def looks_like_local_date(text: str) -> bool:
    """31/12/2026 or 12.31.2026: a date that needs ``--date-format`` to be read."""
    return _DAY_FIRST.fullmatch(text.strip()) is not None


# --- the options ---------------------------------------------------------------------


@dataclass(frozen=True)
class ReadOptions:
    """Options of every reader (see module docstring)."""

    sheets: tuple[str, ...] | None = None
    mapping: Mapping[str, str] | None = None
    encoding: str | None = None
    date_format: DateFormat | None = None
    empty_values: frozenset[str] = field(default_factory=frozenset)
    #: The zone of date-times written without one (None: UTC).
    timezone: tzinfo | None = None
    #: The password of encrypted workbooks (``linksync.sources.encrypted``); never shown.
    workbook_password: str | None = field(default=None, repr=False, compare=False)
    #: Read the rows a workbook hides (by a filter or by hand); else they are skipped.
    include_hidden: bool = False
    #: A password a YAML file refers to that cannot be read is an error on its link;
    #: False: a warning (``validate``, which may run where the secrets are not).
    secrets_needed: bool = True

    @classmethod
    def build(
        cls,
        *,
        sheets: Sequence[str] | None = None,
        mapping: Mapping[str, str] | None = None,
        encoding: str | None = None,
        date_format: str | DateFormat | None = None,
        empty_values: Iterable[str] | None = (),
        timezone: str | tzinfo | None = None,
        workbook_password: str | None = None,
        include_hidden: bool | None = False,
        secrets_needed: bool = True,
    ) -> ReadOptions:
        """Checked options; ConfigError for an unknown encoding, date format or time
        zone (an IANA name such as America/New_York; None or UTC for UTC).
        ``workbook_password``: opens encrypted workbooks (``--workbook-password-file``).
        ``include_hidden``: read the rows a workbook hides (``--include-hidden``).
        ``secrets_needed``: False makes a password a YAML file refers to and that cannot
        be read a warning (``validate``), not an error."""
        if encoding is not None:
            try:
                encoding = codecs.lookup(encoding).name
            except LookupError:
                raise ConfigError(f"unknown encoding {encoding!r}") from None
        fmt = date_format if isinstance(date_format, DateFormat) else DateFormat.parse(date_format)
        empties = frozenset(v.strip().casefold() for v in empty_values or () if v.strip())
        return cls(
            tuple(sheets) if sheets else None,
            dict(mapping) if mapping else None,
            encoding,
            fmt,
            empties,
            timezone if isinstance(timezone, tzinfo) else time_zone(timezone),
            workbook_password or None,
            bool(include_hidden),
            secrets_needed,
        )

    def is_empty_value(self, text: str) -> bool:
        return bool(self.empty_values) and text.strip().casefold() in self.empty_values
