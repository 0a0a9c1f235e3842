"""Shared helpers of the benchmark and reliability scripts.

- ``Sandbox``: runs ``linksync sandbox serve`` as a subprocess on a free 127.0.0.1 port,
  reads the base URL it prints, and always stops it (context manager).
- ``make_workload`` / ``write_csv``: E preloaded links and N source rows (50% new,
  30% changed, 20% unchanged by default), deterministic for a seed.
- ``preload``: creates the preloaded links through the API, concurrently, retrying.
- ``list_all`` / ``slug_counts``: what the workspace holds afterwards, per slug.
- ``run_cli``: runs one linksync command with a timeout, measuring wall time and the
  child's peak memory; the process is always reaped.

Only 127.0.0.1 is ever contacted. Every loop is bounded in count and in time.
"""

from __future__ import annotations

import asyncio
import csv
import json
import os
import queue
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import httpx

FULL_KEY = "sandbox-full-access-key"
READ_KEY = "sandbox-read-only-key"
SYSTEM_DOMAIN = "lnk.test"
LINKS = "/api/v1/links"
PAGE = 100
URL_RE = re.compile(r"https?://127\.0\.0\.1:\d+")


def linksync_argv() -> list[str]:
    """How to run the linksync CLI of this interpreter's environment."""
    exe = Path(sys.executable).parent / "linksync"
    if exe.exists():
        return [str(exe)]
    found = shutil.which("linksync")
    if found:
        return [found]
    return [sys.executable, "-c", "from linksync.cli import main; main()"]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --------------------------------------------------------------------------- sandbox


@dataclass(frozen=True, slots=True)
class SandboxOptions:
    """Flags of ``linksync sandbox serve``."""

    rate_limit: int = 100
    rate_window: float = 1.0
    latency_ms: tuple[int, int] | None = (20, 40)
    fail_500: float = 0.0
    fail_503: float = 0.0
    drop: float = 0.0
    fail_500_after_write: float = 0.0
    seed: int = 7
    link_quota: int = 1_000_000
    db: Path | None = None
    extra: tuple[str, ...] = ()

    def argv(self, port: int) -> list[str]:
        out = [
            "sandbox",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--rate-limit",
            str(self.rate_limit),
            "--rate-window",
            f"{self.rate_window:g}",
            "--seed",
            str(self.seed),
        ]
        if self.latency_ms is not None:
            out += ["--latency-ms", f"{self.latency_ms[0]}-{self.latency_ms[1]}"]
        if self.fail_500:
            out += ["--fail-500", f"{self.fail_500:g}"]
        if self.fail_503:
            out += ["--fail-503", f"{self.fail_503:g}"]
        if self.drop:
            out += ["--drop", f"{self.drop:g}"]
        if self.fail_500_after_write:
            out += ["--fail-500-after-write", f"{self.fail_500_after_write:g}"]
        out += ["--link-quota", str(self.link_quota)]
        out += ["--db", str(self.db)] if self.db is not None else ["--memory"]
        return out + list(self.extra)


class _Drain(threading.Thread):
    """Reads a child's stream line by line so its pipe never fills; keeps a tail."""

    def __init__(self, stream: IO[str], sink: queue.Queue[str] | None) -> None:
        super().__init__(daemon=True)
        self.stream = stream
        self.sink = sink
        self.tail: list[str] = []

    def run(self) -> None:
        for line in self.stream:
            if self.sink is not None:
                self.sink.put(line)
            self.tail.append(line)
            if len(self.tail) > 200:
                del self.tail[:100]


