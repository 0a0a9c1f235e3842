"""The sync script a user would write by hand: httpx in a loop, one request at a time.

It is the baseline of ``throughput.py``. It reads a CSV (slug, url, description), learns
what the workspace holds (by listing every page, or with ``--lookup get`` by reading each
link), then creates or PATCHes one row after another. It honours Retry-After on 429 (5 s
when absent, as the interface says) and retries 500/503 and dropped connections a few
times with a short backoff, so it finishes the same workload linksync does.

Usage::

    LINKSYNC_BASE_URL=http://127.0.0.1:8000 LINKSYNC_API_KEY=... \\
        python benchmarks/sequential_peer.py links.csv

Prints one JSON object: wall time, requests by kind, 429s, rows created/updated/
unchanged/failed.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

LINKS = "/api/v1/links"
MAX_RETRIES = 5
RETRYABLE = (429, 500, 502, 503, 504)


class Peer:
    def __init__(self, base_url: str, api_key: str, timeout: float = 30.0) -> None:
        self.http = httpx.Client(
            base_url=base_url,
            headers={"Authorization": f"Bearer {api_key}"},
            timeout=timeout,
        )
        self.requests: Counter[str] = Counter()
        self.rate_limited = 0
        self.retries = 0

    def close(self) -> None:
        self.http.close()

    def call(self, kind: str, method: str, path: str, **kw: Any) -> httpx.Response | None:
        """One request, retried on 429 (Retry-After), 5xx and dropped connections."""
        for attempt in range(MAX_RETRIES + 1):
            self.requests[kind] += 1
            try:
                resp = self.http.request(method, path, **kw)
            except httpx.TransportError:
                resp = None
            if resp is not None and resp.status_code not in RETRYABLE:
                return resp
            if attempt == MAX_RETRIES:
                return resp
            self.retries += 1
            if resp is not None and resp.status_code == 429:
                self.rate_limited += 1
                try:
                    wait = float(resp.headers.get("Retry-After", "5"))
                except ValueError:
                    wait = 5.0
            else:
                wait = 0.2 * 2**attempt
            time.sleep(max(wait, 0.0))
        return None

    def list_links(self) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        page = 1
        while page < 100_000:
            resp = self.call("list", "GET", LINKS, params={"page": page, "limit": 100})
            if resp is None or resp.status_code != 200:
                raise SystemExit(f"cannot list links (page {page})")
            body = resp.json()
            items = body.get("data", []) if isinstance(body, dict) else body
            for link in items:
                out[str(link["slug"]).lower()] = link
            if len(items) < 100:
                break
            page += 1
        return out

    def get_link(self, slug: str) -> dict[str, Any] | None:
        resp = self.call("get", "GET", f"{LINKS}/{slug}")
        if resp is not None and resp.status_code == 200:
            body = resp.json()
            data = body.get("data", body) if isinstance(body, dict) else body
            return data if isinstance(data, dict) else None
        return None

    def sync_row(self, row: dict[str, str], remote: dict[str, Any] | None) -> str:
        slug = row["slug"].strip()
        wanted = {"url": row["url"].strip()}
        if row.get("description"):
            wanted["description"] = row["description"]
        if remote is None:
            resp = self.call("create", "POST", LINKS, json={"slug": slug, **wanted})
            if resp is not None and resp.status_code in (200, 201):
                return "created"
            if resp is not None and resp.status_code == 409:
                # Created by an earlier attempt whose answer was lost: patch instead.
                remote = {}
            else:
                return "failed"
        changes = {k: v for k, v in wanted.items() if remote.get(k) != v}
        if not changes:
            return "unchanged"
        resp = self.call("update", "PATCH", f"{LINKS}/{slug}", json=changes)
        return "updated" if resp is not None and resp.status_code == 200 else "failed"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source", type=Path, help="CSV with slug,url,description")
    ap.add_argument("--base-url", default=os.environ.get("LINKSYNC_BASE_URL"))
    ap.add_argument(
        "--lookup",
        choices=("list", "get"),
        default="list",
        help="learn the workspace by listing every page (default) or by reading each link",
    )
    args = ap.parse_args(argv)
    key = os.environ.get("LINKSYNC_API_KEY")
    if not args.base_url or not key:
        print("set LINKSYNC_BASE_URL and LINKSYNC_API_KEY", file=sys.stderr)
        return 2
    with args.source.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    peer = Peer(args.base_url, key)
    outcomes: Counter[str] = Counter()
    t0 = time.perf_counter()
    try:
        remote = peer.list_links() if args.lookup == "list" else None
        for row in rows:
            slug = row["slug"].strip().lower()
            current = remote.get(slug) if remote is not None else peer.get_link(slug)
            outcomes[peer.sync_row(row, current)] += 1
    finally:
        peer.close()
    wall = time.perf_counter() - t0
    result = {
        "rows": len(rows),
        "wall_s": round(wall, 3),
        "requests": sum(peer.requests.values()),
        "requests_by_kind": dict(sorted(peer.requests.items())),
        "rate_limited": peer.rate_limited,
        "retries": peer.retries,
        "outcomes": dict(sorted(outcomes.items())),
        "failed": outcomes["failed"],
    }
    print(json.dumps(result, sort_keys=True))
    return 1 if outcomes["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
