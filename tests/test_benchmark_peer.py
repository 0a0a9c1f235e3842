"""``benchmarks/aiohttp_peer.py``, the hand-written plan that ``throughput.py --case
scale`` measures linksync against: on a small workspace it counts what ``linksync plan``
counts (unchanged, to update, to create), and it waits out a rate limit it meets."""

from __future__ import annotations

import csv
import time
from pathlib import Path

import httpx

from linksync.sandbox import SandboxSettings
from support.bench_peers import KEY, plan_counts, run_peer, seeded
from support.sandbox_helpers import serve_in_thread

PEER = Path(__file__).resolve().parents[1] / "benchmarks" / "aiohttp_peer.py"
CUSTOM = "go.example.com"


def source(path: Path) -> Path:
    """100 unchanged rows (one slug in upper case), 40 with another URL, 30 new, and on
    a custom domain one unchanged and one new."""
    rows = [(f"bench-{i:05d}", f"https://example.com/landing/{i}", "") for i in range(100)]
    rows[7] = ("BENCH-00007", rows[7][1], "")
    rows += [(f"bench-{i:05d}", f"https://example.com/moved/{i}", "") for i in range(100, 140)]
    rows += [(f"fresh-{j}", f"https://example.com/fresh/{j}", "") for j in range(30)]
    rows += [("promo", "https://example.com/promo", CUSTOM)]
    rows += [("promo-2", "https://example.com/promo-2", CUSTOM)]
    with path.open("w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(["slug", "url", "domain"])
        out.writerows(rows)
    return path


def test_the_peer_counts_what_linksync_plan_counts(tmp_path: Path) -> None:
    db = tmp_path / "sandbox.db"
    seeded(db, 250)
    src = source(tmp_path / "links.csv")
    with serve_in_thread(SandboxSettings(rate_limit=1000), str(db)) as server:
        with httpx.Client(
            base_url=server.base_url, headers={"Authorization": f"Bearer {KEY}"}
        ) as c:
            domain = c.post("/api/v1/domains", json={"domain": CUSTOM}).json()["data"]
            assert c.post(f"/api/v1/domains/{domain['id']}/verify").is_success
            made = c.post(
                "/api/v1/links",
                json={"url": "https://example.com/promo", "slug": "promo", "domain": CUSTOM},
            )
            assert made.status_code == 201
        counts = plan_counts(server.base_url, src, tmp_path)
        peer = run_peer(PEER, server.base_url, src)
    assert (counts["unchanged"], counts["update"], counts["create"]) == (101, 40, 31)
    assert (peer["unchanged"], peer["update"], peer["create"]) == (101, 40, 31)
    assert (peer["links"], peer["pages"], peer["requests"], peer["rate_limited"]) == (251, 3, 3, 0)


def test_the_peer_waits_out_a_window_spent_by_another_client(tmp_path: Path) -> None:
    """3 requests per 8 s window, spent before the peer starts: its first request gets a
    429, it waits for Retry-After and the window's end, and still counts right. (The
    window leaves the peer 7.5 s to start and send its first request inside it, however
    loaded the machine.)"""
    db = tmp_path / "sandbox.db"
    seeded(db, 250)
    src = source(tmp_path / "links.csv")
    with serve_in_thread(SandboxSettings(rate_limit=3, rate_window_s=8.0), str(db)) as server:
        while time.time() % 8.0 > 0.5:  # at the start of a window, so the peer meets it
            time.sleep(0.05)
        with httpx.Client(
            base_url=server.base_url, headers={"Authorization": f"Bearer {KEY}"}
        ) as c:
            spent = [c.get("/api/v1/organizations/current").status_code for _ in range(3)]
        assert spent == [200, 200, 200]
        peer = run_peer(PEER, server.base_url, src)
    assert (peer["unchanged"], peer["update"], peer["create"]) == (100, 40, 32)
    assert peer["rate_limited"] >= 1 and peer["requests"] == peer["pages"] + peer["rate_limited"]
