"""``apply --plan`` run again on the same saved plan: the merge job retried after it
succeeded, or after it was cut short halfway. A row whose link already is what the plan
makes it is done (``unchanged``, "already applied", nothing sent); a row whose link
changed to something else since stays STALE_PLAN. Each case runs the CLI on the
built-in sandbox of ``workdir``: exit codes, the JSON report, the journal."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from linksync.config import resolve
from support.cli_runs import remote_links, run
from support.journals import read_journal

BEFORE = (
    "slug,url,tags\n"
    "keep,https://example.com/keep,\n"
    "move,https://example.com/move,\n"
    "drop,https://example.com/drop,\n"
)
AFTER = (
    "slug,url,tags\n"
    "keep,https://example.com/keep,\n"
    "move,https://example.com/moved,spring\n"
    "new,https://example.com/new,spring\n"
    ",https://example.com/no-slug,\n"
)
MIRROR = ("--mode", "mirror", "--domain", "lnk.test")


def planned(workdir: Path) -> None:
    """BEFORE applied, then the mirror plan of AFTER saved to p.json: 2 creates (one
    without a slug), 1 update, 1 delete, 1 unchanged."""
    (workdir / "links.csv").write_text(BEFORE, encoding="utf-8")
    assert run("apply", "links.csv", "--yes").exit_code == 0
    (workdir / "links.csv").write_text(AFTER, encoding="utf-8")
    made = run("plan", "links.csv", *MIRROR, "--out", "p.json")
    assert made.exit_code == 0, made.output
    counts = json.loads((workdir / "p.json").read_text(encoding="utf-8"))["counts"]
    assert (counts["create"], counts["update"], counts["delete"]) == (2, 1, 1)


def state(workdir: Path) -> dict[str, tuple[str, tuple[str, ...]]]:
    return {link.slug: (link.url, tuple(sorted(link.tags))) for link in remote_links(workdir)}


def report_rows(path: Path) -> dict[str, dict[str, Any]]:
    rows = json.loads(path.read_text(encoding="utf-8"))["results"]
    return {r["slug"]: r for r in rows}


def sent(journal: Path) -> list[tuple[str, str]]:
    """The writes a run's journal records as done by the service: (operation, slug)."""
    records = read_journal(journal)
    assert records[0]["event"] == "start"
    calls = [r for r in records if r["event"] == "request" and r["status"] < 300]
    return [(r["op"], r["slug"]) for r in calls if not r["op"].startswith("GET ")]


def test_the_same_plan_applied_again_converges_and_sends_nothing(workdir: Path) -> None:
    planned(workdir)
    first = run("apply", "--plan", "p.json", "links.csv", "--yes", "--journal", "1.jsonl")
    assert first.exit_code == 0, first.output
    done = state(workdir)
    again = run(
        "apply", "--plan", "p.json", "links.csv", "--yes", "--no-progress",
        "--report", "r.json", "--journal", "2.jsonl",
    )  # fmt: skip
    assert again.exit_code == 0, again.output
    assert "STALE_PLAN" not in again.output
    assert "Done: 5 unchanged" in again.output
    assert "POST" not in again.output and "PATCH" not in again.output
    assert "DELETE" not in again.output
    rows = report_rows(workdir / "r.json")
    for slug in ("move", "new", "drop"):
        assert rows[slug]["action"] == "unchanged" and rows[slug]["status"] == "ok"
        assert "already applied" in rows[slug]["message"], rows[slug]
    assert "the link is gone" in rows["drop"]["message"]
    (slugless,) = [r for s, r in rows.items() if s not in ("keep", "move", "new", "drop")]
    assert slugless["action"] == "unchanged" and "already applied" in slugless["message"]
    assert len(sent(workdir / "1.jsonl")) == 4
    assert sent(workdir / "2.jsonl") == []  # nothing sent
    assert state(workdir) == done


