"""What is sent is shown: the plan, in the terminal, as JSON, as the
pull-request markdown and as the saved plan, shows each create's destination URL as it
will be sent (UTM columns merged) and each update's old -> new values; "No changes" only
when nothing is invalid, skipped or unsent; rows whose empty cells leave values as the
service holds them say which; apply's summary counts what became of the rows."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli_runs import remote_links, run

AUTUMN = "https://example.com/autumn?utm_source=newsletter&utm_medium=email&utm_campaign=autumn"


def write(workdir: Path, name: str, text: str) -> str:
    (workdir / name).write_text(text, encoding="utf-8")
    return name


def campaign(workdir: Path) -> str:
    return write(
        workdir,
        "campaign.csv",
        "Back-half,Destination URL,utm_source,utm_medium,utm_campaign,Tags\n"
        'autumn-a,https://example.com/autumn,newsletter,email,autumn,"autumn,mail"\n',
    )


def test_plan_shows_the_url_each_create_sends(workdir: Path) -> None:
    links = campaign(workdir)
    text = run("plan", links)
    assert text.exit_code == 0, text.output
    assert f"create    lnk.test/autumn-a -> {AUTUMN}  [campaign.csv, row 2]" in text.stdout
    assert "with tags: [autumn, mail]" in text.stdout

    md = run("plan", links, "--format", "markdown").stdout
    (row,) = [ln for ln in md.splitlines() if ln.startswith("| 1 |")]
    assert "lnk.test/autumn-a | create | planned | url: " + AUTUMN.replace("&", "&amp;") in row
    assert "tags: [autumn, mail]" in row

    shown = run("plan", links, "--format", "json", "--out", "plan.json")
    for data in (json.loads(shown.stdout), json.loads((workdir / "plan.json").read_text())):
        (change,) = data["changes"]
        assert change["action"] == "create" and change["payload"]["url"] == AUTUMN

    assert run("apply", "--plan", "plan.json", links, "--yes").exit_code == 0
    (link,) = remote_links(workdir)
    assert link.url == AUTUMN


def test_plan_shows_old_and_new_of_an_update(workdir: Path) -> None:
    links = write(workdir, "links.csv", 'slug,url,tags\npromo,https://a.example/x,"sale,q1"\n')
    assert run("apply", links, "--yes").exit_code == 0
    write(workdir, "links.csv", 'slug,url,tags\npromo,https://b.example/y,"sale,q2"\n')
    text = run("plan", links).stdout
    assert "url: https://a.example/x -> https://b.example/y" in text
    assert "tags: added q2; removed q1" in text
    md = run("plan", links, "--format", "markdown").stdout
    assert "url: https://a.example/x -&gt; https://b.example/y<br>tags: added q2; removed q1" in md
    data = json.loads(run("plan", links, "--format", "json").stdout)
    url, tags = data["changes"][0]["fields"]
    assert (url["old"], url["new"]) == ("https://a.example/x", "https://b.example/y")
    assert (tags["added"], tags["removed"]) == (["q2"], ["q1"])


def test_long_values_are_cut_in_the_terminal_and_whole_in_json(workdir: Path) -> None:
    long = "https://example.com/" + "a" * 300
    links = write(workdir, "links.csv", f"slug,url\nlong,{long}\n")
    text = run("plan", links).stdout
    (line,) = [ln for ln in text.splitlines() if ln.startswith("create")]
    assert long not in text and "..." in line and len(line) < 160
    change = json.loads(run("plan", links, "--format", "json").stdout)["changes"][0]
    assert change["payload"]["url"] == long


def test_no_changes_is_not_said_of_invalid_or_skipped_rows(workdir: Path) -> None:
    links = write(
        workdir,
        "links.csv",
        "slug,url\nbad slug,https://e.com/1\nalso bad!,https://e.com/2\n",
    )
    plan = run("plan", links)
    assert plan.exit_code == 1
    assert "No changes" not in plan.output
    assert "Nothing to send: 2 rows are invalid." in plan.stdout

    ok = write(workdir, "ok.csv", "slug,url\nok,https://e.com/ok\n")
    assert run("apply", ok, "--yes").exit_code == 0
    mixed = write(workdir, "mixed.csv", "slug,url\nok,https://e.com/changed\nbad slug,https://e\n")
    left = run("plan", mixed, "--mode", "create-only")
    assert "No changes" not in left.output
    assert "Nothing to send: 1 row is invalid; 1 skipped." in left.stdout


def test_empty_cells_say_which_values_stay_as_on_the_service(workdir: Path) -> None:
    head = "slug,Destination URL,Expires,iOS URL,Description\n"
    links = write(
        workdir,
        "links.csv",
        head + "promo,https://e.com/p,2031-01-01,https://apps.apple.com/app/id1,Promo\n",
    )
    assert run("apply", links, "--yes").exit_code == 0
    write(workdir, "links.csv", head + "promo,https://e.com/p,,,Promo\n")
    plan = run("plan", links)
    assert plan.exit_code == 0
    assert "unchanged lnk.test/promo  [links.csv, row 2]" in plan.stdout
    assert "note: expiresAt, apple left as on the service (empty cells)" in plan.stdout
    md = run("plan", links, "--format", "markdown").stdout
    assert "expiresAt, apple left as on the service (empty cells)" in md
    change = json.loads(run("plan", links, "--format", "json").stdout)["changes"][0]
    assert change["notes"] == ["expiresAt, apple left as on the service (empty cells)"]
    applied = run("apply", links, "--yes", "--report", "out/r.csv")
    assert "expiresAt, apple left as on the service" in (workdir / "out/r.csv").read_text()
    (link,) = remote_links(workdir)
    assert link.expires_at and link.apple == "https://apps.apple.com/app/id1"
    assert applied.exit_code == 0


def test_apply_counts_rows_by_what_became_of_them(workdir: Path) -> None:
    first = write(workdir, "a.csv", "slug,url\nkeep,https://e.com/k\nmove,https://e.com/m\n")
    assert run("apply", first, "--yes").exit_code == 0
    links = write(
        workdir,
        "a.csv",
        "slug,url\nkeep,https://e.com/k\nmove,https://e.com/moved\nnew,https://e.com/n\n"
        "bad slug,https://e.com/b\n",
    )
    applied = run("apply", links, "--yes", "--report", "out/r.json", "--report", "out/r.md")
    assert applied.exit_code == 1
    assert "Done: 1 created, 1 updated, 1 unchanged, 1 invalid" in applied.stdout
    assert "Status: ok 3, invalid 1" in applied.stdout
    summary = json.loads((workdir / "out/r.json").read_text())["summary"]
    assert summary["by_outcome"] == {
        "created": 1,
        "updated": 1,
        "replaced": 0,
        "deleted": 0,
        "retired": 0,
        "unchanged": 1,
        "invalid": 1,
        "skipped": 0,
        "failed": 0,
        "planned": 0,
    }
    assert summary["by_status"] == {"ok": 3, "invalid": 1}
    md = (workdir / "out/r.md").read_text()
    assert "**1 created, 1 updated, 1 unchanged, 1 invalid** (4 rows done" in md


def test_plan_counts_one_of_a_thing_in_the_singular(workdir: Path) -> None:
    links = write(workdir, "links.csv", "slug,url\nsolo,https://example.com/solo\n")
    text = run("plan", links)
    assert text.exit_code == 0, text.output
    assert "  fetched lnk.test: list, 1 request, 0 links of 0\n" in text.stdout
    assert "room for 10000: the 1 create fits\n" in text.stdout
    assert run("apply", links, "--yes").exit_code == 0
    write(workdir, "links.csv", "slug,url\nsolo,https://example.com/solo\nduo,https://e.com/2\n")
    text = run("plan", links)
    assert "  fetched lnk.test: list, 1 request, 1 link of 1\n" in text.stdout
    assert "room for 9999: the 1 create fits\n" in text.stdout