@dataclass
class Sandbox:
    """A running ``linksync sandbox serve`` subprocess."""

    options: SandboxOptions
    base_url: str = ""
    key: str = FULL_KEY
    read_key: str = READ_KEY
    proc: subprocess.Popen[str] | None = None
    banner: list[str] = field(default_factory=list)
    _drains: list[_Drain] = field(default_factory=list)

    def start(self, timeout: float = 30.0) -> Sandbox:
        port = free_port()
        env = dict(os.environ, PYTHONUNBUFFERED="1", NO_COLOR="1")
        self.proc = subprocess.Popen(
            [*linksync_argv(), *self.options.argv(port)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            env=env,
            start_new_session=True,
        )
        assert self.proc.stdout is not None and self.proc.stderr is not None
        lines: queue.Queue[str] = queue.Queue()
        self._drains = [_Drain(self.proc.stdout, lines), _Drain(self.proc.stderr, lines)]
        for d in self._drains:
            d.start()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break
            try:
                line = lines.get(timeout=0.1)
            except queue.Empty:
                continue
            self.banner.append(line.rstrip())
            m = URL_RE.search(line)
            if m and not self.base_url:
                self.base_url = m.group(0)
            if self.base_url and self._ready():
                return self
        tail = "\n".join(self.banner[-20:] + self.output_tail())
        self.stop()
        raise RuntimeError(f"sandbox did not start within {timeout:.0f}s:\n{tail}")

    def _ready(self) -> bool:
        try:
            r = httpx.get(
                f"{self.base_url}/api/v1/organizations/current",
                headers={"Authorization": f"Bearer {self.read_key}"},
                timeout=5.0,
            )
        except httpx.HTTPError:
            return False
        return r.status_code > 0  # any HTTP answer (even an injected fault) means it is up

    def output_tail(self) -> list[str]:
        return [line.rstrip() for d in self._drains for line in d.tail[-20:]]

    def stop(self) -> None:
        proc = self.proc
        if proc is None:
            return
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGINT)
                proc.wait(timeout=10)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                with suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
        for d in self._drains:
            d.join(timeout=2)
        self.proc = None

    def env(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """Environment that points the linksync CLI at this sandbox."""
        env = dict(os.environ, NO_COLOR="1", LINKSYNC_BASE_URL=self.base_url)
        env["LINKSYNC_API_KEY"] = self.key
        env.pop("FORCE_COLOR", None)
        if extra:
            env.update(extra)
        return env


@contextmanager
def running_sandbox(options: SandboxOptions, timeout: float = 30.0) -> Iterator[Sandbox]:
    box = Sandbox(options)
    try:
        box.start(timeout)
        yield box
    finally:
        box.stop()


def copy_db(src: Path, dst: Path) -> Path:
    """Copy a SQLite sandbox database, with its WAL side files if present."""
    shutil.copyfile(src, dst)
    for suffix in ("-wal", "-shm"):
        side = Path(str(src) + suffix)
        if side.exists():
            shutil.copyfile(side, Path(str(dst) + suffix))
    return dst


# --------------------------------------------------------------------------- workload


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


def _existing_link(i: int) -> dict[str, Any]:
    return {
        "slug": f"bench-{i:06d}",
        "url": f"https://example.com/landing/{i}",
        "description": f"Preloaded link {i}",
    }


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
    links = tuple(_existing_link(i) for i in range(existing))
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


def write_csv(rows: Sequence[Mapping[str, str]], path: Path) -> Path:
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=["slug", "url", "description"])
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in ("slug", "url", "description")})
    return path


# --------------------------------------------------------------------------- HTTP helpers


