"""Desired and remote links: ``LinkSpec`` (with its ``Provenance``), ``RemoteLink``,
their identity ``LinkKey``, the field names (Python and wire), and ``Problem``, what
validation says about a row (see ``linksync.model``).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from types import MappingProxyType
from typing import Any, NamedTuple

import msgspec

from linksync.model.declared import NOTHING_DECLARED, Declared
from linksync.model.records import dataclass_compatible
from linksync.model.short_urls import Named, short_url_holder
from linksync.safe.secrets import REDACTED

#: Every input field of a link, in the interface's order (Python names).
LINK_FIELDS: tuple[str, ...] = (
    "url",
    "slug",
    "domain",
    "description",
    "tags",
    "password",
    "expires_at",
    "apple",
    "google",
)

#: Python name -> wire name (the same name, but for the expiry).
API_NAMES: dict[str, str] = {name: name for name in LINK_FIELDS} | {"expires_at": "expiresAt"}
FIELD_FROM_API: dict[str, str] = {v: k for k, v in API_NAMES.items()}


class LinkKey(NamedTuple):
    """A link's identity on the service: (domain, slug), both folded to lower case.
    The empty domain stands for the service's own domain when it has no name yet."""

    domain: str
    slug: str

    @classmethod
    def of(cls, domain: str | None, slug: str) -> LinkKey:
        return cls(fold_domain(domain), fold_slug(slug))


#: Domain as given -> folded; the few domains of a run are folded once and their
#: folded text shared by every key (a million keys, one string per domain).
_FOLDED: dict[str, str] = {}


def fold_domain(domain: str | None) -> str:
    """A domain as a key holds it: edges stripped, lower case (one shared string)."""
    if not domain:
        return ""
    folded = _FOLDED.get(domain)
    if folded is None:
        if len(_FOLDED) > 4096:
            _FOLDED.clear()
        folded = _FOLDED[domain] = sys.intern(domain.strip().lower())
    return folded


def fold_slug(slug: str) -> str:
    """A slug as a key holds it: lower case; the slug itself when it is already."""
    folded = slug.lower()
    return slug if folded == slug else folded


#: Sources whose rows are lines and whose columns are keys (``Provenance.where``).
_LINE_SUFFIXES = (".yaml", ".yml")


def is_yaml_source(source: str | None) -> bool:
    """A YAML file: its rows are lines and its columns are keys, in every message."""
    return bool(source) and str(source).lower().endswith(_LINE_SUFFIXES)


#: Where a row came from, as (source, sheet, row): ``Provenance.place``.
Place = tuple[str, str | None, int | None]


def column_letter(col: int) -> str:
    """'A' for column 0, 'Z' for 25, 'AA' for 26 (as a spreadsheet names columns: the
    readers' messages, the annotated copy and the xlsx writer)."""
    letters = ""
    n = col + 1
    while n:
        n, rem = divmod(n - 1, 26)
        letters = chr(65 + rem) + letters
    return letters


def plain(value: Any) -> Any:
    """JSON types: tuples and sets as lists (sets sorted), mappings with text keys."""
    if isinstance(value, tuple | list | frozenset | set):
        items = [plain(v) for v in value]
        return sorted(items) if isinstance(value, frozenset | set) else items
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    return value


