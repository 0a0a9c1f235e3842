"""The diff's short way for rows that plan nothing: it gives exactly what the full
path gives, and leaves every other row to it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from sync_helpers import remote_state

from linksync.model import Action, LinkSpec, Problem, Provenance, RemoteLink, Severity
from linksync.sources import read_sources
from linksync.sync import DomainInfo, Mode, SyncOptions, diff
from linksync.sync.diff import _Differ
from linksync.sync.state import KeyMap, LinkIndex, RemoteState
from linksync.sync.unchanged import QuickDiff

SYS = "lnk.test"
COLUMNS = {"slug": "slug", "url": "url", "description": "description", "apple": "apple"}


def spec(slug: str | None, url: str | None = "https://example.com/a", **fields: Any) -> LinkSpec:
    row = fields.pop("row", 2)
    columns = fields.pop("columns", COLUMNS)
    managed = frozenset(k for k in fields if k != "domain") | ({"url"} if url else set())
    if fields.get("tags") is not None:
        fields["tags"] = tuple(fields["tags"])
    prov = Provenance("links.csv", None, row, columns)
    return LinkSpec(url=url, slug=slug, managed=managed, provenance=prov, **fields)


def link(slug: str, url: str = "https://example.com/a", **fields: Any) -> RemoteLink:
    fields.setdefault("domain", SYS)
    fields["tags"] = tuple(fields.get("tags", ()))
    return RemoteLink(slug=slug, url=url, short_url=f"https://{fields['domain']}/{slug}", **fields)


OWNED: dict[str, Any] = {"owner_tag": "team:a"}
PEOPLE: dict[str, Any] = {"ignore_changes": ("description",)}
DAY = "2030-01-01"
GO = "go.example"
DOMAINS = (DomainInfo("go.example", "active"), DomainInfo("old.example", "pending"))

#: (what, the rows, the links, options): each row planned both ways
CASES: list[tuple[str, list[LinkSpec], list[RemoteLink], dict[str, Any]]] = [
    ("same", [spec("a")], [link("a")], {}),
    ("url with edges", [spec("a", "  https://example.com/a ")], [link("a")], {}),
    ("url differs", [spec("a", "https://example.com/b")], [link("a")], {}),
    ("slug in capitals", [spec("Promo")], [link("promo")], {}),
    ("empty description is none", [spec("a", description="")], [link("a")], {}),
    ("description differs", [spec("a", description="x")], [link("a", description="y")], {}),
    ("left alone", [spec("a")], [link("a", description="kept", apple="x")], {}),
    ("no columns", [spec("a", columns={})], [link("a", description="kept")], {}),
    ("tags as sets", [spec("a", tags=["y", "x"])], [link("a", tags=["x", "y"])], {}),
    ("tags differ", [spec("a", tags=["x"])], [link("a", tags=["x", "y"])], {}),
    ("owner tag", [spec("a", tags=["x"])], [link("a", tags=["x", "team:a"])], OWNED),
    ("other owner", [spec("a")], [link("a", tags=["team:b"])], {**OWNED, "allow_takeover": True}),
    ("same instant", [spec("a", expires_at=f"{DAY}T01:00+01:00")], [link("a", expires_at=DAY)], {}),
    ("expiry differs", [spec("a", expires_at="2030-01-02")], [link("a", expires_at=DAY)], {}),
    ("password held", [spec("a", password="pw")], [link("a", has_password=True)], {}),
    ("password dropped", [spec("a", password=None)], [link("a", has_password=True)], {}),
    ("no slug", [spec(None)], [link("a")], {}),
    ("new link", [spec("b")], [link("a")], {}),
    ("custom domain", [spec("a", domain="GO.example")], [link("a", domain="go.example")], {}),
    ("pending domain", [spec("a", domain="old.example")], [link("a", domain="old.example")], {}),
    ("unknown domain", [spec("a", domain="no.example")], [], {}),
    ("default domain", [spec("a")], [link("a", domain="go.example")], {"default_domain": GO}),
    ("duplicate", [spec("a"), spec("A", row=3)], [link("a")], {}),
    ("duplicate that differs", [spec("a"), spec("a", "https://e.com/b", row=3)], [link("a")], {}),
    ("create only", [spec("a")], [link("a")], {"mode": Mode.CREATE_ONLY}),
    ("ignored link", [spec("promo-a")], [link("promo-a")], {"ignore": ("promo-*",)}),
    ("ignored tag", [spec("a")], [link("a", tags=["keep"])], {"ignore": ("tag:keep",)}),
    ("ignore_changes", [spec("a", description="x")], [link("a", description="y")], PEOPLE),
]  # fmt: skip


def both(rows: list[LinkSpec], st: RemoteState, options: SyncOptions, **kw: Any) -> None:
    """Each row's change by the short way (inside ``diff``) equals the full path's."""
    full = _Differ(st, options, kw.get("problems", ()), kw.get("invalid", ()), rows)
    expected = [full.row_change(i, s) for i, s in enumerate(rows)]
    plan = diff(rows, st, options, **kw)
    got = sorted((c for c in plan.changes if c.spec is not None), key=lambda c: c.index)
    assert got == expected


@pytest.mark.parametrize("indexed", [True, False], ids=["index", "dict"])
@pytest.mark.parametrize(("what", "rows", "links", "opts"), CASES, ids=[c[0] for c in CASES])
def test_the_short_way_plans_what_the_full_path_plans(
    what: str, rows: list[LinkSpec], links: list[RemoteLink], opts: dict[str, Any], indexed: bool
) -> None:
    options = SyncOptions(system_domain=SYS, **opts)
    st = remote_state(SYS, links, custom_domains=DOMAINS)
    if indexed:  # as a fetch holds them
        st = replace(st, links=LinkIndex(links))
    both(rows, st, options)


def test_rows_with_findings_or_marked_invalid_take_the_full_path() -> None:
    rows = [spec("a"), spec("b", row=3), spec("c", row=4)]
    st = remote_state(SYS, [link("a"), link("b"), link("c")])
    warning = Problem("X_WARN", "a warning", rows[1].provenance, "url", Severity.WARNING)
    options = SyncOptions(system_domain=SYS)
    both(rows, st, options, problems=[warning], invalid=[0])
    plan = diff(rows, st, options, problems=[warning], invalid=[0])
    by_row = {c.index: c for c in plan.changes}
    assert by_row[0].action is Action.INVALID
    assert by_row[1].action is Action.UNCHANGED and by_row[1].problems == (warning,)
    assert by_row[2].action is Action.UNCHANGED and by_row[2].problems == ()


def test_a_duplicate_of_an_unchanged_row_is_named() -> None:
    rows = [spec("a"), spec("a", row=3)]
    plan = diff(rows, remote_state(SYS, [link("a")]), SyncOptions(system_domain=SYS))
    actions = sorted((c.index, c.action) for c in plan.changes)
    assert actions == [(0, Action.UNCHANGED), (1, Action.INVALID)]
    dup = next(c for c in plan.changes if c.index == 1)
    assert [p.constant for p in dup.problems] == ["DUPLICATE_IN_SOURCE"]


def test_a_row_an_ignore_entry_names_is_a_skip_not_unchanged() -> None:
    options = SyncOptions(system_domain=SYS, ignore=("promo-*",))
    plan = diff([spec("promo-a")], remote_state(SYS, [link("promo-a")]), options)
    (change,) = plan.changes
    assert change.action is Action.SKIP and "ignore: promo-*" in (change.reason or "")


def test_a_plans_positions_are_its_rows_numbers(tmp_path: Path) -> None:
    """A plan of many rows holds each number once: a row's number in its provenance is
    the very object of another row's position (memory, not a value: both read the same)."""
    rows = 3000  # past the numbers Python itself holds once (up to 256)
    lines = ["slug,url"] + [f"s{i},https://example.com/{i}" for i in range(rows)]
    (tmp_path / "links.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    specs = [
        s for frame in read_sources([tmp_path / "links.csv"]).frames for s in frame.iter_specs()
    ]
    links = [RemoteLink(SYS, f"s{i}", f"https://example.com/{i}") for i in range(rows)]
    plan = diff(specs, remote_state(SYS, links), SyncOptions(system_domain=SYS))
    assert [c.action for c in plan.changes] == [Action.UNCHANGED] * rows
    numbers = [c.spec.provenance.row for c in plan.changes if c.spec and c.spec.provenance]
    assert numbers == list(range(2, rows + 2))
    assert all(plan.changes[i + 2].index is numbers[i] for i in range(rows - 2))


#: Cases the short way itself plans (the commonest unchanged rows): without it, they
#: would pass the comparison above through the full path alone.
SHORT = ("same", "url with edges", "slug in capitals", "left alone", "tags as sets")


@pytest.mark.parametrize("what", SHORT)
def test_the_commonest_unchanged_rows_take_the_short_way(what: str) -> None:
    (rows, links, opts) = next(c[1:] for c in CASES if c[0] == what)
    options = SyncOptions(system_domain=SYS, **opts)
    st = replace(remote_state(SYS, links, custom_domains=DOMAINS), links=LinkIndex(links))
    quick = QuickDiff(st, options, (), {}, KeyMap())
    said = quick.plan_rows(rows[:1], lambda index, spec: None)  # None: the full path
    change = said[0] if said else quick.quiet.change(0)  # said nothing: held as quiet
    assert change is not None and change.action is Action.UNCHANGED
