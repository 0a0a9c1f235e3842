"""The store's in-memory list order (``sandbox.order``): every page, in any order, is
the page SQL's ORDER BY (created_at, id) gives, through this store's writes and through
writes of another connection to the same database file."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from linksync.sandbox.rows import LinkRow, SlugTaken
from linksync.sandbox.store import Store

QUOTA = 1_000_000


def link(i: int, domain: str = "lnk.test", second: int | None = None) -> LinkRow:
    ts = f"2026-01-01T00:00:{(second if second is not None else i % 7):02d}.000Z"
    return LinkRow(
        id=f"lnk_{random.Random(i).getrandbits(40):010x}",
        domain=domain,
        slug=f"s{i}",
        url=f"https://example.com/{i}",
        description=None,
        tags=("t",),
        apple=None,
        google=None,
        password_hash=None,
        expires_at=None,
        created_at=ts,
        updated_at=ts,
    )


def sql_order(store: Store, domain: str | None) -> list[str]:
    where, args = ("WHERE domain = ?", (domain,)) if domain else ("", ())
    rows = store._read(f"SELECT slug FROM links {where} ORDER BY created_at, id", args)
    return [r["slug"] for r in rows]


def paged(store: Store, domain: str | None, limit: int) -> tuple[list[str], set[int]]:
    """Every page, asked in a shuffled order, put back in page order; and the totals."""
    _, total = store.list_links(offset=0, limit=limit, domain=domain)
    pages = list(range(max(1, -(-total // limit))))
    random.Random(3).shuffle(pages)
    got: dict[int, list[str]] = {}
    totals = {total}
    for p in pages:
        rows, t = store.list_links(offset=p * limit, limit=limit, domain=domain)
        got[p] = [r.slug for r in rows]
        totals.add(t)
    return [s for p in sorted(got) for s in got[p]], totals


def test_pages_follow_sql_order_through_inserts_and_deletes() -> None:
    store = Store()
    for i in range(250):
        store.insert_link(link(i, "go.example.com" if i % 3 == 0 else "lnk.test"), link_quota=QUOTA)
    for domain in (None, "lnk.test", "go.example.com"):
        slugs, totals = paged(store, domain, 30)
        assert slugs == sql_order(store, domain) and totals == {len(slugs)}
    # writes after the order was built: inserts in the middle of the order, deletes
    for i in range(250, 300):
        store.insert_link(link(i, "lnk.test", second=i % 5), link_quota=QUOTA)
    for i in range(0, 300, 11):
        domain = "go.example.com" if i % 3 == 0 and i < 250 else "lnk.test"
        found = store.get_link(domain, f"s{i}")
        assert found is not None and store.delete_link(found.id)
    assert not store.delete_link("lnk_missing")
    for domain in (None, "lnk.test", "go.example.com"):
        slugs, totals = paged(store, domain, 17)
        assert slugs == sql_order(store, domain) and totals == {len(slugs)}
    assert store.count_links() == len(sql_order(store, None))
    past, total = store.list_links(offset=10_000, limit=100)
    assert past == [] and total == store.count_links()


def test_writes_of_another_connection_are_seen(tmp_path: Path) -> None:
    path = str(tmp_path / "sandbox.db")
    ours, theirs = Store(path), Store(path)
    try:
        for i in range(40):
            ours.insert_link(link(i), link_quota=QUOTA)
        assert paged(ours, "lnk.test", 10)[0] == sql_order(ours, "lnk.test")
        assert ours.count_links() == 40
        for i in range(40, 55):
            theirs.insert_link(link(i, second=i % 3), link_quota=QUOTA)
        gone = theirs.get_link("lnk.test", "s5")
        assert gone is not None and theirs.delete_link(gone.id)
        slugs, totals = paged(ours, "lnk.test", 10)
        assert slugs == sql_order(ours, "lnk.test") and totals == {54}
        assert ours.count_links() == 54
    finally:
        ours.close()
        theirs.close()


def test_import_links_seeds_a_workspace_in_one_transaction(tmp_path: Path) -> None:
    path = str(tmp_path / "sandbox.db")
    store = Store(path)
    try:
        assert store.import_links(link(i) for i in range(500)) == 500
        assert store.count_links() == 500
        assert paged(store, None, 100)[0] == sql_order(store, None)
        found = store.get_link("lnk.test", "S42")  # slugs stay unique case-insensitively
        assert found is not None and found.tags == ("t",)
        with pytest.raises(SlugTaken):  # one taken slug: nothing of the batch is kept
            store.import_links(link(i) for i in (500, 501, 7))
        assert store.count_links() == 500 and store.get_link("lnk.test", "s500") is None
    finally:
        store.close()
    again = Store(path)
    assert again.count_links() == 500  # committed to the file
    again.close()


def test_an_update_of_a_link_deleted_meanwhile_is_refused(tmp_path: Path) -> None:
    path = str(tmp_path / "sandbox.db")
    ours, theirs = Store(path), Store(path)
    try:
        ours.insert_link(link(1), link_quota=QUOTA)
        found = ours.get_link("lnk.test", "s1")
        assert found is not None and theirs.delete_link(found.id)
        with pytest.raises(LookupError):
            ours.update_link(found.id, {"url": "https://example.com/x"}, "2026-01-02T00:00:00.000Z")
    finally:
        ours.close()
        theirs.close()
