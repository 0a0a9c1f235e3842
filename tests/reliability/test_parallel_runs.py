"""Twenty ``linksync apply`` runs of one file at once, each from its own working folder,
against one workspace (a sandbox served on 127.0.0.1): no link may be created twice."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest
from parallel_support import run_parallel

from linksync.api import LinkServiceClient
from linksync.sandbox import DEFAULT_FULL_KEY

pytestmark = pytest.mark.usefixtures("_umask")  # umask 022 for the files runs create

RUNS = 20
CSV = (
    "slug,url,description\n"
    "par-one,https://example.com/one,with a slug\n"
    ",https://example.com/no-slug-a,no slug: the service picks one\n"
    ",https://example.com/no-slug-b,\n"
    "par-two,https://example.com/two,\n"
)


async def _links(base_url: str) -> list[tuple[str, str]]:
    async with LinkServiceClient(base_url, DEFAULT_FULL_KEY) as client:
        return [(link.slug, link.url) for link in await client.list_links()]


def test_twenty_parallel_applies_create_each_link_once(live_sandbox: str, tmp_path: Path) -> None:
    state = tmp_path / "state"
    runs = []
    for n in range(RUNS):
        cwd = tmp_path / f"checkout-{n}"
        cwd.mkdir()
        (cwd / "links.csv").write_text(CSV, encoding="utf-8")
        runs.append((cwd, ["apply", "links.csv", "--yes", "--no-progress", "--lock-wait", "60"]))
    env = {
        "LINKSYNC_BASE_URL": live_sandbox,
        "LINKSYNC_API_KEY": DEFAULT_FULL_KEY,
        "LINKSYNC_STATE_DIR": str(state),
    }
    finished = run_parallel(runs, env)

    links = asyncio.run(_links(live_sandbox))
    per_url = Counter(url for _, url in links)
    assert per_url == {
        "https://example.com/one": 1,
        "https://example.com/two": 1,
        "https://example.com/no-slug-a": 1,
        "https://example.com/no-slug-b": 1,
    }, [f.stderr for f in finished if f.exit_code]
    # They waited for one another: every run ended well, one of them did the work.
    assert [f.exit_code for f in finished] == [0] * RUNS, [f.stderr for f in finished]
    assert sum("4 create" in f.stderr for f in finished) == 1
    for f in finished:
        assert (f.cwd / "links.csv").read_text(encoding="utf-8") == CSV
