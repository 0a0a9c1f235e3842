"""Rows that plan nothing and say nothing are counted, not held as a ``Change`` each:
the plan gives them back, in plan order, as the full path makes them, wherever its
changes are read (JSON, a library caller), and says the same of them everywhere."""

from __future__ import annotations

import gc
import tracemalloc
from dataclasses import replace

from sync_helpers import remote_state

from linksync.model import Action, LinkSpec, Provenance, RemoteLink
from linksync.model.numbers import shared_ints
from linksync.report.plans import failed_rows, plan_counts, plan_rows, render_plan_text
from linksync.report.summary import count_results
from linksync.sync import Mode, SyncOptions, diff
from linksync.sync.diff import _Differ
from linksync.sync.state import LinkIndex

SYS = "lnk.test"
FULL = {"slug": "slug", "url": "url", "description": "description", "apple": "apple"}


def spec(n: int, slug: str, url: str, columns: dict[str, str] = FULL) -> LinkSpec:
    prov = Provenance("links.csv", None, n + 2, columns)
    return LinkSpec(url=url, slug=slug, managed=frozenset({"url"}), provenance=prov)


def link(slug: str, url: str, **fields: object) -> RemoteLink:
    return RemoteLink(SYS, slug, url, short_url=f"https://{SYS}/{slug}", **fields)  # type: ignore[arg-type]


def mixed() -> tuple[list[LinkSpec], list[RemoteLink]]:
    """Unchanged rows around an update, a row that says something (a field its empty
    cell leaves alone), a duplicate (invalid); a link no row names (a mirror's delete)."""
    rows = [
        spec(0, "a", "https://e.com/a"),
        spec(1, "b", "https://e.com/new"),  # update
        spec(2, "c", "https://e.com/c"),
        spec(3, "d", "https://e.com/d"),  # a note: its empty description cell
        spec(4, "a", "https://e.com/a"),  # duplicate of row 0
        spec(5, "e", "https://e.com/e"),
    ]
    links = [link(s, f"https://e.com/{s}") for s in "abce"]
    links.append(link("d", "https://e.com/d", description="kept"))
    links.append(link("zz", "https://e.com/zz"))
    return rows, links


def test_quiet_rows_come_back_in_plan_order_as_the_full_path_makes_them() -> None:
    rows, links = mixed()
    options = SyncOptions(system_domain=SYS, mode=Mode.MIRROR, scope_domains=(SYS,))
    st = replace(remote_state(SYS, links), links=LinkIndex(links))
    plan = diff(rows, st, options)
    assert plan.quiet == 3  # rows 0, 2 and 5: no Change held for them
    assert [c.index for c in plan.listed] == [1, 3, 4, 6]
    got = [(c.index, c.action) for c in plan.changes]
    assert got == [
        (0, Action.UNCHANGED),
        (1, Action.UPDATE),
        (2, Action.UNCHANGED),
        (3, Action.UNCHANGED),
        (4, Action.INVALID),
        (5, Action.UNCHANGED),
        (6, Action.DELETE),
    ]
    full = _Differ(st, options, (), (), rows)
    expected = [full.row_change(i, s) for i, s in enumerate(rows)]
    assert [c for c in plan.changes if c.spec is not None] == expected
    assert plan.changes[0] is plan.changes[0] and plan.changes[-1].action is Action.DELETE
    assert plan.changes == tuple(plan.changes) and len(plan.changes) == 7
    held = replace(plan, changes=tuple(plan.changes))  # every change held one by one
    assert held.to_json() == plan.to_json()
    assert held.counts == plan.counts == {**plan.counts, "unchanged": 4}
    assert render_plan_text(held) == render_plan_text(plan)
    assert plan_counts(held) == plan_counts(plan) == count_results(plan_rows(plan))
    assert [r.row for r in failed_rows(plan)] == [r.row for r in failed_rows(held)] == [6]


def test_a_plan_of_unchanged_rows_holds_no_change_per_row() -> None:
    n = 20_000
    rows = [spec(i, f"s{i}", f"https://e.com/{i}") for i in range(n)]
    links = [link(f"s{i}", f"https://e.com/{i}") for i in range(n)]
    st = replace(remote_state(SYS, ()), links=LinkIndex(links))
    options = SyncOptions(system_domain=SYS)
    shared_ints(n)  # the positions, made once for the process
    gc.collect()
    tracing = tracemalloc.is_tracing()
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        plan = diff(rows, st, options)
        held = tracemalloc.get_traced_memory()[0] - base
    finally:
        if not tracing:
            tracemalloc.stop()
    assert plan.quiet == n and not plan.listed and plan.counts["unchanged"] == n
    assert held / n < 40, held / n  # a position, a link and the rows' tuple; a Change is 112 bytes
    text = render_plan_text(plan)
    assert text.startswith(f"Plan: {n} unchanged") and "No changes" in text
    assert sum(1 for _ in plan.changes) == n  # made one at a time as they are read


def test_a_domain_every_link_of_which_a_quiet_row_claims_has_none_unmanaged_or_deleted() -> None:
    """The quiet rows each claim a link of their own: when they are as many as the
    domain's links, the plan names no link unclaimed, without looking; one link more
    and it is named (unmanaged, or a mirror's delete)."""
    rows = [spec(i, s, f"https://e.com/{s}") for i, s in enumerate("abc")]
    links = [link(s, f"https://e.com/{s}") for s in "abc"]
    mirror = SyncOptions(system_domain=SYS, mode=Mode.MIRROR, scope_domains=(SYS,))
    for options in (SyncOptions(system_domain=SYS), mirror):
        plan = diff(rows, replace(remote_state(SYS, ()), links=LinkIndex(links)), options)
        assert plan.quiet == 3 and plan.unmanaged.links == ()
        assert [c.action for c in plan.listed] == []
        more = LinkIndex([*links, link("zz", "https://e.com/zz")])
        plan = diff(rows, replace(remote_state(SYS, ()), links=more), options)
        if options.deletes:
            assert [(c.action, c.slug) for c in plan.listed] == [(Action.DELETE, "zz")]
        else:
            assert [k.slug for k in plan.unmanaged.links] == ["zz"]
