"""The list order of the sandbox's links, kept in memory: any page in O(page) time.

``GET /links`` pages by number (``page``, ``limit``) in (created_at, id) order, with the
total. In SQL, page n of a domain costs an OFFSET walk of (n - 1) x limit index entries
and the total a count of the whole domain: listing a 100,000-link domain page by page
costs O(n^2). Here each listed scope (one domain, or every link) keeps its keys
(created_at, id) as a sorted list, built once from the ``(domain, created_at, id)``
index: a page is a slice of that list (keyset order) and the total its length.

The lists follow this store's own writes (insert, delete) and are dropped when another
connection changed the database file (``PRAGMA data_version``), to be built again on
the next listing. The link count (the quota check of every create) is kept the same way,
and so are the links already encoded for a list page (``encoded``: id -> the bytes of
its record, dropped when the link is updated or deleted): a page listed again costs
no SQL and no encoding.
"""

from __future__ import annotations

import bisect
import sqlite3
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from linksync.sandbox.schema import RecordSql

Key = tuple[str, str]  # (created_at, id)

#: Scope of the list of every link (no domain filter).
ALL: str | None = None


class LinkOrder:
    """Sorted keys per listed scope, and the number of links; see the module docstring.
    The caller holds the store's lock around every call."""

    def __init__(self) -> None:
        self._keys: dict[str | None, list[Key]] = {}
        self._count: int | None = None
        self._version: int | None = None
        self.encoded: dict[str, bytes] = {}
        self._encoder: RecordSql | None = None

    def sync(self, db: sqlite3.Connection) -> None:
        """Drop everything when another connection committed since the last look."""
        (version,) = db.execute("PRAGMA data_version").fetchone()
        if version != self._version:
            self.forget()
            self._version = int(version)

    def forget(self) -> None:
        self._keys.clear()
        self._count = None
        self.encoded.clear()

    def encoded_by(self, encoder: RecordSql) -> dict[str, bytes]:
        """The links encoded so far by ``encoder`` (id -> bytes; another encoder than
        the last one starts afresh)."""
        if encoder != self._encoder:
            self.encoded.clear()
            self._encoder = encoder
        return self.encoded

    def changed(self, link_id: str) -> None:
        """A link's values changed: its encoded record is stale."""
        self.encoded.pop(link_id, None)

    def count(self, db: sqlite3.Connection) -> int:
        if self._count is None:
            (n,) = db.execute("SELECT count(*) FROM links").fetchone()
            self._count = int(n)
        return self._count

    def keys(self, db: sqlite3.Connection, domain: str | None) -> list[Key]:
        """The scope's keys in list order (built on first use)."""
        keys = self._keys.get(domain)
        if keys is None:
            if domain is ALL:
                rows = db.execute("SELECT created_at, id FROM links ORDER BY created_at, id")
            else:
                rows = db.execute(
                    "SELECT created_at, id FROM links WHERE domain = ? ORDER BY created_at, id",
                    (domain,),
                )
            keys = self._keys[domain] = [(str(c), str(i)) for c, i in rows]
        return keys

    def added(self, domain: str, key: Key) -> None:
        for scope in (ALL, domain):
            keys = self._keys.get(scope)
            if keys is not None:
                bisect.insort(keys, key)
        if self._count is not None:
            self._count += 1

    def removed(self, domain: str, key: Key) -> None:
        self.encoded.pop(key[1], None)
        for scope in (ALL, domain):
            keys = self._keys.get(scope)
            if keys is not None:
                at = bisect.bisect_left(keys, key)
                if at < len(keys) and keys[at] == key:
                    del keys[at]
        if self._count is not None:
            self._count -= 1
