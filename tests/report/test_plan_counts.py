"""A plan's rows counted without a report row per change: the counts, the failed rows
and the examples are those of its report rows; the rows themselves are made one at a
time, only for an output that lists them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from linksync.model import LinkSpec, Provenance, RemoteLink, RunInfo
from linksync.pipeline.notify import RunEnd
from linksync.report import count_results
from linksync.report.plans import failed_rows, plan_counts, plan_rows
from linksync.report.summary import render_summary
from linksync.sync import SyncOptions, diff
from linksync.sync.options import Mode
from linksync.sync.plan import Plan
from linksync.sync.state import DomainInfo, LinkIndex, RemoteState

SYS = "lnk.test"
COLUMNS = {"url": "URL", "slug": "Slug", "description": "Note", "expires_at": "Expires"}


def row(n: int, slug: str | None, url: str | None, **fields: Any) -> LinkSpec:
    managed = frozenset({"url", "slug", *fields} - {"domain"})
    prov = Provenance("links.csv", None, n + 2, columns=COLUMNS)
    return LinkSpec(url=url, slug=slug, managed=managed, provenance=prov, **fields)


LINKS = [
    RemoteLink(SYS, "same", "https://e.com/same", short_url="https://lnk.test/same"),
    RemoteLink(SYS, "moved", "https://e.com/old"),
    RemoteLink(SYS, "Kept", "https://e.com/kept", expires_at="2031-01-01T00:00:00.000Z"),
    RemoteLink(SYS, "by-url", "https://e.com/by-url"),
    RemoteLink(SYS, "orphan", "https://e.com/orphan"),
    RemoteLink("go.example.com", "away", "https://e.com/away"),
]

ROWS = [
    row(0, "same", "https://e.com/same"),
    row(1, "moved", "https://e.com/new"),
    row(2, "kept", "https://e.com/kept"),  # unchanged, with a note (empty Expires cell)
    row(3, None, "https://e.com/by-url"),  # matched by its URL
    row(4, "fresh", "https://e.com/fresh", description="new"),
    row(5, "same", "https://e.com/same"),  # DUPLICATE_IN_SOURCE
    row(6, "lost", "https://e.com/lost", domain="nowhere.example"),  # DOMAIN_NOT_FOUND
    row(7, "other", "https://e.com/other", domain="nowhere.example"),  # DOMAIN_NOT_FOUND
    row(8, "bad slug", "https://e.com/bad"),  # invalid by validation (given below)
]


def state(links: Any) -> RemoteState:
    custom = {"go.example.com": DomainInfo("go.example.com", "active")}
    return RemoteState(SYS, links, frozenset({SYS, "go.example.com"}), custom_domains=custom)


def plans() -> Iterator[Plan]:
    for mode in (Mode.UPSERT, Mode.MIRROR, Mode.UPDATE_ONLY):
        scope = (SYS, "go.example.com") if mode is Mode.MIRROR else ()
        options = SyncOptions(mode=mode, scope_domains=scope)
        for links in ({link.key: link for link in LINKS}, LinkIndex(LINKS)):
            yield diff(ROWS, state(links), options, invalid={8})


def test_counts_and_failed_rows_are_those_of_the_report_rows() -> None:
    for plan in plans():
        rows = list(plan_rows(plan))
        assert len(rows) == len(plan.changes)
        counts = plan_counts(plan)
        assert counts == count_results(rows)
        assert list(failed_rows(plan)) == [r for r in rows if r.failed]
        assert {e.constant for e in counts.errors} >= {"DUPLICATE_IN_SOURCE", "DOMAIN_NOT_FOUND"}
        # what the alert and the summary say of the plan
        info = RunInfo("sandbox", dry_run=True)
        assert RunEnd.of_rows("plan", info, rows).counts == counts
        assert render_summary(counts, info) == render_summary(count_results(rows), info)


def test_rows_are_made_one_at_a_time() -> None:
    plan = next(plans())
    rows = plan_rows(plan)
    assert not isinstance(rows, list | tuple)
    first = next(iter(rows))
    assert (first.slug, first.status.value) == ("same", "planned")


def test_the_index_gives_the_plan_a_dict_gives() -> None:
    made = list(plans())
    for by_dict, by_index in zip(made[::2], made[1::2], strict=True):
        assert by_index.to_dict() == by_dict.to_dict()
        assert by_index.counts == by_dict.counts
    mirror = made[2].to_dict()
    deleted = [(c["domain"], c["slug"]) for c in mirror["changes"] if c["action"] == "delete"]
    assert deleted == [("go.example.com", "away"), (SYS, "orphan")]
    assert made[0].to_dict()["unmanaged"]["links"] == [
        {"domain": "go.example.com", "slug": "away"},
        {"domain": SYS, "slug": "orphan"},
    ]


def test_link_index_reads_as_a_mapping() -> None:
    index = LinkIndex(LINKS)
    by_key = {link.key: link for link in LINKS}
    assert index == by_key and len(index) == len(by_key)
    assert dict(index.items()) == by_key and sorted(index) == sorted(by_key)
    assert index.get(("lnk.test", "kept")) is LINKS[2] and ("lnk.test", "Kept") not in index
    assert index.get(("lnk.test", "none")) is None and ("x",) not in index
    assert list(index.values()) == list(by_key.values())
    index.keep_first(RemoteLink("LNK.test", "SAME", "https://e.com/other"))
    assert index[("lnk.test", "same")].url == "https://e.com/same"
    index.add(RemoteLink("LNK.test", "SAME", "https://e.com/other"))
    assert index[("lnk.test", "same")].url == "https://e.com/other"
