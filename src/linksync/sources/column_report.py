"""The column mapping a sheet was read with, as ``validate`` and ``plan`` print it.

    campaign.xlsx, sheet "Links": "Destination URL" -> url, "Back-half" -> slug,
    "Notes" -> description (guess), not read: "Owner", "Status" (row state),
    "Content" (guess: utm_content; --map Content=utm_content)

Every header of the sheet is named once: the field it feeds (``(chosen)`` when the
mapping named it, ``(guess)`` when a loose word matched it, ``(where "X" is empty)``
for a further column of a field), or that it is not read and why (``unknown``, a
``row state``, a guess that would change the URL or the password; export metadata and
columns mapped to ``ignore`` without a word). ``to_dict`` is the same for ``--json``.
A guess not read is also a warning (GUESSED_COLUMN, ``held_guesses``) naming the flag
that reads it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from linksync.model import Problem, Provenance, Severity
from linksync.sources.aliases import ROW_STATE
from linksync.sources.columns import ColumnMatch, map_flag, normalize_header


@dataclass(frozen=True, slots=True)
class ColumnUse:
    """One header: the field it feeds (or would feed: a guess not read), whether it is
    read, and how: ``alias``, ``chosen`` (the mapping), ``guess`` (a loose word); for a
    column not read also ``ignored`` (export metadata, or mapped to ignore),
    ``unknown`` or ``row state``. ``after``: the header of the field's first column,
    for a further column read where that one is empty."""

    header: str
    field: str | None
    how: str
    read: bool
    after: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def text(self) -> str:
        name = f'"{self.header}"'
        if not self.read:
            if self.how == "guess":
                return f"{name} (guess: {self.field}; {map_flag(self.header, str(self.field))})"
            return f"{name} ({self.how})" if self.how in ("unknown", "row state") else name
        notes = [self.how] if self.how in ("chosen", "guess") else []
        if self.after is not None:
            notes.append(f'where "{self.after}" is empty')
        return f"{name} -> {self.field}" + (f" ({'; '.join(notes)})" if notes else "")


@dataclass(frozen=True, slots=True)
class ColumnReport:
    """The mapping of one sheet (or CSV file)."""

    source: str
    sheet: str | None
    columns: tuple[ColumnUse, ...]

    @property
    def title(self) -> str:
        return f'{self.source}, sheet "{self.sheet}"' if self.sheet else self.source

    @property
    def guesses(self) -> tuple[ColumnUse, ...]:
        return tuple(c for c in self.columns if c.how == "guess")

    def line(self) -> str:
        """The mapping in one line (module docstring)."""
        read = [c.text() for c in self.columns if c.read]
        unread = [c.text() for c in self.columns if not c.read]
        text = ", ".join(read) if read else "no column read"
        if unread:
            text += ", not read: " + ", ".join(unread)
        return f"{self.title}: {text}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "sheet": self.sheet,
            "columns": [c.to_dict() for c in self.columns],
            "line": self.line(),
        }


def column_report(source: str, sheet: str | None, match: ColumnMatch) -> ColumnReport:
    """How ``match`` reads each header of the sheet, in the sheet's column order."""
    held = dict(match.held)
    unknown = set(match.unknown)
    states = set(match.columns_of(ROW_STATE)) if ROW_STATE in match.fields else set()
    uses: list[ColumnUse] = []
    for col, header in enumerate(match.headers):
        if not normalize_header(header):
            continue
        fname = match.field_of(col)
        if fname is not None:
            how = "chosen" if match.chosen(col) else "guess" if col in match.guesses else "alias"
            first = match.fields[fname]
            after = match.headers[first] if first != col else None
            uses.append(ColumnUse(header, fname, how, True, after))
        elif col in held:
            uses.append(ColumnUse(header, held[col], "guess", False))
        elif col in states:
            uses.append(ColumnUse(header, None, "row state", False))
        elif header in unknown:
            uses.append(ColumnUse(header, None, "unknown", False))
        else:
            uses.append(ColumnUse(header, None, "ignored", False))
    return ColumnReport(source, sheet, tuple(uses))


#: What a guess not read would have changed, by field.
_WOULD = {"url": "is the destination URL", "password": "sets the link's password"}


def held_guesses(source: str, sheet: str | None, match: ColumnMatch) -> list[Problem]:
    """One warning per column not read because its header is a loose word for a field
    that changes the URL or the password (``ColumnMatch.held``)."""
    out: list[Problem] = []
    for col, fname in match.held:
        header = match.headers[col]
        would = _WOULD.get(fname, "changes the destination URL")
        out.append(
            Problem(
                "GUESSED_COLUMN",
                f'not read: "{header}" may mean {fname}, which {would}, so it is not '
                f"guessed; to read it, name the column {fname} or pass "
                f"{map_flag(header, fname)} ({map_flag(header, 'ignore')} to silence this)",
                Provenance(source, sheet),
                None,
                Severity.WARNING,
                header,
            )
        )
    return out