@dataclass_compatible
class Provenance(msgspec.Struct, frozen=True, gc=False):
    """Where a desired link came from, as the user sees it.

    ``row`` is 1-based as shown by a spreadsheet program (the header is usually row 1,
    so the first data row is 2); for YAML it is the line of the entry (``where`` says
    "line 9" and names keys, not columns). ``columns`` maps
    a field name to the column header (or YAML key) its value came from.
    ``timezone`` is the IANA zone its date-times without one were read in (``--timezone``;
    None: UTC), so an expiry is shown as the user wrote it. ``declared``: what a YAML
    file says of the link beyond its fields (``Declared``), None for most rows.

    A compact record (a ``msgspec.Struct`` that ``dataclasses.replace`` still copies),
    one per row, not tracked by the garbage collector.
    """

    source: str
    sheet: str | None = None
    row: int | None = None
    columns: Mapping[str, str] = msgspec.field(default_factory=dict)
    timezone: str | None = None
    declared: Declared | None = None

    @property
    def place(self) -> Place:
        """(source, sheet, row): what tells one source row from another."""
        return (self.source, self.sheet, self.row)

    def column_of(self, field_name: str) -> str | None:
        return self.columns.get(field_name)

    @property
    def is_yaml(self) -> bool:
        """A YAML file: its ``row`` is a line, its columns are keys."""
        return is_yaml_source(self.source)

    def where(self, field_name: str | None = None) -> str:
        """'campaign.xlsx, sheet Spring, row 7, column "Destination URL"';
        'links.yaml, line 9, key "url"'."""
        parts = [self.source]
        if self.sheet:
            parts.append(f"sheet {self.sheet}")
        if self.row is not None:
            parts.append(f"line {self.row}" if self.is_yaml else f"row {self.row}")
        if field_name:
            col = self.columns.get(field_name, field_name)
            parts.append(f'key "{col}"' if self.is_yaml else f'column "{col}"')
        return ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        out = {"source": self.source, "sheet": self.sheet, "row": self.row,
               "columns": dict(self.columns)}  # fmt: skip
        if self.timezone is not None:
            out["timezone"] = self.timezone
        if self.declared is not None:
            out["declared"] = self.declared.to_dict()
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Provenance:
        return cls(
            source=str(d["source"]),
            sheet=d.get("sheet"),
            row=d.get("row"),
            columns=dict(d.get("columns") or {}),
            timezone=d.get("timezone"),
            declared=Declared.from_dict(d["declared"]) if d.get("declared") else None,
        )


@dataclass_compatible
class LinkSpec(msgspec.Struct, frozen=True, gc=False):
    """A desired link as declared in a source.

    ``managed`` names the fields the source sets. A field not in ``managed`` is left
    alone on the remote (an empty spreadsheet cell); a field in ``managed`` whose value
    is None (or an empty tags tuple) clears the remote value (YAML ``null`` / ``[]``).

    A compact record (a ``msgspec.Struct`` that ``dataclasses.replace`` still copies):
    a million rows are a million of them, made fast and not tracked by the garbage
    collector.
    """

    url: str | None
    slug: str | None = None
    domain: str | None = None
    description: str | None = None
    tags: tuple[str, ...] | None = None
    password: str | None = None
    expires_at: str | None = None
    apple: str | None = None
    google: str | None = None
    managed: frozenset[str] = frozenset()
    provenance: Provenance | None = None

    @property
    def declared(self) -> Declared:
        """What its file says of it beyond its fields (``Declared``; empty for most)."""
        prov = self.provenance
        return (prov.declared if prov is not None else None) or NOTHING_DECLARED

    def to_dict(self) -> dict[str, Any]:
        """Every field (the password as ``"***"``), ``managed`` and the provenance."""
        out = {name: getattr(self, name) for name in LINK_FIELDS}
        out["tags"] = list(self.tags) if self.tags is not None else None
        out["password"] = REDACTED if self.password is not None else None
        out["managed"] = sorted(self.managed)
        out["provenance"] = self.provenance.to_dict() if self.provenance else None
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> LinkSpec:
        values = {name: d.get(name) for name in LINK_FIELDS}
        tags = values["tags"]
        values["tags"] = tuple(tags) if tags is not None else None
        return cls(
            **values,
            managed=frozenset(d.get("managed") or ()),
            provenance=Provenance.from_dict(d["provenance"]) if d.get("provenance") else None,
        )


#: Field -> name in a link record of the service, where the two differ. ``extra`` is
#: no field of the record: its name can never match a key the fast decoder meets
#: (``linksync.api.parse``).
WIRE_NAMES: dict[str, str] = {
    "short_url": "shortUrl",
    "has_password": "hasPassword",
    "expires_at": "expiresAt",
    "created_at": "createdAt",
    "updated_at": "updatedAt",
    "extra": "linksync:extra",
}

#: The ``extra`` of a record without unknown fields: one shared, read-only mapping.
NO_EXTRA: Mapping[str, Any] = MappingProxyType({})
_held_short_url, _bind_short_urls = short_url_holder()  # ``RemoteLink``'s short URL


