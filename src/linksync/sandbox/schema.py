"""The sandbox's SQLite tables and the conversion of their rows: records (``rows``) to
column values and back (tags are JSON text in their column, a tuple in a record)."""

from __future__ import annotations

import dataclasses
import json
import operator
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import orjson

from linksync.sandbox.rows import LinkRow

R = TypeVar("R")

SCHEMA = """
CREATE TABLE IF NOT EXISTS links (
    id TEXT PRIMARY KEY,
    domain TEXT NOT NULL,
    slug TEXT NOT NULL,
    url TEXT NOT NULL,
    description TEXT,
    tags TEXT NOT NULL DEFAULT '[]',
    apple TEXT,
    google TEXT,
    password_hash TEXT,
    expires_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS links_domain_slug ON links (domain, slug COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS links_order ON links (created_at, id);
CREATE INDEX IF NOT EXISTS links_domain_order ON links (domain, created_at, id);
CREATE TABLE IF NOT EXISTS domains (
    id TEXT PRIMARY KEY,
    domain TEXT NOT NULL UNIQUE,
    status TEXT NOT NULL,
    ssl_status TEXT NOT NULL,
    root_redirect_url TEXT,
    not_found_redirect_url TEXT,
    created_at TEXT NOT NULL,
    verified_at TEXT
);
CREATE TABLE IF NOT EXISTS members (
    id TEXT PRIMARY KEY,
    email TEXT NOT NULL UNIQUE,
    role TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS clicks (
    month TEXT PRIMARY KEY,
    count INTEGER NOT NULL
);
"""

#: The links table's columns: ``LinkRow``'s fields, in their order.
_FIELDS = tuple(f.name for f in dataclasses.fields(LinkRow))
_TAGS = _FIELDS.index("tags")
_LINK_VALUES = operator.attrgetter(*_FIELDS)
LINK_COLUMNS = ", ".join(_FIELDS)

INSERT_LINK = f"INSERT INTO links ({LINK_COLUMNS}) VALUES ({','.join('?' * len(_FIELDS))})"


@dataclass(frozen=True, slots=True)
class RecordSql:
    """A link's wire record (``Backend.link_record``) encoded by SQLite itself:
    ``json_object`` of the columns, the same fields in the same order, so the first
    listing of a page costs no Python object per link. ``scheme`` makes ``shortUrl``."""

    scheme: str

    def select(self, count: int) -> tuple[str, tuple[str, ...]]:
        """The statement selecting (id, record) of ``count`` ids, and its leading
        arguments (the ids follow)."""
        marks = ",".join("?" * count)
        return f"SELECT id, {_RECORD} FROM links WHERE id IN ({marks})", (self.scheme,)


_RECORD = (
    "json_object('id', id, 'domain', domain, 'slug', slug, "
    "'shortUrl', ? || '://' || domain || '/' || slug, 'url', url, "
    "'description', description, 'tags', json(tags), 'apple', apple, 'google', google, "
    "'hasPassword', json(CASE WHEN password_hash IS NULL THEN 'false' ELSE 'true' END), "
    "'expiresAt', expires_at, 'createdAt', created_at, 'updatedAt', updated_at)"
)


def insert_row(db: sqlite3.Connection, table: str, row: Any) -> None:
    """INSERT a row dataclass of plain values (a domain, a member); its fields are columns."""
    names = [f.name for f in dataclasses.fields(row)]
    values = dataclasses.astuple(row)
    marks = ",".join("?" * len(names))
    db.execute(f"INSERT INTO {table} ({', '.join(names)}) VALUES ({marks})", values)


def link_values(link: LinkRow) -> tuple[Any, ...]:
    """A link's values in the order of ``LINK_COLUMNS`` (tags as JSON text)."""
    values = _LINK_VALUES(link)
    tags = json.dumps(list(link.tags)) if link.tags else "[]"
    return (*values[:_TAGS], tags, *values[_TAGS + 1 :])


def link_row(_: sqlite3.Cursor, row: tuple[Any, ...]) -> LinkRow:
    """A cursor's row of ``LINK_COLUMNS`` as a ``LinkRow`` (a row factory)."""
    values = list(row)
    values[_TAGS] = tags_of(values[_TAGS])
    return LinkRow(*values)


def tags_of(text: str) -> tuple[str, ...]:
    """The tags column (JSON text) as a tuple."""
    return () if text == "[]" else tuple(orjson.loads(text))


def record(make: Callable[..., R], row: sqlite3.Row) -> R:
    """A record of a table whose columns are its fields (tags: JSON text, as a tuple)."""
    values = {k: row[k] for k in row.keys()}  # noqa: SIM118
    if "tags" in values:
        values["tags"] = tags_of(values["tags"])
    return make(**values)


def casefold_or_none(value: str | None) -> str | None:
    return value.casefold() if value is not None else None
