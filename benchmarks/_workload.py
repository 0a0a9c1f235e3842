"""Workloads of the benchmarks and the checks of the workspace afterwards.

- ``make_workload`` / ``write_csv``: E preloaded links and N source rows (50% new,
  30% changed, 20% unchanged by default), deterministic for a seed.
- ``existing_link`` / ``unchanged_rows``: the preloaded link number i, and source rows
  that match preloaded links (streamed, for workspaces of a million links).
- ``seed_store``: writes the preloaded links straight into a sandbox database file
  through the store's bulk import (a million links in seconds).
- ``check_workspace`` / ``slug_counts``: the workspace against what the workload
  expects: duplicates per slug (and per URL for rows without slug), missing, wrong.
"""

from __future__ import annotations

import csv
import random
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SYSTEM_DOMAIN = "lnk.test"


@dataclass(frozen=True, slots=True)
class Workload:
    """Preloaded links, source rows, and what the workspace must hold afterwards."""

    existing: tuple[dict[str, Any], ...]
    rows: tuple[dict[str, str], ...]
    expected: Mapping[str, str]  # slug -> url after a successful sync
    new: int
    changed: int
    unchanged: int
    slugless: tuple[str, ...] = ()  # URLs of new rows without slug (service picks one)

    @property
    def writes(self) -> int:
        return self.new + self.changed + len(self.slugless)

    @property
    def expected_links(self) -> int:
        return len(self.expected) + len(self.slugless)


def existing_link(i: int) -> dict[str, Any]:
    """The preloaded link number ``i`` (slug, url, description)."""
    return {
        "slug": f"bench-{i:06d}",
        "url": f"https://example.com/landing/{i}",
        "description": f"Preloaded link {i}",
    }


def unchanged_rows(existing: int, rows: int) -> Iterator[dict[str, str]]:
    """``rows`` source rows equal to preloaded links (all of them when ``rows`` =
    ``existing``; else every k-th), without building a workload in memory."""
    if rows > existing:
        raise ValueError("not enough preloaded links for the unchanged rows")
    step = existing / rows if rows else 1.0
    for n in range(rows):
        yield existing_link(int(n * step))


def make_workload(
    existing: int,
    rows: int,
    *,
    new_share: float = 0.5,
    changed_share: float = 0.3,
    slugless: int = 0,
    seed: int = 1,
) -> Workload:
    """E preloaded links; N rows of which ``new_share`` new, ``changed_share`` changed
    (new URL for an existing slug) and the rest unchanged (same values); plus
    ``slugless`` new rows without slug (matched by URL; a retried create must not
    duplicate them)."""
    new = round(rows * new_share)
    changed = round(rows * changed_share)
    unchanged = rows - new - changed
    if changed + unchanged > existing:
        raise ValueError("not enough preloaded links for the changed and unchanged rows")
    links = tuple(existing_link(i) for i in range(existing))
    rng = random.Random(seed)
    picked = rng.sample(range(existing), changed + unchanged)
    out: list[dict[str, str]] = []
    expected = {str(link["slug"]): str(link["url"]) for link in links}
    for n, i in enumerate(picked):
        link = links[i]
        slug = str(link["slug"])
        if n < changed:
            url = f"https://example.com/changed/{i}?v={seed}"
            out.append({"slug": slug, "url": url, "description": str(link["description"])})
            expected[slug] = url
        else:
            out.append(
                {"slug": slug, "url": str(link["url"]), "description": str(link["description"])}
            )
    for j in range(new):
        slug = f"new-{seed}-{j:06d}"
        url = f"https://example.com/new/{j}?s={seed}"
        out.append({"slug": slug, "url": url, "description": f"New link {j}"})
        expected[slug] = url
    free = tuple(f"https://example.com/noslug/{k}?s={seed}" for k in range(slugless))
    out.extend({"slug": "", "url": url, "description": "No slug"} for url in free)
    rng.shuffle(out)
    return Workload(links, tuple(out), expected, new, changed, unchanged, free)


