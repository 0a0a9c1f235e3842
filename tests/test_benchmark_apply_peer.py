"""``benchmarks/aiohttp_apply_peer.py``, the hand-written apply that ``throughput.py --case
fast`` measures linksync against: on a small workspace it leaves the links the CSV asks
for (created, URLs and descriptions changed, a custom domain's link PATCHed on its own
domain, a slug in other case matched), so that ``linksync plan`` afterwards finds
nothing to do; and it waits out a rate limit it meets, still leaving the same links."""

from __future__ import annotations

import csv
from pathlib import Path

import httpx

from linksync.sandbox import SandboxSettings
from support.bench_peers import KEY, plan_counts, run_peer, seeded
from support.sandbox_helpers import serve_in_thread

PEER = Path(__file__).resolve().parents[1] / "benchmarks" / "aiohttp_apply_peer.py"
CUSTOM = "go.example.com"
SYSTEM = "lnk.test"


Row = tuple[str, str, str, str]  # slug, url, description, domain


def source(path: Path) -> list[Row]:
    """20 unchanged rows (one slug in upper case), 10 with another URL, 5 with another
    description, 10 new; on the custom domain one link with another URL and one new."""
    rows: list[Row] = [
        (f"bench-{i:05d}", f"https://example.com/landing/{i}", f"Link {i}", "") for i in range(20)
    ]
    rows[7] = ("BENCH-00007", *rows[7][1:])
    rows += [
        (f"bench-{i:05d}", f"https://example.com/moved/{i}", f"Link {i}", "") for i in range(20, 30)
    ]
    rows += [
        (f"bench-{i:05d}", f"https://example.com/landing/{i}", f"Renamed {i}", "")
        for i in range(30, 35)
    ]
    rows += [(f"fresh-{j}", f"https://example.com/fresh/{j}", f"Fresh {j}", "") for j in range(10)]
    rows += [("promo", "https://example.com/promo-moved", "Promo", CUSTOM)]
    rows += [("promo-2", "https://example.com/promo-2", "Promo 2", CUSTOM)]
    with path.open("w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(["slug", "url", "description", "domain"])
        out.writerows(rows)
    return rows


def client(base_url: str) -> httpx.Client:
    return httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {KEY}"})


def with_custom_domain(base_url: str) -> None:
    """The custom domain, verified, holding one link: ``promo``."""
    with client(base_url) as c:
        domain = c.post("/api/v1/domains", json={"domain": CUSTOM}).json()["data"]
        assert c.post(f"/api/v1/domains/{domain['id']}/verify").is_success
        made = c.post(
            "/api/v1/links",
            json={
                "url": "https://example.com/promo",
                "slug": "promo",
                "domain": CUSTOM,
                "description": "Promo",
            },
        )
        assert made.status_code == 201


def workspace(base_url: str) -> dict[tuple[str, str], tuple[str, str | None]]:
    """(domain, slug) -> (url, description) of every link, listed page by page."""
    out: dict[tuple[str, str], tuple[str, str | None]] = {}
    listed = 0
    with client(base_url) as c:
        page = 1
        while True:
            body = c.get("/api/v1/links", params={"page": page, "limit": 100}).json()
            for link in body["data"]:
                listed += 1
                out[(link["domain"], link["slug"])] = (link["url"], link.get("description"))
            if page >= body["pagination"]["totalPages"]:
                break
            page += 1
    assert listed == len(out)  # no (domain, slug) twice
    return out


def expected(n: int, rows: list[Row]) -> dict[tuple[str, str], tuple[str, str | None]]:
    want: dict[tuple[str, str], tuple[str, str | None]] = {
        (SYSTEM, f"bench-{i:05d}"): (f"https://example.com/landing/{i}", f"Link {i}")
        for i in range(n)
    }
    want[(CUSTOM, "promo")] = ("https://example.com/promo", "Promo")
    for slug, url, description, domain in rows:
        want[(domain or SYSTEM, slug.lower())] = (url, description)
    return want


def arranged(tmp_path: Path) -> tuple[Path, Path, list[Row]]:
    """The sandbox's database (250 links, and the custom domain with its link), and the
    CSV (``source``) with its rows."""
    db = tmp_path / "sandbox.db"
    seeded(db, 250, described=True)
    src = tmp_path / "links.csv"
    rows = source(src)
    with serve_in_thread(SandboxSettings(rate_limit=1000), str(db)) as server:
        with_custom_domain(server.base_url)
    return db, src, rows


def test_the_peer_leaves_the_links_the_csv_asks_for(tmp_path: Path) -> None:
    db, src, rows = arranged(tmp_path)
    with serve_in_thread(SandboxSettings(rate_limit=1000), str(db)) as server:
        peer = run_peer(PEER, server.base_url, src)
        after = workspace(server.base_url)
        counts = plan_counts(server.base_url, src, tmp_path)
    assert after == expected(250, rows)
    assert (peer["created"], peer["updated"], peer["unchanged"], peer["failed"]) == (11, 16, 20, 0)
    assert (peer["links"], peer["pages"], peer["rate_limited"]) == (251, 3, 0)
    assert peer["requests_by_kind"] == {"create": 11, "list": 3, "update": 16}
    assert (counts["unchanged"], counts["update"], counts["create"]) == (47, 0, 0)


def test_the_peer_waits_out_the_rate_limit_and_still_leaves_the_same_links(
    tmp_path: Path,
) -> None:
    """10 requests a 1 s window: 32 writes sent at once meet 429s (at most 17 of them fit
    in the window they start in and the next), which the peer waits out and sends again."""
    db, src, rows = arranged(tmp_path)
    with serve_in_thread(SandboxSettings(rate_limit=10, rate_window_s=1.0), str(db)) as server:
        peer = run_peer(PEER, server.base_url, src)
    with serve_in_thread(SandboxSettings(rate_limit=1000), str(db)) as server:
        after = workspace(server.base_url)
    assert after == expected(250, rows)
    assert (peer["created"], peer["updated"], peer["failed"]) == (11, 16, 0)
    assert isinstance(peer["rate_limited"], int) and peer["rate_limited"] >= 1
    assert peer["requests"] == 3 + 11 + 16 + peer["rate_limited"]