def _headers(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _retry_wait(resp: httpx.Response | None, attempt: int) -> float:
    if resp is not None and resp.status_code == 429:
        try:
            return min(float(resp.headers.get("retry-after", "1")), 10.0) + 0.05
        except ValueError:
            return 1.0
    return min(0.05 * 2.0**attempt, 2.0)


async def _post_one(
    client: httpx.AsyncClient, payload: Mapping[str, Any], attempts: int = 12
) -> int:
    """POST one link; a 409 counts as done (an earlier attempt whose answer was lost)."""
    resp: httpx.Response | None = None
    for attempt in range(attempts):
        try:
            resp = await client.post(LINKS, json=dict(payload))
        except httpx.TransportError:
            resp = None
            await asyncio.sleep(_retry_wait(None, attempt))
            continue
        if resp.status_code in (201, 200, 409):
            return resp.status_code
        if resp.status_code in (429, 500, 502, 503, 504):
            await asyncio.sleep(_retry_wait(resp, attempt))
            continue
        raise RuntimeError(f"preload of {payload.get('slug')} got HTTP {resp.status_code}")
    raise RuntimeError(f"preload of {payload.get('slug')} gave up after {attempts} attempts")


async def _preload(
    base_url: str, key: str, links: Sequence[Mapping[str, Any]], concurrency: int
) -> None:
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(
        base_url=base_url, headers=_headers(key), limits=limits, timeout=30.0
    ) as client:
        it = iter(links)

        async def worker() -> None:
            for payload in it:
                await _post_one(client, payload)

        await asyncio.gather(*(worker() for _ in range(concurrency)))


def preload(
    base_url: str, key: str, links: Sequence[Mapping[str, Any]], concurrency: int = 16
) -> float:
    """Create ``links`` through the API; returns the seconds it took."""
    t0 = time.perf_counter()
    asyncio.run(_preload(base_url, key, links, concurrency))
    return time.perf_counter() - t0


def seed_store(db: Path, links: Sequence[Mapping[str, Any]], *, batch: int = 5_000) -> float:
    """Write ``links`` straight into a sandbox database file (before ``serve``), through
    the sandbox's own Store and id/timestamp makers, in a few large transactions.
    Much faster than the API for big workspaces; returns the seconds it took."""
    import dataclasses

    from linksync.rules import format_ts
    from linksync.sandbox.backend import Backend
    from linksync.sandbox.settings import SandboxSettings
    from linksync.sandbox.store import LinkRow, Store

    t0 = time.perf_counter()
    settings = SandboxSettings(link_quota=max(len(links), 1))
    store = Store(str(db))
    try:
        backend = Backend(settings, store, time.time)
        columns = [f.name for f in dataclasses.fields(LinkRow)]
        sql = f"INSERT INTO links ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})"
        for start in range(0, len(links), batch):
            values = []
            for link in links[start : start + batch]:
                ts = format_ts(backend.now())
                row = LinkRow(
                    id=backend.new_id("lnk"),
                    domain=settings.system_domain,
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
                values.append(
                    tuple(
                        json.dumps(list(v)) if c == "tags" else v
                        for c, v in zip(columns, dataclasses.astuple(row), strict=True)
                    )
                )
            with store.transaction() as conn:
                conn.executemany(sql, values)
    finally:
        store.close()
    return time.perf_counter() - t0


async def _probe(base_url: str, key: str, slugs: Sequence[str], seconds: float, conc: int) -> int:
    done = 0
    deadline = time.monotonic() + seconds
    limits = httpx.Limits(max_connections=conc, max_keepalive_connections=conc)
    async with httpx.AsyncClient(
        base_url=base_url, headers=_headers(key), limits=limits, timeout=30.0
    ) as client:

        async def worker(k: int) -> None:
            nonlocal done
            i = k
            while time.monotonic() < deadline and done < 1_000_000:
                await client.get(f"{LINKS}/{slugs[i % len(slugs)]}")
                done += 1
                i += conc

        await asyncio.gather(*(worker(k) for k in range(conc)))
    return done


def sandbox_capacity(
    latency_ms: tuple[int, int] | None, *, seconds: float = 3.0, concurrency: int = 16
) -> float:
    """Requests per second a sandbox on this machine serves right now with no rate limit
    (reads of one link, ``concurrency`` in flight): the ceiling of any client here."""
    opts = SandboxOptions(rate_limit=10_000_000, latency_ms=latency_ms)
    links = [{"slug": f"probe-{i}", "url": f"https://example.com/{i}"} for i in range(20)]
    with running_sandbox(opts) as box:
        preload(box.base_url, box.key, links, concurrency=4)
        t0 = time.perf_counter()
        done = asyncio.run(
            _probe(box.base_url, box.key, [str(x["slug"]) for x in links], seconds, concurrency)
        )
        return done / (time.perf_counter() - t0)


def link_count(base_url: str, key: str) -> int:
    """The workspace's linkCount, from the current-organization endpoint (retrying)."""
    with httpx.Client(base_url=base_url, headers=_headers(key), timeout=30.0) as client:
        for attempt in range(20):
            try:
                r = client.get("/api/v1/organizations/current")
            except httpx.TransportError:
                time.sleep(_retry_wait(None, attempt))
                continue
            if r.status_code == 200:
                return int(r.json()["data"]["linkCount"])
            time.sleep(_retry_wait(r, attempt))
    raise RuntimeError("cannot read the organization's linkCount")


def _page_items(body: Any) -> list[dict[str, Any]]:
    data = body.get("data") if isinstance(body, dict) else body
    if isinstance(data, dict):
        for k in ("links", "items", "data", "results"):
            if isinstance(data.get(k), list):
                return list(data[k])
        return []
    return list(data) if isinstance(data, list) else []


def list_all(
    base_url: str, key: str, *, max_pages: int = 5_000, timeout: float = 600
) -> list[dict[str, Any]]:
    """Every link of the workspace, page by page (limit 100), retrying transient errors."""
    out: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    with httpx.Client(base_url=base_url, headers=_headers(key), timeout=30.0) as client:
        for page in range(1, max_pages + 1):
            items: list[dict[str, Any]] | None = None
            for attempt in range(20):
                if time.monotonic() > deadline:
                    raise TimeoutError("listing the workspace took too long")
                try:
                    r = client.get(LINKS, params={"page": page, "limit": PAGE})
                except httpx.TransportError:
                    time.sleep(_retry_wait(None, attempt))
                    continue
                if r.status_code == 200:
                    items = _page_items(r.json())
                    break
                if r.status_code in (429, 500, 502, 503, 504):
                    time.sleep(_retry_wait(r, attempt))
                    continue
                raise RuntimeError(f"listing page {page} got HTTP {r.status_code}")
            if items is None:
                raise RuntimeError(f"listing page {page} kept failing")
            out.extend(items)
            if len(items) < PAGE:
                return out
    raise RuntimeError(f"workspace holds more than {max_pages} pages")


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


# --------------------------------------------------------------------------- reports

FAILED_STATUSES = ("failed", "invalid")


@dataclass(frozen=True, slots=True)
class Report:
    """A per-row report written by ``linksync apply --report FILE`` (.json or .jsonl)."""

    rows: tuple[dict[str, Any], ...]
    run_info: dict[str, Any] | None

    @property
    def by_status(self) -> dict[str, int]:
        return dict(sorted(Counter(str(r.get("status")) for r in self.rows).items()))

    @property
    def failed(self) -> int:
        return sum(1 for r in self.rows if r.get("status") in FAILED_STATUSES)

    def slugs(self) -> set[str]:
        return {str(r.get("slug") or "").lower() for r in self.rows if r.get("slug")}


def _is_row(obj: Any) -> bool:
    return isinstance(obj, dict) and "status" in obj and "action" in obj


def read_report(path: Path) -> Report:
    """Rows and run facts of a JSON report (a list of rows, or an object holding one)
    or a JSONL report (one row per line, run facts on a line of their own)."""
    text = path.read_text(encoding="utf-8")
    rows: list[dict[str, Any]] = []
    info: dict[str, Any] | None = None
    if path.suffix == ".jsonl":
        for line in text.splitlines():
            if not line.strip():
                continue
            obj = json.loads(line)
            if _is_row(obj):
                rows.append(obj)
            elif isinstance(obj, dict):
                info = obj.get("run", obj)
        return Report(tuple(rows), info)
    doc = json.loads(text)
    if isinstance(doc, list):
        return Report(tuple(r for r in doc if _is_row(r)), None)
    for key in ("rows", "results", "items"):
        if isinstance(doc.get(key), list):
            rows = [r for r in doc[key] if _is_row(r)]
            break
    for key in ("run", "summary", "info", "run_info"):
        if isinstance(doc.get(key), dict):
            info = doc[key]
            break
    return Report(tuple(rows), info)


WRITE_OPS = ("POST ", "PATCH ", "DELETE ")


@dataclass(frozen=True, slots=True)
class Journal:
    """One run journal (``.linksync/runs/*.jsonl``, see ``linksync.sync.journal``).

    ``answered_writes``: ``request`` events of POST/PATCH/DELETE calls that got an HTTP
    answer (a status), in order. ``results``: the ``result`` events (report rows).
    ``planned_writes``: the write count of the ``start`` event."""

    answered_writes: tuple[dict[str, Any], ...]
    results: tuple[dict[str, Any], ...]
    planned_writes: int | None

    def answered_ok_slugs(self) -> set[str]:
        return {
            str(e.get("slug") or "").lower()
            for e in self.answered_writes
            if isinstance(e.get("status"), int) and 200 <= e["status"] < 300
        }


def read_journal(path: Path) -> Journal:
    """Read a journal leniently: a killed run may leave a torn last line."""
    writes: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    planned: int | None = None
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return Journal((), (), None)
    for line in text.splitlines():
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(obj, dict):
            continue
        event = obj.get("event")
        if event == "request" and str(obj.get("op", "")).startswith(WRITE_OPS):
            if obj.get("status") is not None:
                writes.append(obj)
        elif event == "result":
            results.append(obj)
        elif event == "start" and isinstance(obj.get("writes"), int):
            planned = obj["writes"]
    return Journal(tuple(writes), tuple(results), planned)


# --------------------------------------------------------------------------- CLI runs


@dataclass(frozen=True, slots=True)
class CliRun:
    argv: tuple[str, ...]
    returncode: int | None  # None: killed on timeout
    stdout: str
    stderr: str
    wall_s: float
    max_rss_mb: float
    timed_out: bool = False

    @property
    def traceback(self) -> bool:
        return "Traceback (most recent call last)" in (self.stdout + self.stderr)


def _rss_mb(ru_maxrss: int) -> float:
    # Linux reports kilobytes, macOS bytes.
    return ru_maxrss / (1024 * 1024) if sys.platform == "darwin" else ru_maxrss / 1024


def run_cli(
    args: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = 300.0,
) -> CliRun:
    """Run ``linksync ARGS``; measure wall time and the child's own peak RSS."""
    argv = (*linksync_argv(), *args)
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as out_fh, tempfile.TemporaryFile() as err_fh:
        proc = subprocess.Popen(
            argv,
            stdout=out_fh,
            stderr=err_fh,
            stdin=subprocess.DEVNULL,
            env=dict(env) if env is not None else None,
            cwd=cwd,
            start_new_session=True,
        )
        status, rss, timed_out = _wait_with_rusage(proc, timeout)
        wall = time.perf_counter() - t0
        out_fh.seek(0)
        err_fh.seek(0)
        stdout = out_fh.read().decode("utf-8", "replace")
        stderr = err_fh.read().decode("utf-8", "replace")
    return CliRun(argv, status, stdout, stderr, wall, rss, timed_out)


def _wait_with_rusage(
    proc: subprocess.Popen[Any], timeout: float
) -> tuple[int | None, float, bool]:
    deadline = time.monotonic() + timeout
    while True:
        pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            code = os.waitstatus_to_exitcode(status)
            proc.returncode = code
            return code, _rss_mb(ru.ru_maxrss), False
        if time.monotonic() > deadline:
            with suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            _, status, ru = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            return None, _rss_mb(ru.ru_maxrss), True
        time.sleep(0.02)
