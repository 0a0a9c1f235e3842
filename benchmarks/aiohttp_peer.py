"""The plan a user would write by hand for a big workspace: aiohttp + orjson.

The yardstick of ``throughput.py --case scale``: it reads a CSV of desired links (slug,
url; an optional domain column), lists every page of the workspace (100 links a page,
32 requests in flight), and compares URLs: how many rows are unchanged, to update (the
link exists with another URL) and to create. It writes nothing.

It keeps to the rate limit as a careful script does: when a response says no more
requests remain in the window (``x-ratelimit-remaining``) than it still has in flight,
new requests wait for the window's end (``x-ratelimit-reset``); a 429 waits its
``Retry-After`` (5 s when absent) and is sent again; a 5xx or a dropped connection is
retried a few times after a short pause.

Usage::

    LINKSYNC_BASE_URL=http://127.0.0.1:8000 LINKSYNC_API_KEY=... \\
        python benchmarks/aiohttp_peer.py links.csv [--in-flight 32]

Prints one JSON object: counts, requests, 429s, pages, links listed, seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import os
import sys
import time
from typing import Any

import aiohttp
import orjson

LINKS = "/api/v1/links"
PAGE = 100
SYSTEM_DOMAIN = "lnk.test"
RETRIES = 8


def read_desired(path: str) -> dict[tuple[str, str], str]:
    """(domain, slug lower-cased) -> url of every CSV row with a slug."""
    with open(path, newline="", encoding="utf-8-sig") as fh:
        rows = csv.reader(fh)
        header = [h.strip().lower() for h in next(rows)]
        slug_at, url_at = header.index("slug"), header.index("url")
        domain_at = header.index("domain") if "domain" in header else None
        desired = {}
        for row in rows:
            if not row or not row[slug_at]:
                continue
            domain = (row[domain_at] if domain_at is not None else "") or SYSTEM_DOMAIN
            desired[(domain.lower(), row[slug_at].lower())] = row[url_at]
    return desired


class Lister:
    def __init__(self, http: aiohttp.ClientSession) -> None:
        self.http = http
        self.resume_at = 0.0  # time.time() before which no request is sent
        self.active = 0  # requests in flight
        self.requests = 0
        self.rate_limited = 0

    async def page(self, n: int) -> dict[str, Any]:
        """One list page, waiting out the rate limit and retrying failures."""
        for attempt in range(RETRIES):
            wait = self.resume_at - time.time()
            if wait > 0:
                await asyncio.sleep(wait)
            self.requests += 1
            self.active += 1
            try:
                async with self.http.get(LINKS, params={"page": n, "limit": PAGE}) as resp:
                    body = await resp.read()
                    headers = resp.headers
                    status = resp.status
            except aiohttp.ClientError:
                await asyncio.sleep(0.1 * 2**attempt)
                continue
            finally:
                self.active -= 1
            remaining = headers.get("x-ratelimit-remaining")
            if remaining is not None and int(remaining) <= self.active:
                self.resume_at = max(self.resume_at, float(headers["x-ratelimit-reset"]))
            if status == 200:
                page: dict[str, Any] = orjson.loads(body)
                return page
            if status == 429:
                self.rate_limited += 1
                retry_after = float(headers.get("retry-after", "5"))
                self.resume_at = max(self.resume_at, time.time() + retry_after)
            elif status < 500:
                raise RuntimeError(f"page {n}: HTTP {status}: {body[:200]!r}")
            else:
                await asyncio.sleep(0.1 * 2**attempt)
        raise RuntimeError(f"page {n}: gave up after {RETRIES} attempts")


async def plan(base_url: str, key: str, path: str, in_flight: int) -> dict[str, Any]:
    desired = read_desired(path)
    counts = {"unchanged": 0, "update": 0}
    seen = 0
    links = 0

    def compare(page: dict[str, Any]) -> None:
        nonlocal seen, links
        for link in page["data"]:
            links += 1
            want = desired.get((link["domain"].lower(), link["slug"].lower()))
            if want is not None:
                seen += 1
                counts["unchanged" if want == link["url"] else "update"] += 1

    headers = {"Authorization": f"Bearer {key}"}
    connector = aiohttp.TCPConnector(limit=in_flight)
    async with aiohttp.ClientSession(base_url, headers=headers, connector=connector) as http:
        lister = Lister(http)
        first = await lister.page(1)
        compare(first)
        pages = iter(range(2, first["pagination"]["totalPages"] + 1))

        async def worker() -> None:
            for n in pages:
                compare(await lister.page(n))

        await asyncio.gather(*(worker() for _ in range(in_flight)))
    return {
        "rows": len(desired),
        "links": links,
        "pages": first["pagination"]["totalPages"],
        "unchanged": counts["unchanged"],
        "update": counts["update"],
        "create": len(desired) - seen,
        "requests": lister.requests,
        "rate_limited": lister.rate_limited,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--in-flight", type=int, default=32)
    args = ap.parse_args()
    t0 = time.perf_counter()
    base_url, key = os.environ["LINKSYNC_BASE_URL"], os.environ["LINKSYNC_API_KEY"]
    result = asyncio.run(plan(base_url, key, args.csv, args.in_flight))
    result["wall_s"] = round(time.perf_counter() - t0, 3)
    print(orjson.dumps(result).decode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