def write_csv(rows: Iterable[Mapping[str, str]], path: Path) -> Path:
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=["slug", "url", "description"])
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in ("slug", "url", "description")})
    return path


def seed_store(db: Path, links: Iterable[Mapping[str, Any]]) -> float:
    """Write ``links`` straight into a sandbox database file (before ``serve``), through
    the sandbox's own Store (``Store.import_links``) and id/timestamp makers, in one
    transaction. Much faster than the API for big workspaces; returns the seconds."""
    from linksync.rules.timestamps import format_ts
    from linksync.sandbox.backend import Backend
    from linksync.sandbox.rows import LinkRow
    from linksync.sandbox.settings import SandboxSettings
    from linksync.sandbox.store import Store

    t0 = time.perf_counter()
    settings = SandboxSettings()
    store = Store(str(db))
    try:
        backend = Backend(settings, store, time.time)
        domain = settings.system_domain

        def rows() -> Iterator[LinkRow]:
            ts, at = "", 0
            for link in links:
                now = int(time.time() * 1000)
                if now != at:  # one timestamp string per millisecond
                    ts, at = format_ts(backend.now()), now
                yield LinkRow(
                    id=backend.new_id("lnk"),
                    domain=domain,
                    slug=str(link["slug"]),
                    url=str(link["url"]),
                    description=link.get("description"),
                    tags=tuple(link.get("tags") or ()),
                    apple=None,
                    google=None,
                    password_hash=None,
                    expires_at=None,
                    created_at=ts,
                    updated_at=ts,
                )

        store.import_links(rows())
    finally:
        store.close()
    return time.perf_counter() - t0


def slug_counts(links: Sequence[Mapping[str, Any]]) -> Counter[tuple[str, str]]:
    """How many links each (domain, slug) has: anything above 1 is a duplicate."""
    return Counter(
        (str(link.get("domain") or SYSTEM_DOMAIN).lower(), str(link.get("slug", "")).lower())
        for link in links
    )


@dataclass(frozen=True, slots=True)
class Check:
    """The workspace after a run, against what the workload expects."""

    links_after: int
    links_expected: int
    duplicates: int
    missing: int
    wrong_url: int
    unexpected: int
    slugless_duplicates: int = 0
    slugless_missing: int = 0

    @property
    def ok(self) -> bool:
        return (
            self.links_after == self.links_expected
            and (
                self.duplicates
                + self.missing
                + self.wrong_url
                + self.unexpected
                + self.slugless_duplicates
                + self.slugless_missing
            )
            == 0
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "links_after": self.links_after,
            "links_expected": self.links_expected,
            "duplicates": self.duplicates,
            "missing": self.missing,
            "wrong_url": self.wrong_url,
            "unexpected": self.unexpected,
            "slugless_duplicates": self.slugless_duplicates,
            "slugless_missing": self.slugless_missing,
            "ok": self.ok,
        }


def check_workspace(
    links: Sequence[Mapping[str, Any]],
    expected: Mapping[str, str],
    slugless: Sequence[str] = (),
) -> Check:
    """Compare the workspace with the expected slug -> URL map; links created without
    a slug are matched by URL (exactly one each)."""
    counts = slug_counts(links)
    free = set(slugless)
    by_url = Counter(str(link.get("url", "")) for link in links)
    by_slug = {
        str(link.get("slug", "")).lower(): str(link.get("url", ""))
        for link in links
        if str(link.get("url", "")) not in free
    }
    want = {k.lower(): v for k, v in expected.items()}
    return Check(
        links_after=len(links),
        links_expected=len(want) + len(free),
        duplicates=sum(n - 1 for n in counts.values() if n > 1),
        missing=sum(1 for s in want if s not in by_slug),
        wrong_url=sum(1 for s, u in want.items() if s in by_slug and by_slug[s] != u),
        unexpected=sum(1 for s in by_slug if s not in want),
        slugless_duplicates=sum(by_url[u] - 1 for u in free if by_url[u] > 1),
        slugless_missing=sum(1 for u in free if by_url[u] == 0),
    )
