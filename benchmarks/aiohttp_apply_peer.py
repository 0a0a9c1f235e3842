"""The apply a user would write by hand for speed: aiohttp + orjson, requests in flight.

The yardstick of ``throughput.py --case fast``: it reads a CSV of desired links (slug,
url; optional description and domain columns), lists every page of the workspace (100
links a page), matches rows to links by (domain, slug) without regard to case, then
creates (POST) the rows the workspace lacks and PATCHes the links whose URL or
description differs (only the fields that differ). Pages and writes alike go
``--in-flight`` at a time (32 by default; ``throughput.py`` gives it linksync's count).

It keeps to the rate limit as a careful script does: when a response says no more
requests remain in the window (``x-ratelimit-remaining``) than it still has in flight,
new requests wait for the window's end (``x-ratelimit-reset``); a 429 waits its
``Retry-After`` (5 s when absent) and is sent again; a 5xx or a dropped connection is
retried a few times after a short pause (a create retried after a lost answer that
meets 409 SLUG_EXISTS counts as created: the first attempt made it).

Usage::

    LINKSYNC_BASE_URL=http://127.0.0.1:8000 LINKSYNC_API_KEY=... \\
        python benchmarks/aiohttp_apply_peer.py links.csv [--in-flight 32]

Prints one JSON object: rows, links listed, pages, created / updated / unchanged /
failed, requests (and by kind), 429s, its own wall and CPU seconds. Exit 1 when a row
failed.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import os
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import aiohttp
import orjson

LINKS = "/api/v1/links"
PAGE = 100
SYSTEM_DOMAIN = "lnk.test"
RETRIES = 8
FIELDS = ("url", "description")


def read_desired(path: str) -> dict[tuple[str, str], dict[str, str]]:
    """(domain, slug lower-cased) -> the row's slug, url, description (when given) and
    domain (when not the system domain), for every CSV row with a slug."""
    with open(path, newline="", encoding="utf-8-sig") as fh:
        rows = csv.reader(fh)
        header = [h.strip().lower() for h in next(rows)]
        slug_at, url_at = header.index("slug"), header.index("url")
        desc_at = header.index("description") if "description" in header else None
        domain_at = header.index("domain") if "domain" in header else None
        desired = {}
        for row in rows:
            if not row or not row[slug_at].strip():
                continue
            want = {"slug": row[slug_at].strip(), "url": row[url_at].strip()}
            if desc_at is not None and row[desc_at]:
                want["description"] = row[desc_at]
            domain = (row[domain_at].strip() if domain_at is not None else "").lower()
            if domain and domain != SYSTEM_DOMAIN:
                want["domain"] = domain
            desired[(domain or SYSTEM_DOMAIN, want["slug"].lower())] = want
    return desired


class Client:
    def __init__(self, http: aiohttp.ClientSession) -> None:
        self.http = http
        self.resume_at = 0.0  # time.time() before which no request is sent
        self.active = 0  # requests in flight
        self.requests: Counter[str] = Counter()
        self.rate_limited = 0

    async def send(self, kind: str, method: str, path: str, **kw: Any) -> tuple[int, bytes]:
        """One request: (status, body) of its last attempt, waiting out the rate limit
        and retrying 429s, 5xx and dropped connections."""
        status, body = 0, b""
        for attempt in range(RETRIES):
            wait = self.resume_at - time.time()
            if wait > 0:
                await asyncio.sleep(wait)
            self.requests[kind] += 1
            self.active += 1
            try:
                async with self.http.request(method, path, **kw) as resp:
                    body = await resp.read()
                    headers = resp.headers
                    status = resp.status
            except aiohttp.ClientError:
                status = 0
                await asyncio.sleep(0.1 * 2**attempt)
                continue
            finally:
                self.active -= 1
            remaining = headers.get("x-ratelimit-remaining")
            if remaining is not None and int(remaining) <= self.active:
                self.resume_at = max(self.resume_at, float(headers["x-ratelimit-reset"]))
            if status == 429:
                self.rate_limited += 1
                retry_after = float(headers.get("retry-after", "5"))
                self.resume_at = max(self.resume_at, time.time() + retry_after)
            elif status >= 500:
                await asyncio.sleep(0.1 * 2**attempt)
            elif kind == "create" and status == 409 and attempt > 0:
                return 201, body  # an earlier attempt made it; its answer was lost
            else:
                return status, body
        return status, body

    async def page(self, n: int) -> dict[str, Any]:
        status, body = await self.send("list", "GET", LINKS, params={"page": n, "limit": PAGE})
        if status != 200:
            raise RuntimeError(f"page {n}: HTTP {status}: {body[:200]!r}")
        page: dict[str, Any] = orjson.loads(body)
        return page


async def each(items: Iterable[Any], in_flight: int, job: Callable[[Any], Awaitable[None]]) -> None:
    """``job(item)`` for every item, ``in_flight`` at a time."""
    todo = iter(items)

    async def worker() -> None:
        for item in todo:
            await job(item)

    await asyncio.gather(*(worker() for _ in range(in_flight)))


async def apply(base_url: str, key: str, path: str, in_flight: int) -> dict[str, Any]:
    desired = read_desired(path)
    remote: dict[tuple[str, str], dict[str, Any]] = {}

    def keep(page: dict[str, Any]) -> None:
        for link in page["data"]:
            remote[(link["domain"].lower(), link["slug"].lower())] = link

    headers = {"Authorization": f"Bearer {key}"}
    connector = aiohttp.TCPConnector(limit=in_flight)
    outcomes: Counter[str] = Counter()
    async with aiohttp.ClientSession(base_url, headers=headers, connector=connector) as http:
        client = Client(http)
        first = await client.page(1)
        keep(first)
        pages = first["pagination"]["totalPages"]

        async def list_page(n: int) -> None:
            keep(await client.page(n))

        await each(range(2, pages + 1), in_flight, list_page)

        writes: list[tuple[str, str, str, dict[str, Any], dict[str, str]]] = []
        for (domain, slug), want in desired.items():
            link = remote.get((domain, slug))
            if link is None:
                writes.append(("create", "POST", LINKS, {}, want))
                continue
            changes = {f: want[f] for f in FIELDS if f in want and link.get(f) != want[f]}
            if not changes:
                outcomes["unchanged"] += 1
                continue
            params = {"domain": domain} if domain != SYSTEM_DOMAIN else {}
            writes.append(("update", "PATCH", f"{LINKS}/{link['slug']}", params, changes))

        async def write(w: tuple[str, str, str, dict[str, Any], dict[str, str]]) -> None:
            kind, method, where, params, body = w
            status, _ = await client.send(
                kind,
                method,
                where,
                params=params,
                data=orjson.dumps(body),
                headers={"Content-Type": "application/json"},
            )
            ok = status == 201 if kind == "create" else status == 200
            outcomes[("created" if kind == "create" else "updated") if ok else "failed"] += 1

        await each(writes, in_flight, write)
    return {
        "rows": len(desired),
        "links": len(remote),
        "pages": pages,
        "created": outcomes["created"],
        "updated": outcomes["updated"],
        "unchanged": outcomes["unchanged"],
        "failed": outcomes["failed"],
        "requests": sum(client.requests.values()),
        "requests_by_kind": dict(sorted(client.requests.items())),
        "rate_limited": client.rate_limited,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--in-flight", type=int, default=32)
    args = ap.parse_args()
    t0 = time.perf_counter()
    base_url, key = os.environ["LINKSYNC_BASE_URL"], os.environ["LINKSYNC_API_KEY"]
    result = asyncio.run(apply(base_url, key, args.csv, args.in_flight))
    result["wall_s"] = round(time.perf_counter() - t0, 3)
    result["cpu_s"] = round(time.process_time(), 3)
    print(orjson.dumps(result).decode())
    return 1 if result["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