def test_a_plan_cut_short_halfway_is_finished_by_a_retry(workdir: Path) -> None:
    planned(workdir)
    # The workspace may hold one link more than the three it has: the first apply
    # creates one link, then the service refuses the other create.
    quota = workdir / "sandbox.yaml"
    quota.write_text("organization:\n  link_quota: 4\n", encoding="utf-8")
    (workdir / "linksync.yaml").write_text(
        "default_profile: main\nprofiles:\n  main:\n    sandbox: true\n"
        "    sandbox_config: sandbox.yaml\n",
        encoding="utf-8",
    )
    cut = run("apply", "--plan", "p.json", "links.csv", "--yes", "--journal", "1.jsonl")
    assert cut.exit_code == 1, cut.output
    assert "QUOTA_EXCEEDED" in cut.output
    first = sent(workdir / "1.jsonl")
    assert ("POST /links", "new") in first or ("POST /links", None) in first
    quota.write_text("organization:\n  link_quota: 100\n", encoding="utf-8")
    retry = run(
        "apply", "--plan", "p.json", "links.csv", "--yes", "--no-progress",
        "--report", "r.json", "--journal", "2.jsonl",
    )  # fmt: skip
    assert retry.exit_code == 0, retry.output
    assert "STALE_PLAN" not in retry.output
    second = sent(workdir / "2.jsonl")
    # Only the rest was sent: one create, not the writes the first run did.
    assert [op for op, _ in second] == ["POST /links"], second
    assert not set(second) & set(first)
    rows = report_rows(workdir / "r.json")
    already = sorted(s for s, r in rows.items() if "already applied" in (r["message"] or ""))
    assert len(already) == 3 and "drop" in already and "move" in already
    final = state(workdir)
    assert final["move"] == ("https://example.com/moved", ("spring",))
    assert final["new"] == ("https://example.com/new", ("spring",))
    assert "drop" not in final and len(final) == 4


def test_a_link_edited_to_another_value_since_stays_stale(workdir: Path) -> None:
    planned(workdir)
    assert run("apply", "--plan", "p.json", "links.csv", "--yes").exit_code == 0

    async def by_hand() -> None:
        async with resolve(cwd=workdir, env={}, sandbox=True).open_client() as client:
            await client.update_link("move", {"url": "https://example.com/by-hand"}, "lnk.test")
            await client.create_link({"url": "https://example.com/back", "slug": "drop"})

    asyncio.run(by_hand())
    again = run("apply", "--plan", "p.json", "links.csv", "--yes", "--report", "r.json")
    assert again.exit_code == 1, again.output
    rows = report_rows(workdir / "r.json")
    assert rows["move"]["error_constant"] == "STALE_PLAN"
    assert "changed since the plan was made" in rows["move"]["message"]
    assert rows["drop"]["error_constant"] == "STALE_PLAN"
    assert rows["new"]["action"] == "unchanged"  # as the plan made it: done
    assert state(workdir)["move"] == ("https://example.com/by-hand", ("spring",))
    assert state(workdir)["drop"] == ("https://example.com/back", ())


def test_a_replace_and_retires_applied_again_are_done(workdir: Path) -> None:
    (workdir / "links.csv").write_text(
        "slug,url,expires,password\n"
        "a,https://example.com/a,2030-01-01T00:00:00Z,pw-1\n"
        "b,https://example.com/b,,\n",
        encoding="utf-8",
    )
    assert run("apply", "links.csv", "--yes").exit_code == 0
    (workdir / "links.csv").write_text(
        "slug,url,expires,password\na,https://example.com/a,2031-01-01T00:00:00Z,pw-1\n",
        encoding="utf-8",
    )
    flags = ("--retire-to", "https://example.com/gone", "--allow-replace", "--force")
    assert run("plan", "links.csv", *MIRROR, *flags, "--out", "p.json").exit_code == 0
    first = run("apply", "--plan", "p.json", "links.csv", "--yes", "--force", "--no-progress")
    assert first.exit_code == 0 and "Done: 1 replaced, 1 retired" in first.output
    again = run(
        "apply", "--plan", "p.json", "links.csv", "--yes", "--force", "--no-progress",
        "--journal", "2.jsonl",
    )  # fmt: skip
    assert again.exit_code == 0, again.output
    assert "Done: 2 unchanged" in again.output and sent(workdir / "2.jsonl") == []
    assert state(workdir)["b"] == ("https://example.com/gone", ("retired",))
