"""Column headers -> link fields: aliases, explicit mappings, header-row detection.

Headers are compared after ``normalize_header``: case-folded, with every space and
punctuation character removed, so ``Destination URL``, ``destination_url`` and
``DESTINATION-URL`` are the same column.

The aliases cover the words people use in campaign sheets and the column names of
other products' CSV exports, so such a file imports without a hand-written mapping:

- Bitly: its link records and exports use ``link`` / ``Bitlink`` (the short link),
  ``long_url``, ``title``, ``tags``, ``custom_bitlinks`` / "Custom back-half",
  ``created_at``, ``clicks`` (field list of the Bitlinks entity in Coupler.io's Bitly
  data overview; "back-half" is Bitly's own word in its API docs).
- Dub: "Link", "Domain", "Key", "URL" / "Destination URL", "Title", "Description",
  "Tags", "Expires At", "iOS", "Android", "Clicks", "Created At", "ID" (Dub's link
  export and its documented link fields: ``key``, ``domain``, ``url``, ``ios``,
  ``android``, ``expiresAt``).
- Short.io: "Original URL", "Short URL", "Path", "Title", "Tags", "Expires At",
  "iPhone URL" / "Android URL", "Password", "Created At", "Clicks" (its API fields
  ``originalURL``, ``path``, ``iphoneURL``, ``androidURL``; the shortcm-cli importer
  names "path", "original URL", "title", "created at" columns).
- Shlink: "Short URL", "Long URL", "Short code", "Title", "Tags", "Domain",
  "Created at", "Visits" (its short URL record: ``shortCode``, ``shortUrl``,
  ``longUrl``, ``dateCreated``, ``tags``, ``title``, ``domain``).

Columns that are clearly metadata of an export (ids, click counts, creation dates,
QR codes, archive flags) are ignored silently; any other unknown column is reported
once per sheet.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from linksync.errors import ConfigError
from linksync.model import API_NAMES, FIELD_FROM_API, LINK_FIELDS

#: Pseudo-field: a full short URL (``https://go.example.com/spring``), split into
#: domain and slug.
SHORT_URL = "short_url"

#: UTM parameters merged into the destination URL's query.
UTM_FIELDS: tuple[str, ...] = (
    "utm_source",
    "utm_medium",
    "utm_campaign",
    "utm_term",
    "utm_content",
)

#: Every field a column can feed, in a stable order.
COLUMN_FIELDS: tuple[str, ...] = (*LINK_FIELDS, SHORT_URL, *UTM_FIELDS)

#: Field -> header words, best first. When two columns of one sheet match the same
#: field, the one whose alias comes first wins and the other is reported as unknown.
ALIASES: dict[str, tuple[str, ...]] = {
    "url": (
        "url",
        "destination url",
        "destination",
        "long url",
        "long_url",
        "longurl",
        "original url",
        "originalurl",
        "target url",
        "target",
        "landing page",
        "landing page url",
        "landing url",
        "redirect url",
        "redirect to",
        "full url",
        "website",
        "web address",
        "link url",
        "destination link",
    ),
    "slug": (
        "slug",
        "key",
        "short code",
        "shortcode",
        "short_code",
        "back-half",
        "back half",
        "custom back-half",
        "custom back half",
        "custom ending",
        "custom slug",
        "custom alias",
        "alias",
        "path",
        "keyword",
        "short key",
        "short path",
        "code",
        "vanity",
        "vanity url",
    ),
    "domain": (
        "domain",
        "short domain",
        "branded domain",
        "custom domain",
        "host",
        "hostname",
    ),
    "description": (
        "description",
        "title",
        "memo",
        "name",
        "link name",
        "label",
        "note",
        "notes",
        "comment",
        "comments",
        "link title",
    ),
    "tags": ("tags", "tag", "labels", "categories", "category", "keywords"),
    "password": ("password", "link password", "passcode", "pass"),
    "expires_at": (
        "expires at",
        "expiresat",
        "expires_at",
        "expires",
        "expiry",
        "expiry date",
        "expiration",
        "expiration date",
        "expiration time",
        "expire at",
        "expire",
        "expires on",
        "end date",
        "valid until",
        "valid to",
    ),
    "apple": (
        "apple",
        "ios",
        "ios url",
        "ios link",
        "iphone url",
        "iphoneurl",
        "iphone",
        "apple url",
        "app store url",
        "ios destination",
        "ios redirect",
    ),
    "google": (
        "google",
        "android",
        "android url",
        "androidurl",
        "android link",
        "google play url",
        "play store url",
        "android destination",
        "android redirect",
    ),
    SHORT_URL: (
        "custom bitlinks",
        "custom bitlink",
        "short url",
        "shorturl",
        "short_url",
        "short link",
        "shortlink",
        "shortened url",
        "short",
        "link",
        "bitlink",
        "bitly link",
        "tiny url",
    ),
    "utm_source": ("utm_source", "utm source", "source", "campaign source"),
    "utm_medium": ("utm_medium", "utm medium", "medium", "campaign medium"),
    "utm_campaign": ("utm_campaign", "utm campaign", "campaign", "campaign name"),
    "utm_term": ("utm_term", "utm term", "term", "campaign term"),
    "utm_content": ("utm_content", "utm content", "content", "campaign content"),
}

#: Export metadata columns ignored without a word.
IGNORED: tuple[str, ...] = (
    "id",
    "idstring",
    "link id",
    "clicks",
    "total clicks",
    "click count",
    "visits",
    "visits count",
    "engagements",
    "created",
    "created at",
    "created date",
    "date created",
    "creation date",
    "updated",
    "updated at",
    "modified",
    "last modified",
    "archived",
    "qr code",
    "qr",
    "has password",
    "haspassword",
    "status",
    "action",
    "result",
    "message",
    "error",
    "error constant",
    "error code",
    "http status",
    "request id",
    "attempts",
    "changed fields",
    "user",
    "created by",
    "owner",
    "group",
    "group guid",
    "workspace",
    "folder",
)

_PUNCT_RE = re.compile(r"[\W_]+", re.UNICODE)


def normalize_header(header: object) -> str:
    """'Destination URL' -> 'destinationurl' (case, spaces and punctuation ignored)."""
    return _PUNCT_RE.sub("", str(header)).casefold()


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


def field_for_header(header: str) -> str | None:
    """The field a header names by alias, or None."""
    hit = _INDEX.get(normalize_header(header))
    return hit[0] if hit else None


def resolve_field_name(name: str) -> str | None:
    """A field given by the user (profile mapping): snake_case, wire name or alias.
    ``ignore`` / ``skip`` / empty means: ignore the column (returns "")."""
    key = normalize_header(name)
    if key in ("", "ignore", "skip", "none"):
        return ""
    for fname in COLUMN_FIELDS:
        if normalize_header(fname) == key:
            return fname
    if name in FIELD_FROM_API:
        return FIELD_FROM_API[name]
    return field_for_header(name)


@dataclass(frozen=True, slots=True)
class ColumnMatch:
    """How the headers of one sheet map to fields.

    ``fields`` maps field -> column index; ``fallbacks`` maps a field to further
    columns naming it too (worse aliases: "Title" beside "Description", Bitly's
    ``link`` beside ``custom_bitlinks``), read where the main column's cell is empty.
    ``headers`` holds the header text of every column (as written); ``unknown`` the
    headers nobody claimed (reported once); ``ignored`` the export metadata columns
    skipped on purpose.
    """

    fields: Mapping[str, int]
    headers: tuple[str, ...]
    unknown: tuple[str, ...]
    ignored: tuple[str, ...]
    fallbacks: Mapping[str, tuple[int, ...]] = field(default_factory=dict)

    def columns_of(self, field_name: str) -> tuple[int, ...]:
        """Every column index feeding a field, best first."""
        return (self.fields[field_name], *self.fallbacks.get(field_name, ()))

    @property
    def used(self) -> list[int]:
        """Every column index some field reads."""
        return sorted({c for f in self.fields for c in self.columns_of(f)})

    def header_of(self, field_name: str) -> str:
        return self.headers[self.fields[field_name]]

    @property
    def provenance_columns(self) -> dict[str, str]:
        """field -> header, for Provenance.columns (short URL feeds domain and slug)."""
        out = {f: self.headers[i] for f, i in self.fields.items() if f in LINK_FIELDS}
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
            known = ", ".join(COLUMN_FIELDS)
            raise ConfigError(
                f"column mapping: {header!r} -> {target!r}: unknown field (known: {known})"
            )
        out[normalize_header(header)] = fname
    return out


def match_columns(
    headers: Sequence[object], mapping: Mapping[str, str] | None = None
) -> ColumnMatch:
    """Map each header to a field: the explicit mapping first, then the aliases."""
    explicit = compile_mapping(mapping)
    texts = tuple("" if h is None else str(h).strip() for h in headers)
    claims: dict[str, list[tuple[int, int]]] = {}  # field -> [(rank, column)]
    unknown: list[str] = []
    ignored: list[str] = []
    for col, text in enumerate(texts):
        key = normalize_header(text)
        if not key:
            continue
        if key in explicit:
            fname = explicit[key]
            if not fname:
                ignored.append(text)
                continue
            rank = -1
        elif key in _INDEX:
            fname, rank = _INDEX[key]
        elif key in _IGNORED:
            ignored.append(text)
            continue
        else:
            unknown.append(text)
            continue
        claims.setdefault(fname, []).append((rank, col))
    fields: dict[str, int] = {}
    fallbacks: dict[str, tuple[int, ...]] = {}
    for fname, found in sorted(claims.items(), key=lambda kv: min(c for _, c in kv[1])):
        ordered = [c for _, c in sorted(found)]
        fields[fname] = ordered[0]
        if len(ordered) > 1:
            fallbacks[fname] = tuple(ordered[1:])
    return ColumnMatch(fields, texts, tuple(unknown), tuple(ignored), fallbacks)


def header_score(cells: Iterable[object]) -> int:
    """How many cells of a row look like known headers (for header-row detection)."""
    score = 0
    for cell in cells:
        if isinstance(cell, str) and cell.strip():
            key = normalize_header(cell)
            if key in _INDEX:
                score += 2 if _INDEX[key][0] in ("url", SHORT_URL) else 1
    return score


def find_header_row(rows: Sequence[Sequence[object]], *, scan: int = 30) -> int | None:
    """Index of the header row among the first ``scan`` rows: the first row with the
    best score. A header row names the URL or two known columns, and either names at
    least two known columns or has nothing else in it; so a title row above the
    header ("Spring campaign 2026") and a line of instructions that mentions
    "Destination URL" next to prose are both passed over."""
    best_row, best_score = None, 1
    for i, row in enumerate(rows[:scan]):
        score = header_score(row)
        if score <= best_score:
            continue
        texts = [c for c in row if isinstance(c, str) and c.strip()]
        known = sum(1 for c in texts if normalize_header(c) in _INDEX)
        filled = sum(1 for c in row if c not in ("", None))
        if known >= 2 or known == filled:
            best_row, best_score = i, score
    return best_row