@dataclass_compatible
class RemoteLink(
    msgspec.Struct, frozen=True, gc=False, forbid_unknown_fields=True, rename=WIRE_NAMES
):
    """A link as the service holds it. The password is never returned, only whether
    one is set. Unknown extra fields of the record are kept in ``extra``.

    A compact record (a ``msgspec.Struct``): about a fifth of the memory of a dict
    per link, decoded straight from a list page's bytes in the service's own shape
    (``linksync.api.parse``), and not tracked by the garbage collector (it holds
    text, a tuple of text and ``extra``'s plain JSON values, never itself)."""

    domain: Named
    slug: Named
    url: str
    id: str | None = None
    short_url: str | None = None
    description: str | None = None
    tags: tuple[str, ...] = ()
    apple: str | None = None
    google: str | None = None
    has_password: bool = False
    expires_at: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    extra: Mapping[str, Any] = NO_EXTRA

    __post_init__ = _held_short_url  # type: ignore[misc]  # the short URL not held as text

    @property
    def key(self) -> LinkKey:
        return LinkKey.of(self.domain, self.slug)

    def to_dict(self) -> dict[str, Any]:
        """The record in wire names, with the fields this version does not know."""
        return {
            **plain(self.extra),
            "id": self.id,
            "domain": self.domain,
            "slug": self.slug,
            "shortUrl": self.short_url,
            "url": self.url,
            "description": self.description,
            "tags": list(self.tags),
            "apple": self.apple,
            "google": self.google,
            "hasPassword": self.has_password,
            "expiresAt": self.expires_at,
            "createdAt": self.created_at,
            "updatedAt": self.updated_at,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RemoteLink:
        extra = {k: v for k, v in d.items() if k not in _REMOTE_KEYS}
        return cls(
            domain=str(d["domain"]),
            slug=str(d["slug"]),
            url=str(d.get("url") or ""),
            id=d.get("id"),
            short_url=d.get("shortUrl"),
            description=d.get("description"),
            tags=tuple(d.get("tags") or ()),
            apple=d.get("apple"),
            google=d.get("google"),
            has_password=bool(d.get("hasPassword", False)),
            expires_at=d.get("expiresAt"),
            created_at=d.get("createdAt"),
            updated_at=d.get("updatedAt"),
            extra=extra or NO_EXTRA,
        )


_bind_short_urls(RemoteLink)
_REMOTE_KEYS = frozenset(
    {"id", "domain", "slug", "shortUrl", "url", "description", "tags", "apple", "google",
     "hasPassword", "expiresAt", "createdAt", "updatedAt"}
)  # fmt: skip


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Problem:
    """One finding about one row (or one file), named with a constant of the one error
    table (``linksync.errors``).

    Warnings (e.g. an invisible character stripped by --fix-invisible) do not make
    the row invalid; errors do. ``column`` names the column (or YAML key) when it is
    not the one of ``field`` (an extra value beyond the header, an unknown key).
    """

    constant: str
    message: str
    provenance: Provenance | None = None
    field: str | None = None
    severity: Severity = Severity.ERROR
    column: str | None = None

    @property
    def column_name(self) -> str | None:
        """The column as the user sees it (header or YAML key), if any."""
        if self.column is not None:
            return self.column
        if self.field is None:
            return None
        p = self.provenance
        return (p.column_of(self.field) if p else None) or self.field

    def where(self) -> str:
        if self.provenance is None:
            return "(no source)"
        if self.column is not None:
            if self.provenance.is_yaml:  # a YAML message names its own key (and its line)
                return self.provenance.where()
            return f'{self.provenance.where()}, column "{self.column}"'
        return self.provenance.where(self.field)

    def to_dict(self) -> dict[str, Any]:
        """Where (source, sheet, row, and the column as the user sees it) for readers,
        plus the field and the whole provenance for ``from_dict``."""
        p = self.provenance
        return {
            "severity": self.severity.value,
            "constant": self.constant,
            "message": self.message,
            "source": p.source if p else None,
            "sheet": p.sheet if p else None,
            "row": p.row if p else None,
            "column": self.column_name,
            "field": self.field,
            "provenance": p.to_dict() if p else None,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Problem:
        prov = d.get("provenance")
        problem = cls(
            constant=str(d["constant"]),
            message=str(d.get("message") or ""),
            provenance=Provenance.from_dict(prov) if prov else None,
            field=d.get("field"),
            severity=Severity(d.get("severity", "error")),
        )
        # ``column`` holds the column as shown; it is the problem's own column only
        # when the field's does not already give that name.
        shown = d.get("column")
        if shown is not None and shown != problem.column_name:
            return replace(problem, column=shown)
        return problem
