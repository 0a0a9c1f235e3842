"""The last run's failures: read from its journal, retried first, flagged as repeats."""

from __future__ import annotations

from pathlib import Path

from linksync.model import Action, LinkSpec, Provenance, RowResult, Status
from linksync.sync.history import LastRun, change_key, failed_first, last_run, repeats
from linksync.sync.journal import Journal
from linksync.sync.plan import Change


def _journal(folder: Path, run_id: str, target: str, rows: list[RowResult]) -> None:
    with Journal(folder / f"{run_id}.jsonl", run_id) as jr:
        jr.write("start", target=target)
        for r in rows:
            jr.write("result", **r.to_dict())


def _row(slug: str | None, status: Status, row: int = 2) -> RowResult:
    return RowResult(
        action=Action.CREATE,
        status=status,
        source="links.csv",
        row=row,
        domain="lnk.test",
        slug=slug,
        error_constant="INTERNAL_ERROR" if status is Status.FAILED else None,
    )


def test_last_run_is_the_latest_journal_of_the_same_target(tmp_path: Path) -> None:
    _journal(tmp_path, "20260101T000000Z-aaaaaa", "prod", [_row("a", Status.FAILED)])
    _journal(tmp_path, "20260102T000000Z-bbbbbb", "prod", [_row("b", Status.FAILED)])
    _journal(tmp_path, "20260103T000000Z-cccccc", "sandbox", [_row("c", Status.FAILED)])
    last = last_run("prod", tmp_path)
    assert last is not None and last.run_id == "20260102T000000Z-bbbbbb"
    assert last.is_repeat(_row("B", Status.FAILED))  # slugs compare case-insensitively
    assert not last.is_repeat(_row("a", Status.FAILED))
    assert not last.is_repeat(_row("b", Status.OK))
    assert last_run("staging", tmp_path) is None
    assert last_run("prod", tmp_path / "missing") is None


def test_slugless_rows_are_matched_by_source_row(tmp_path: Path) -> None:
    _journal(tmp_path, "20260101T000000Z-aaaaaa", "prod", [_row(None, Status.FAILED, row=7)])
    last = last_run("prod", tmp_path)
    assert last is not None
    assert [
        r.row for r in repeats([_row(None, Status.FAILED, 7), _row(None, Status.FAILED, 8)], last)
    ] == [7]


def test_rows_that_failed_last_time_go_first() -> None:
    def change(i: int, slug: str) -> tuple[int, Change]:
        spec = LinkSpec(url="https://e.com", slug=slug, provenance=Provenance("l.csv", row=i))
        return i, Change(Action.CREATE, "lnk.test", slug, i, spec=spec)

    items = [change(0, "a"), change(1, "b"), change(2, "c"), change(3, "d")]
    last = LastRun("r", frozenset({change_key(items[2][1]), change_key(items[3][1])}))
    assert [c.slug for _, c in failed_first(items, last)] == ["c", "d", "a", "b"]
    assert failed_first(items, None) == items


def test_only_failed_and_invalid_results_count_whatever_else_the_lines_say(
    tmp_path: Path,
) -> None:
    """Lines are decoded only when they hold "failed" or "invalid": a success whose
    values hold those words is still a success, and a line cut short by a kill is not
    read."""
    path = tmp_path / "20260101T000000Z-aaaaaa.jsonl"
    with Journal(path, "20260101T000000Z-aaaaaa") as jr:
        jr.write("start", target="prod")
        jr.write("request", op="create_link", slug="quiet", status=201, note="failed")
        ok = _row("ok", Status.OK)
        jr.write("result", **{**ok.to_dict(), "url": "https://e.com/failed?x=invalid"})
        jr.write("result", **_row("bad", Status.FAILED).to_dict())
        jr.write("result", **_row("typo", Status.INVALID, row=3).to_dict())
    with open(path, "a", encoding="utf-8") as fh:
        fh.write('{"event": "result", "slug": "cut", "status": "failed"')
    last = last_run("prod", tmp_path)
    assert last is not None
    assert last.failed == {change_key(_change("bad")), change_key(_change("typo"))}


def _change(slug: str) -> Change:
    spec = LinkSpec(url="https://e.com", slug=slug, provenance=Provenance("links.csv", row=2))
    return Change(Action.CREATE, "lnk.test", slug, 0, spec=spec)
