"""``linksync.undo`` and ``linksync.plan_undo`` from Python: the same run as the command
line (the plan shown to the front end and confirmed, reports, its own journal), found by
run id, journal path or as the latest run; what is refused before anything is sent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import linksync
from linksync.errors import ConfigError
from linksync.pipeline import RunEvents
from linksync.sync.plan import Plan
from support.cli_runs import remote_links

CSV = (
    "slug,url,description,expires\n"
    "a,https://example.com/a,Alpha,\n"
    "b,https://example.com/b,Beta,2030-01-01T00:00:00Z\n"
    "c,https://example.com/c,Gamma,\n"
)
CHANGED = (
    "slug,url,description,expires\n"
    "a,https://example.com/a2,Alpha two,\n"
    "b,https://example.com/b,Beta,2031-01-01T00:00:00Z\n"
    "d,https://example.com/d,Delta,\n"
)
MIRROR = linksync.SyncPolicy(mode="mirror", scope_domains=["lnk.test"], allow_replace=True)


class Told(RunEvents):
    """A front end that records what it was shown and answers ``answer``."""

    def __init__(self, answer: bool = True) -> None:
        self.answer = answer
        self.plans: list[Plan] = []
        self.said: list[str] = []

    def planned(self, plan: Plan) -> None:
        self.plans.append(plan)

    def confirm(self, plan: Plan) -> bool:
        return self.answer

    def note(self, text: str) -> None:
        self.said.append(text)

    def notice(self, text: str) -> None:
        self.said.append(text)

    def warning(self, text: str) -> None:
        self.said.append(f"warning: {text}")


def state(workdir: Path) -> dict[str, tuple[str, str | None, str | None]]:
    return {ln.slug: (ln.url, ln.description, ln.expires_at) for ln in remote_links(workdir)}


def apply(workdir: Path, text: str, sync: linksync.SyncPolicy | None = None) -> linksync.Results:
    (workdir / "links.csv").write_text(text, encoding="utf-8")
    return linksync.apply(["links.csv"], sync=sync)


def test_undo_and_undo_again_from_python(workdir: Path) -> None:
    apply(workdir, CSV)
    before = state(workdir)
    applied = apply(workdir, CHANGED, MIRROR)
    assert applied.writes.any
    after = state(workdir)
    shown = linksync.plan_undo(applied.run_id)
    assert shown.counts == {**shown.counts, "create": 1, "update": 1, "replace": 1, "delete": 1}
    told = Told()
    undone = linksync.undo(
        applied.run_id,
        outputs=linksync.Outputs(reports=["undo.jsonl"]),
        hooks=linksync.Hooks(events=told),
    )
    assert undone.exit_code == 0 and undone.info.mode == "undo"
    assert [p.counts for p in told.plans] == [shown.counts]
    assert told.said[0].startswith(f"Undo of run {applied.run_id}")
    assert state(workdir) == before
    lines = (workdir / "undo.jsonl").read_text(encoding="utf-8").splitlines()
    assert sorted(json.loads(line)["action"] for line in lines) == [
        "create", "delete", "replace", "update",
    ]  # fmt: skip
    redone = linksync.undo(undone.journal)
    assert redone.exit_code == 0 and state(workdir) == after


def test_a_declined_plan_sends_nothing_and_the_latest_run_is_the_default(workdir: Path) -> None:
    apply(workdir, CSV)
    told = Told(answer=False)
    declined = linksync.undo(hooks=linksync.Hooks(events=told))
    assert not declined.confirmed and declined.rows == ()
    assert len(told.plans) == 1 and told.plans[0].counts["delete"] == 3
    assert len(state(workdir)) == 3
    assert linksync.undo().exit_code == 0 and state(workdir) == {}


def test_nothing_to_undo(workdir: Path) -> None:
    apply(workdir, CSV)
    same = apply(workdir, CSV)
    told = Told()
    nothing = linksync.undo(same.run_id, hooks=linksync.Hooks(events=told))
    assert nothing.rows == () and nothing.exit_code == 0 and told.plans == []
    assert told.said == [
        f"Nothing to undo: run {same.run_id} ({same.journal}) wrote nothing to the workspace."
    ]
    assert linksync.plan_undo(same.run_id).changes == ()


def test_refused_before_anything_is_sent(workdir: Path) -> None:
    applied = apply(workdir, CSV)
    journal = Path(str(applied.journal))
    records = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    foreign = workdir / "foreign.jsonl"
    records[0]["target"] = "https://links.example.com"
    foreign.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"was a run against https://links\.example\.com, not"):
        linksync.undo(foreign)
    old = workdir / "old.jsonl"
    del records[0]["format"]
    records[0]["target"] = applied.info.target
    old.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    with pytest.raises(ConfigError, match="journalled by an earlier linksync"):
        linksync.undo(old)
    with pytest.raises(ConfigError, match=r"no journal at missing\.jsonl"):
        linksync.undo("missing.jsonl")
    with pytest.raises(ConfigError, match=r"--journal .* would replace the source .*, which"):
        linksync.undo(journal, outputs=linksync.Outputs(journal=journal))
    assert len(state(workdir)) == 3


def test_a_run_found_by_its_id_in_a_journal_named_otherwise(workdir: Path) -> None:
    """A page run's journal is named by the page's run id, not the run's own."""
    (workdir / "links.csv").write_text(CSV, encoding="utf-8")
    applied = linksync.apply(
        ["links.csv"],
        outputs=linksync.Outputs(journal=workdir / ".linksync" / "runs" / "page-run.jsonl"),
    )
    assert not (workdir / ".linksync" / "runs" / f"{applied.run_id}.jsonl").exists()
    assert linksync.undo(applied.run_id).exit_code == 0 and state(workdir) == {}


def test_writes_a_killed_run_did_not_record_are_named_not_undone(workdir: Path) -> None:
    applied = apply(workdir, CSV)
    journal = Path(str(applied.journal))
    lines = journal.read_text(encoding="utf-8").splitlines(keepends=True)
    # killed after the create of b was answered, before its result was recorded
    cut = [ln for ln in lines if not ('"event": "result"' in ln and '"slug": "b"' in ln)]
    assert len(cut) == len(lines) - 1
    journal.write_text("".join(cut), encoding="utf-8")
    told = Told()
    undone = linksync.undo(journal, hooks=linksync.Hooks(events=told))
    assert undone.exit_code == 0 and sorted(r.slug or "" for r in undone.rows) == ["a", "c"]
    assert (
        "warning: 1 link the run wrote has no result in its journal (the run was stopped "
        "before recording it): not undone, check by hand: lnk.test/b"
    ) in told.said
    assert list(state(workdir)) == ["b"]
    bare = [ln for ln in lines if '"event": "result"' not in ln]
    journal.write_text("".join(bare), encoding="utf-8")
    again = Told()
    assert linksync.plan_undo(journal, events=again).changes == ()
    assert again.said[0].endswith("recorded no write.")
    assert again.said[1].endswith("check by hand: lnk.test/a, lnk.test/b, lnk.test/c")
