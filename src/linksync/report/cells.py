"""Cell-level safety shared by every writer: formula neutralisation, secret redaction,
XML-safe text and the one function that turns a RowResult into report values.

A spreadsheet runs a cell whose text starts with ``=``, ``+``, ``-``, ``@``, a tab or a
carriage return as a formula (CSV injection). :func:`neutralize` prefixes such text with
an apostrophe, the convention spreadsheet programs themselves use for "this is text";
the CSV writer and the annotated CSV copy use it. The xlsx writers store such text as a
string cell instead, which no spreadsheet evaluates, and keep the value exact.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from linksync.model import RowResult
from linksync.model.declared import shown_password
from linksync.model.links import is_yaml_source
from linksync.safe.secrets import redact
from linksync.safe.terminal import printable

#: First characters that make a spreadsheet treat a cell as a formula.
FORMULA_PREFIXES: tuple[str, ...] = ("=", "+", "-", "@", "\t", "\r")

#: Characters XML 1.0 does not allow, even escaped.
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")

#: Excel's limit on the characters of one cell.
XLSX_MAX_CELL_CHARS = 32767


_FORMULA_FIRST = frozenset(FORMULA_PREFIXES)


def is_formula_like(text: str) -> bool:
    """True when a spreadsheet would run ``text`` as a formula."""
    return text[:1] in _FORMULA_FIRST


def neutralize(text: str) -> str:
    """``text`` made inert for a spreadsheet: formula-like text gets a leading ``'``."""
    return "'" + text if text[:1] in _FORMULA_FIRST else text


def xml_text(text: str) -> str:
    """``text`` with the characters XML 1.0 cannot carry replaced by U+FFFD."""
    return _XML_INVALID.sub("\ufffd", text)


_ATTR_SPECIAL = re.compile('[&<>"\x00-\x1f\ud800-\udfff\ufffe\uffff]')
_ATTR_ESCAPES = str.maketrans(
    {
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        '"': "&quot;",
        "\n": "&#10;",
        "\r": "&#13;",
        "\t": "&#9;",
    }
)


def xml_attr(text: str) -> str:
    """``text`` as an XML attribute value in double quotes: markup escaped, line breaks
    and tabs kept as character references, what XML cannot carry replaced by U+FFFD."""
    if not _ATTR_SPECIAL.search(text):
        return text  # most link targets: a search is 6x faster than the translation
    return xml_text(text).translate(_ATTR_ESCAPES)


def fit_cell(text: str) -> str:
    """``text`` cut to what one xlsx cell can hold."""
    if len(text) <= XLSX_MAX_CELL_CHARS:
        return text
    return text[: XLSX_MAX_CELL_CHARS - 1] + "\u2026"


def report_row(result: RowResult, secrets: Sequence[str] = ()) -> dict[str, Any]:
    """The report values of one result (``RESULT_COLUMNS`` order, plain JSON types),
    with any secret redacted from text values. Every writer starts from this."""
    row = result.to_dict()
    if row.get("sheet"):
        # A sheet name may hold control or direction characters (Links\u202e\u0007):
        # shown escaped as the terminal shows them (``--sheet`` takes that spelling).
        row["sheet"] = printable(row["sheet"])
    if secrets and _may_hold(row, secrets):
        for key, value in row.items():
            if isinstance(value, str):
                row[key] = redact(value, secrets)
    return row


def _may_hold(row: dict[str, Any], secrets: Sequence[str]) -> bool:
    """Whether ``redact`` could change a text value of ``row``: a secret or a
    ``Bearer`` in one of them (one look over all the texts at once, where a value
    by value redaction sorts the secrets again for each; a match that spans two
    values only sends the row through ``redact``, which changes nothing then)."""
    text = "\n".join(value for value in row.values() if isinstance(value, str))
    return "earer" in text or "EARER" in text or any(s and s in text for s in secrets)


def where(result: RowResult) -> str:
    """'campaign.xlsx, sheet Spring, row 7', 'links.yaml, line 9' (or the link for a row
    without source)."""
    parts: list[str] = []
    if result.source:
        parts.append(result.source)
    if result.sheet:
        parts.append(f"sheet {printable(result.sheet)}")
    if result.row is not None:
        parts.append(f"line {result.row}" if is_yaml_source(result.source) else f"row {result.row}")
    if not parts:
        parts.append(link_label(result) or "(no source)")
    return ", ".join(parts)


def _joined(first: str | None, sep: str, second: str | None) -> str:
    """Both halves joined by ``sep``, or whichever half is known, or ''."""
    return f"{first}{sep}{second}" if first and second else first or second or ""


def link_label(result: RowResult) -> str:
    """'go.example.com/spring-sale', or whichever half is known, or ''."""
    return _joined(result.domain, "/", result.slug)


def error_text(result: RowResult) -> str:
    """'CONSTANT: message' (or whichever half is known, or '')."""
    return _joined(result.error_constant, ": ", result.message)


def show_value(value: Any, width: int = 60) -> str:
    """A field value for people: '-' for none, lists as '[a, b]', long text cut."""
    if value is None:
        return "-"
    if isinstance(value, tuple | list):
        return "[" + ", ".join(str(x) for x in value) + "]"
    text = str(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def field_change_text(field: str, old: Any, new: Any, width: int = 60) -> str:
    """'url: https://a -> https://b' (each value cut at ``width``); tags as 'added a, b;
    removed c'; a password (write-only, never shown) only '(set)', '(set from env NAME)'
    or '(removed)'."""
    if field == "password":
        return "password: " + shown_password(new)
    if field == "tags" and isinstance(old, tuple | list | None) and isinstance(new, tuple | list):
        added = [str(t) for t in new if t not in (old or ())]
        removed = [str(t) for t in (old or ()) if t not in new]
        parts = [f"added {', '.join(added)}"] if added else []
        parts += [f"removed {', '.join(removed)}"] if removed else []
        if parts:
            return show_value(f"tags: {'; '.join(parts)}", 2 * width)
    return f"{field}: {show_value(old, width)} -> {show_value(new, width)}"
