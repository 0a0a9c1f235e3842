"""SQLite state of the sandbox: links, custom domains, members, monthly clicks.

Plain Python, no HTTP. One connection guarded by a lock; every write runs in a
``BEGIN IMMEDIATE`` transaction, so checks and inserts are atomic even across
processes sharing one file (two links with one slug on a domain are impossible: the
check runs in the transaction and a unique index backs it). Slugs are unique per
domain case-insensitively; host names are stored lower-case. Timestamps are ISO 8601
UTC strings with milliseconds, so text order is time order. Listing pages and counting
links use the in-memory order of ``order.LinkOrder`` (any page in O(page) time).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from linksync.safe.state_folder import make_folder
from linksync.sandbox.order import ALL, LinkOrder
from linksync.sandbox.rows import (
    AlreadyExists,
    DomainRow,
    LinkRow,
    MemberRow,
    QuotaReached,
    SlugTaken,
)
from linksync.sandbox.schema import (
    INSERT_LINK,
    LINK_COLUMNS,
    SCHEMA,
    RecordSql,
    casefold_or_none,
    insert_row,
    link_row,
    link_values,
    record,
)

SCHEMA_VERSION = 1


class Store:
    """The sandbox state. ``path`` is a file or ``":memory:"``."""

    def __init__(self, path: str = ":memory:") -> None:
        if path != ":memory:":
            make_folder(Path(path).parent)
        self.path = path
        self._lock = threading.RLock()
        self._order = LinkOrder()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._db.create_function("casefold", 1, casefold_or_none, deterministic=True)
        self._db.execute("PRAGMA busy_timeout = 10000")
        # up to 64 MB of pages kept (SQLite's default is 2 MB): the indexes of a big
        # workspace stay in memory, for its first listing and its inserts
        self._db.execute("PRAGMA cache_size = -65536")
        if path != ":memory:":
            self._db.execute("PRAGMA journal_mode = WAL")
            # WAL + NORMAL: a commit survives the process dying, not a power cut; an
            # fsync per write would cap a file-backed sandbox near 100 writes/s
            self._db.execute("PRAGMA synchronous = NORMAL")
        with self._lock:
            self._db.executescript(SCHEMA)
            self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Lock + ``BEGIN IMMEDIATE``; commit on success, roll back on error."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _read(self, sql: str, args: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return list(self._db.execute(sql, args))

    # --- links ----------------------------------------------------------------------

    def insert_link(self, link: LinkRow, *, link_quota: int) -> LinkRow:
        """Insert atomically; raises SlugTaken or QuotaReached (uniqueness first)."""
        with self._lock:
            with self.transaction() as db:
                self._order.sync(db)
                if self._order.count(db) >= link_quota:
                    taken = db.execute(
                        "SELECT 1 FROM links WHERE domain = ? AND slug = ? COLLATE NOCASE",
                        (link.domain, link.slug),
                    ).fetchone()
                    raise SlugTaken(link.slug) if taken else QuotaReached(str(link_quota))
                try:  # the unique index on (domain, slug) refuses a slug taken
                    db.execute(INSERT_LINK, link_values(link))
                except sqlite3.IntegrityError:
                    raise SlugTaken(link.slug) from None
            self._order.added(link.domain, (link.created_at, link.id))
        return link

    def import_links(self, links: Iterable[LinkRow]) -> int:
        """Insert many links in one transaction, without the quota check (seeding a big
        workspace); a slug taken raises SlugTaken and nothing is imported. The count."""
        values = (link_values(link) for link in links)
        with self._lock:
            try:
                with self.transaction() as db:
                    count = db.executemany(INSERT_LINK, values).rowcount
            except sqlite3.IntegrityError as exc:
                raise SlugTaken(str(exc)) from None
            finally:
                self._order.forget()
        return int(count)

    def get_link(self, domain: str, slug: str) -> LinkRow | None:
        where = "domain = ? AND slug = ? COLLATE NOCASE"
        with self._lock:
            return _one_link(self._db, where, (domain, slug))

    def update_link(self, link_id: str, changes: Mapping[str, Any], updated_at: str) -> LinkRow:
        """Apply column changes (column names of ``LinkRow``; tags as a tuple); a link
        gone meanwhile raises LookupError."""
        allowed = {"url", "description", "tags", "apple", "google", "password_hash"}
        cols = [c for c in changes if c in allowed]
        values = [
            json.dumps(list(changes[c])) if c == "tags" else changes[c]  # tags as JSON text
            for c in cols
        ]
        assignments = ", ".join(f"{c} = ?" for c in [*cols, "updated_at"])
        with self.transaction() as db:
            cursor = db.execute(
                f"UPDATE links SET {assignments} WHERE id = ? RETURNING {LINK_COLUMNS}",
                (*values, updated_at, link_id),
            )
            cursor.row_factory = link_row
            link: LinkRow | None = cursor.fetchone()
            cursor.close()  # the statement done before the COMMIT
            self._order.changed(link_id)
            if link is None:  # deleted by another connection since the caller read it
                raise LookupError(link_id)
            return link

    def delete_link(self, link_id: str) -> bool:
        with self._lock:
            with self.transaction() as db:
                self._order.sync(db)
                row = db.execute("SELECT domain, created_at FROM links WHERE id = ?", (link_id,))
                found = row.fetchone()
                if found is None:
                    return False
                db.execute("DELETE FROM links WHERE id = ?", (link_id,))
            self._order.removed(found["domain"], (found["created_at"], link_id))
            return True

    def count_links(self) -> int:
        with self._lock:
            self._order.sync(self._db)
            return self._order.count(self._db)

    def list_links(
        self,
        *,
        offset: int,
        limit: int,
        search: str | None = None,
        tag: str | None = None,
        domain: str | None = None,
    ) -> tuple[list[LinkRow], int]:
        """One page ordered by (created_at, id), and the total matching."""
        if not search and not tag:
            return self._page(domain or ALL, offset, limit)
        where: list[str] = []
        args: list[Any] = []
        if search:
            where.append(
                "(instr(casefold(slug), ?) > 0 OR instr(casefold(url), ?) > 0 "
                "OR instr(casefold(coalesce(description, '')), ?) > 0)"
            )
            needle = search.casefold()
            args += [needle, needle, needle]
        if tag:
            where.append("EXISTS (SELECT 1 FROM json_each(links.tags) WHERE value = ?)")
            args.append(tag)
        if domain:
            where.append("domain = ?")
            args.append(domain)
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        with self._lock:
            (total,) = self._db.execute(f"SELECT count(*) FROM links {clause}", args).fetchone()
            rows = self._db.execute(
                f"SELECT {LINK_COLUMNS} FROM links {clause} "
                "ORDER BY created_at, id LIMIT ? OFFSET ?",
                (*args, limit, offset),
            ).fetchall()
        return [record(LinkRow, r) for r in rows], int(total)

    def _page(self, domain: str | None, offset: int, limit: int) -> tuple[list[LinkRow], int]:
        """A page of one domain (or of every link) from the in-memory list order."""
        with self._lock:
            self._order.sync(self._db)
            keys = self._order.keys(self._db, domain)
            ids = [key[1] for key in keys[offset : offset + limit]]
            by_id = {link.id: link for link in self._links_by_id(ids)}
            return [by_id[i] for i in ids if i in by_id], len(keys)

    def page_encoded(
        self, domain: str | None, offset: int, limit: int, records: RecordSql
    ) -> tuple[list[bytes], int]:
        """The page ``list_links`` gives without search or tag, each link's record as
        SQLite encodes it (``records``): kept from earlier pages until the link changes
        (its update or deletion, its domain's deletion, a commit of another connection)."""
        with self._lock:
            self._order.sync(self._db)
            keys = self._order.keys(self._db, domain)
            ids = [key[1] for key in keys[offset : offset + limit]]
            encoded = self._order.encoded_by(records)
            missing = [i for i in ids if i not in encoded]
            if missing:
                sql, head = records.select(len(missing))
                for link_id, text in self._db.execute(sql, (*head, *missing)):
                    encoded[link_id] = text.encode("utf-8")
            return [encoded[i] for i in ids if i in encoded], len(keys)

    def _links_by_id(self, ids: list[str]) -> list[LinkRow]:
        """The links of these ids that exist, in no particular order (lock held)."""
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        cursor = self._db.execute(f"SELECT {LINK_COLUMNS} FROM links WHERE id IN ({marks})", ids)
        cursor.row_factory = link_row
        return list(cursor)

    # --- domains --------------------------------------------------------------------

    def insert_domain(self, row: DomainRow, *, quota: int) -> DomainRow:
        """Raises AlreadyExists (first) or QuotaReached."""
        with self.transaction() as db:
            if db.execute("SELECT 1 FROM domains WHERE domain = ?", (row.domain,)).fetchone():
                raise AlreadyExists(row.domain)
            (count,) = db.execute("SELECT count(*) FROM domains").fetchone()
            if count >= quota:
                raise QuotaReached(str(quota))
            insert_row(db, "domains", row)
        return row

    def get_domain(self, domain_id: str) -> DomainRow | None:
        rows = self._read("SELECT * FROM domains WHERE id = ?", (domain_id,))
        return record(DomainRow, rows[0]) if rows else None

    def find_domain(self, host: str) -> DomainRow | None:
        rows = self._read("SELECT * FROM domains WHERE domain = ?", (host.lower(),))
        return record(DomainRow, rows[0]) if rows else None

    def list_domains(self) -> list[DomainRow]:
        rows = self._read("SELECT * FROM domains ORDER BY created_at, id")
        return [record(DomainRow, r) for r in rows]

    def count_domains(self) -> int:
        return int(self._read("SELECT count(*) FROM domains")[0][0])

    def set_domain_status(self, domain_id: str, status: str, ssl: str, at: str) -> DomainRow:
        with self.transaction() as db:
            db.execute(
                "UPDATE domains SET status = ?, ssl_status = ?, verified_at = ? WHERE id = ?",
                (status, ssl, at, domain_id),
            )
            row = db.execute("SELECT * FROM domains WHERE id = ?", (domain_id,)).fetchone()
            return record(DomainRow, row)

    def delete_domain(self, domain_id: str) -> int | None:
        """Delete a domain and its links; the number of links removed, None if unknown."""
        with self.transaction() as db:
            row = db.execute("SELECT domain FROM domains WHERE id = ?", (domain_id,)).fetchone()
            if row is None:
                return None
            removed = db.execute("DELETE FROM links WHERE domain = ?", (row["domain"],)).rowcount
            db.execute("DELETE FROM domains WHERE id = ?", (domain_id,))
            self._order.forget()
            return int(removed)

    # --- members --------------------------------------------------------------------

    def insert_member(self, row: MemberRow) -> MemberRow:
        with self.transaction() as db:
            if db.execute("SELECT 1 FROM members WHERE email = ?", (row.email,)).fetchone():
                raise AlreadyExists(row.email)
            insert_row(db, "members", row)
        return row

    def list_members(self) -> list[MemberRow]:
        rows = self._read("SELECT * FROM members ORDER BY created_at, id")
        return [record(MemberRow, r) for r in rows]

    def has_owner(self) -> bool:
        return bool(self._read("SELECT 1 FROM members WHERE role = 'owner' LIMIT 1"))

    # --- clicks ---------------------------------------------------------------------

    def add_click(self, month: str) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT INTO clicks (month, count) VALUES (?, 1) "
                "ON CONFLICT(month) DO UPDATE SET count = count + 1",
                (month,),
            )

    def clicks(self, month: str) -> int:
        rows = self._read("SELECT count FROM clicks WHERE month = ?", (month,))
        return int(rows[0][0]) if rows else 0


def _one_link(db: sqlite3.Connection, where: str, args: tuple[Any, ...]) -> LinkRow | None:
    cursor = db.execute(f"SELECT {LINK_COLUMNS} FROM links WHERE {where}", args)
    cursor.row_factory = link_row
    found: LinkRow | None = cursor.fetchone()
    return found


def remove_state(path: str | Path) -> list[Path]:
    """Delete a sandbox state file and its SQLite side files; the paths removed."""
    base = Path(path)
    removed: list[Path] = []
    for p in (base, base.with_name(base.name + "-wal"), base.with_name(base.name + "-shm")):
        if p.exists():
            p.unlink()
            removed.append(p)
    return removed
