"""Plans for people show what is sent, and stay readable for 10,000 rows:
the terminal plan lists the first rows with long values cut, the JSON plan has every
value whole; the markdown lists unchanged rows that have something to say, and says
"No changes" only when no row has a warning."""

from __future__ import annotations

import json
from typing import Any

from linksync.model import LinkSpec, Provenance, RemoteLink
from linksync.report.plans import MAX_SHOWN, render_plan_markdown, render_plan_text
from linksync.sync import SyncOptions, diff
from linksync.sync.state import RemoteState

SYS = "lnk.test"


def row(n: int, url: str, **fields: Any) -> LinkSpec:
    columns = {"url": "URL", "slug": "Slug", "expires_at": "Expires", "password": "Password"}
    return LinkSpec(
        url=url,
        slug=f"s{n}",
        managed=frozenset({"url", "slug", *fields}),
        provenance=Provenance("big.csv", None, n + 2, columns=columns),
        **fields,
    )


def state(*links: RemoteLink) -> RemoteState:
    return RemoteState(
        system_domain=SYS,
        links={link.key: link for link in links},
        listed_domains=frozenset({SYS}),
    )


def test_ten_thousand_creates_read_in_the_terminal_whole_in_json() -> None:
    tail = "x" * 400
    specs = [row(n, f"https://example.com/{n}/{tail}") for n in range(10_000)]
    plan = diff(specs, state(), SyncOptions())
    text = render_plan_text(plan)
    lines = text.splitlines()
    creates = [ln for ln in lines if ln.startswith("create ")]
    assert len(creates) == MAX_SHOWN
    assert creates[0].startswith("create    lnk.test/s0 -> https://example.com/0/xxx")
    assert all(len(ln) < 160 and "..." in ln for ln in creates)
    assert f"... and {10_000 - MAX_SHOWN} more changes (see --format json)" in text
    assert len(lines) < MAX_SHOWN + 20
    data = json.loads(plan.to_json())
    assert data["changes"][9_999]["payload"]["url"] == f"https://example.com/9999/{tail}"


def test_markdown_lists_unchanged_rows_with_a_note_and_still_says_no_changes() -> None:
    link = RemoteLink(SYS, "s0", "https://e.com/0", expires_at="2031-01-01T00:00:00.000Z")
    plan = diff([row(0, "https://e.com/0")], state(link), SyncOptions())
    md = render_plan_markdown(plan)
    assert "**No changes:** all 1 links match the workspace." in md
    assert "### Rows with notes" in md
    assert "expiresAt left as on the service (empty cells)" in md


def test_markdown_does_not_say_no_changes_of_a_password_not_sent() -> None:
    link = RemoteLink(SYS, "s0", "https://e.com/0", has_password=True)
    plan = diff([row(0, "https://e.com/0", password="hunter2-new")], state(link), SyncOptions())
    md = render_plan_markdown(plan)
    assert "No changes" not in md
    assert "**1 unchanged** (1 rows planned)." in md
    assert "PASSWORD_NOT_SENT" in md and "--reset-passwords" in md and "hunter2" not in md
    text = render_plan_text(plan)
    assert text.endswith("Nothing to send: 1 password not sent (--reset-passwords sends them).")
