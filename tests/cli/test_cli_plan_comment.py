"""``plan --format markdown`` is posted as a pull-request comment: what the team wrote in
a link (a description naming ``@web-team`` or ``#123``, markup) shows as written and
pings no one, links no issue, runs no HTML; URLs are left as they are."""

from __future__ import annotations

import re
from pathlib import Path

from support.cli_runs import run

LINKS = """\
defaults:
  domain: lnk.test
links:
  promo:
    url: https://example.com/promo?ref=@partner#123
    description: "Ask @web-team (cc @alice) | see #123, org/repo#45 `x` <script>alert(1)</script>"
  mail:
    url: https://example.com/mail
    description: write to sales@example.com about C#7
"""


def test_a_plan_comment_shows_mentions_and_issue_numbers_without_pinging_anyone(
    workdir: Path,
) -> None:
    (workdir / "links.yaml").write_text(LINKS, encoding="utf-8")
    result = run("plan", "links.yaml", "--format", "markdown")
    assert result.exit_code == 0, result.output
    text = result.stdout
    # GitHub pings @name and links #123 when they follow a space or a bracket: none does
    assert not re.search(r"(^|[\s(\[{,;:>])@[A-Za-z0-9]", text, re.MULTILINE)
    assert not re.search(r"(^|[\s(\[{,;:>]|[\w.-]/[\w.-]+)#\d", text, re.MULTILINE)
    assert "Ask @&#8203;web-team (cc @&#8203;alice) \\| see #&#8203;123, org/repo#&#8203;45" in (
        text
    )
    assert "\\`x\\` &lt;script&gt;alert(1)&lt;/script&gt;" in text
    # a URL, an e-mail address and C#7 are not mentions: left as written
    assert "url: https://example.com/promo?ref=@partner#123" in text
    assert "write to sales@example.com about C#7" in text
