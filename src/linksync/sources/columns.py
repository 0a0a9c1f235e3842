"""Column headers -> link fields: explicit mappings, aliases, header-row detection.

Headers are compared after ``normalize_header``: case-folded, with every space and
punctuation character removed, so ``Destination URL``, ``destination_url`` and
``DESTINATION-URL`` are the same column. The words themselves are in
``linksync.sources.aliases`` (with the products whose exports they cover).

Columns that are clearly metadata of an export (ids, click counts, creation dates,
QR codes) are not read; any other unknown column is reported once per sheet. Numbered
tags columns (``Tag 1``, ``Tag 2``) all feed the tags. A header that is a loose word
(``aliases.LOOSE``) is a guess: listed as one, and not read at all when the field would
change the URL or the password (``aliases.HELD_FIELDS``) until it is mapped. A header
that reads as a row state (``aliases.ROW_STATES``) feeds the pseudo-field
``ROW_STATE``, read only to warn where it holds a value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from linksync.errors import ConfigError
from linksync.model import API_NAMES, LINK_FIELDS
from linksync.sources.aliases import (
    ALIASES,
    ANNOTATION_RUN,
    COLUMN_FIELDS,
    HELD_FIELDS,
    IGNORED,
    LOOSE,
    QUERY,
    ROW_STATE,
    ROW_STATES,
    SHORT_URL,
    UTM_FIELDS,
)

#: The alias rank of a column the explicit mapping names (better than every alias).
_CHOSEN = -1

_PUNCT_RE = re.compile(r"[\W_]+", re.UNICODE)


def normalize_header(header: object) -> str:
    """'Destination URL' -> 'destinationurl' (case, spaces and punctuation ignored)."""
    return _PUNCT_RE.sub("", str(header)).casefold()


#: A hint in brackets closing a header: "Expires (MM/DD/YYYY)", "Slug (optional)".
#: A hint in brackets closing a header: searched from its opening bracket, so the time
#: is linear in the cell's length (a lazy ``(.*?)`` before it backtracked quadratically
#: over a whole header line read as one cell).
_HINT_RE = re.compile(r"\s*[(\[]([^()\[\]]*)[)\]]\Z")
#: Longer cells are no header with a hint (a header row is at most a few words a cell).
_HINT_MAX = 200


#: Words of a hint saying the column is not the field now: "URL (old)" stays unknown.
_NOT_NOW = re.compile(
    r"\b(?:old|previous|prev|former|legacy|deprecated|obsolete|archived?|unused|backup|"
    r"copy|draft|test|ignored?|not used|do not use|don'?t use|before|was)\b",
    re.IGNORECASE,
)


def header_key(text: object, explicit: Mapping[str, str] | None = None) -> str:
    """The normalised header (``normalize_header``) of a header cell; a header closing
    with a hint in brackets ("Destination URL (required)") is read as what is left when
    the whole is no column name linksync knows and what is left is one, unless the
    hint says the column is not that now ("URL (old)", "Slug (do not use)")."""
    key = normalize_header(text)
    if _named(key, explicit):
        return key
    hint = split_hint(str(text))
    if hint is None or _NOT_NOW.search(hint[1]):
        return key
    base = normalize_header(hint[0])
    return base if _named(base, explicit) else key


def _named(key: str, explicit: Mapping[str, str] | None) -> bool:
    """Whether a normalised header is a column name linksync knows (a field, export
    metadata, a row state)."""
    return known_field(key, explicit) is not None or key in _IGNORED or key in STATES


def split_hint(text: str) -> tuple[str, str] | None:
    """("Expires", "MM/DD/YYYY") of a header closing with a hint in brackets, or None."""
    text = text.strip()
    if len(text) > _HINT_MAX or not text.endswith((")", "]")):
        return None
    m = _HINT_RE.search(text)
    if m is None or not any(c.isalnum() or c == "_" for c in text[: m.start()]):
        return None
    return text[: m.start()], m.group(1).strip()


def _build_index() -> dict[str, tuple[str, int]]:
    index: dict[str, tuple[str, int]] = {}
    for fname, words in ALIASES.items():
        for rank, word in enumerate(words):
            index.setdefault(normalize_header(word), (fname, rank))
    for py_name, wire in API_NAMES.items():
        index.setdefault(normalize_header(wire), (py_name, 0))
    return index


_INDEX: dict[str, tuple[str, int]] = _build_index()
_IGNORED: frozenset[str] = frozenset(normalize_header(w) for w in IGNORED)
_LOOSE: frozenset[str] = frozenset(
    normalize_header(w)
    for f, words in LOOSE.items()
    for w in words
    if _INDEX.get(normalize_header(w), ("",))[0] == f
)
#: Normalised row-state header -> the values (case-folded) that agree with sending.
STATES: dict[str, frozenset[str]] = {
    normalize_header(h): frozenset(v.casefold() for v in fine) for h, fine in ROW_STATES.items()
}
_ANNOTATION = tuple(normalize_header(w) for w in ANNOTATION_RUN)


def is_header_word(key: str) -> bool:
    """Whether a normalised text is a column name linksync knows: an alias, export
    metadata, a row state or a numbered tags column."""
    return key in _INDEX or key in _IGNORED or key in STATES or numbered_tags(key)


def resolve_field_name(name: str) -> str | None:
    """A field given by the user (profile mapping): snake_case, wire name or alias
    (the alias index holds every field's own name and wire name, normalised).
    ``ignore`` / ``skip`` / empty means: ignore the column (returns "")."""
    key = normalize_header(name)
    if key in ("", "ignore", "skip", "none"):
        return ""
    if key == QUERY:
        return QUERY
    hit = _INDEX.get(key)
    return hit[0] if hit else None


@dataclass(frozen=True, slots=True)
class ColumnMatch:
    """How the headers of one sheet map to fields.

    ``fields`` maps field -> column index; ``fallbacks`` maps a field to further
    columns naming it too (worse aliases: "Title" beside "Description", Bitly's
    ``link`` beside ``custom_bitlinks``), read where the main column's cell is empty.
    ``headers`` holds the header text of every column (as written); ``unknown`` the
    headers nobody claimed (reported once); ``ignored`` the export metadata columns
    skipped on purpose. ``ranks`` holds the alias rank of each claiming column: two
    columns of one field and one rank mean the same thing, so values that differ are
    a conflict; different ranks are a documented preference (the better one first).
    ``guesses`` are the columns read by a loose word (``aliases.LOOSE``); ``held`` the
    (column, field) of loose guesses not read because they would change the URL or
    the password. The pseudo-field ``ROW_STATE`` (in ``fields``) gathers the columns
    whose header reads as a row state. ``hints`` maps a column whose header closes with
    a hint in brackets ("Expires (MM/DD/YYYY)") to the hint.
    """

    fields: Mapping[str, int]
    headers: tuple[str, ...]
    unknown: tuple[str, ...]
    ignored: tuple[str, ...]
    fallbacks: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    ranks: Mapping[int, int] = field(default_factory=dict)
    guesses: frozenset[int] = frozenset()
    held: tuple[tuple[int, str], ...] = ()
    hints: Mapping[int, str] = field(default_factory=dict)

    def columns_of(self, field_name: str) -> tuple[int, ...]:
        """Every column index feeding a field, best first."""
        return (self.fields[field_name], *self.fallbacks.get(field_name, ()))

    @property
    def used(self) -> list[int]:
        """Every column index some field reads."""
        return sorted({c for f in self.fields for c in self.columns_of(f)})

    def field_of(self, col: int) -> str | None:
        """The field column ``col`` feeds (first or further column of it), or None (a
        row-state column feeds none)."""
        return next((f for f in self.fields if f != ROW_STATE and col in self.columns_of(f)), None)

    def chosen(self, col: int) -> bool:
        """Whether column ``col`` feeds its field by the explicit mapping (``--map``,
        the profile's ``columns:``) rather than by an alias."""
        return self.ranks.get(col) == _CHOSEN

    def header_of(self, field_name: str) -> str:
        return self.headers[self.fields[field_name]]

    @property
    def provenance_columns(self) -> dict[str, str]:
        """field -> header, for Provenance.columns (short URL feeds domain and slug; a
        ``utm_*`` or query column is named by its header too)."""
        named = (*LINK_FIELDS, *UTM_FIELDS, QUERY)
        out = {f: self.headers[i] for f, i in self.fields.items() if f in named}
        if SHORT_URL in self.fields:
            short = self.headers[self.fields[SHORT_URL]]
            out.setdefault("domain", short)
            out.setdefault("slug", short)
        return out


def compile_mapping(mapping: Mapping[str, str] | None) -> dict[str, str]:
    """Normalised header -> field ("" to ignore) from a profile's ``columns:``.

    Raises ConfigError for a target field linksync does not know.
    """
    out: dict[str, str] = {}
    for header, target in (mapping or {}).items():
        fname = resolve_field_name(str(target)) if target is not None else ""
        if fname is None:
            known = ", ".join((*COLUMN_FIELDS, QUERY))
            raise ConfigError(
                f"column mapping: {header!r} -> {target!r}: unknown field (known: {known})"
            )
        out[normalize_header(header)] = fname
    return out


def match_columns(
    headers: Sequence[object], mapping: Mapping[str, str] | None = None
) -> ColumnMatch:
    """Map each header to a field: the explicit mapping first, then the aliases (a
    loose one is a guess, not read when it would change the URL or the password),
    then row states, export metadata and numbered tags columns."""
    explicit = compile_mapping(mapping)
    texts = tuple("" if h is None else str(h).strip() for h in headers)
    keys = [header_key(t, explicit) for t in texts]
    hints = {
        c: hint[1]
        for c, (t, k) in enumerate(zip(texts, keys, strict=True))
        if k != normalize_header(t) and (hint := split_hint(t)) is not None
    }
    own = _annotation_status(keys)
    claims: dict[str, list[tuple[int, int]]] = {}  # field -> [(rank, column)]
    unknown: list[str] = []
    ignored: list[str] = []
    guesses: set[int] = set()
    held: list[tuple[int, str]] = []
    for col, (text, key) in enumerate(zip(texts, keys, strict=True)):
        if not key:
            continue
        if key in explicit:
            fname = explicit[key]
            if not fname:
                ignored.append(text)
                continue
            rank = _CHOSEN
        elif key in _INDEX:
            fname, rank = _INDEX[key]
            if key in _LOOSE:
                if fname in HELD_FIELDS:
                    held.append((col, fname))
                    continue
                guesses.add(col)
        elif key in STATES and col != own:
            fname, rank = ROW_STATE, 0
        elif key in _IGNORED or col == own:
            ignored.append(text)
            continue
        elif numbered_tags(key):
            fname, rank = "tags", 100
        else:
            unknown.append(text)
            continue
        claims.setdefault(fname, []).append((rank, col))
    fields: dict[str, int] = {}
    fallbacks: dict[str, tuple[int, ...]] = {}
    ranks: dict[int, int] = {}
    for fname, found in sorted(claims.items(), key=lambda kv: min(c for _, c in kv[1])):
        ordered = [c for _, c in sorted(found)]
        fields[fname] = ordered[0]
        ranks.update({c: r for r, c in found})
        if len(ordered) > 1:
            fallbacks[fname] = tuple(ordered[1:])
    return ColumnMatch(
        fields,
        texts,
        tuple(unknown),
        tuple(ignored),
        fallbacks,
        ranks,
        frozenset(guesses),
        tuple(held),
        hints,
    )


def _annotation_status(keys: Sequence[str]) -> int | None:
    """The column of the "Status" linksync appended to an annotated copy (after its
    "Short link", before its "Error"), or None."""
    n = len(_ANNOTATION)
    for i in range(len(keys) - n + 1):
        if tuple(keys[i : i + n]) == _ANNOTATION:
            return i + 1
    return None


_NUMBERED_RE = re.compile(r"(?:tags?|labels?|categor(?:y|ies)|keywords?)\d{1,3}", re.ASCII)


def numbered_tags(key: str) -> bool:
    """'tag1' ('Tag 1'), 'labels3' (normalised headers): one of several tags columns."""
    return _NUMBERED_RE.fullmatch(key) is not None


def known_field(key: str, explicit: Mapping[str, str] | None = None) -> str | None:
    """The field a normalised header names: explicit mapping, alias or numbered tags
    column ("" when the mapping says to ignore it), else None."""
    if explicit and key in explicit:
        return explicit[key]
    hit = _INDEX.get(key)
    if hit is not None:
        return hit[0]
    return "tags" if numbered_tags(key) else None


def header_score(cells: Iterable[object], explicit: Mapping[str, str] | None = None) -> int:
    """How many cells of a row look like known headers (for header-row detection);
    a URL column counts twice. ``explicit``: a compiled mapping (``compile_mapping``)."""
    score = 0
    for cell in cells:
        if isinstance(cell, str) and cell.strip():
            fname = known_field(header_key(cell, explicit), explicit)
            if fname:
                score += 2 if fname in ("url", SHORT_URL) else 1
    return score


def find_header_row(
    rows: Sequence[Sequence[object]],
    *,
    scan: int = 30,
    explicit: Mapping[str, str] | None = None,
) -> int | None:
    """Index of the header row among the first ``scan`` rows: the first row with the
    best score. A header row names the URL or two known columns, and either names at
    least two known columns or has nothing else in it; so a title row above the
    header ("Spring campaign 2026") and a line of instructions that mentions
    "Destination URL" next to prose are both passed over."""
    best_row, best_score = None, 1
    for i, row in enumerate(rows[:scan]):
        score = header_score(row, explicit)
        if score <= best_score:
            continue
        texts = [c for c in row if isinstance(c, str) and c.strip()]
        known = sum(1 for c in texts if known_field(header_key(c, explicit), explicit))
        filled = sum(1 for c in row if c not in ("", None))
        if known >= 2 or known == filled:
            best_row, best_score = i, score
    return best_row


def map_flag(header: str, target: str) -> str:
    """The ``--map`` flag reading ``header`` as ``target``, quoted for a shell when the
    header needs it: ``--map Status=ignore``, ``--map "Link status=ignore"``."""
    pair = f"{header}={target}"
    return f"--map {pair}" if re.fullmatch(r"[\w.-]+=[\w.-]+", pair) else f'--map "{pair}"'
