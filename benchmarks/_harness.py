"""Shared helpers of the benchmark and reliability scripts: processes and HTTP.

- ``Sandbox``: runs ``linksync sandbox serve`` as a subprocess on a free 127.0.0.1 port,
  reads the base URL it prints, and always stops it (context manager).
- ``preload``: creates links through the API, concurrently, retrying.
- ``list_all`` / ``link_count``: what the workspace holds afterwards.
- ``sandbox_capacity``: requests per second a sandbox on this machine can serve.
- ``run_cli`` / ``run_process``: runs one linksync command (or any program) with a
  timeout, measuring wall time, the child's CPU time and peak memory; the process is
  always reaped.
- ``pin``: keeps a process on given cores (the sandbox on one core, the client on the
  other), where the platform allows it. ``Sandbox.cpu_s`` is the server's CPU time,
  read when it stops.

Workloads and checks are in ``_workload``, reports and journals in ``_records``.

Only 127.0.0.1 is ever contacted. Every loop is bounded in count and in time.
"""

from __future__ import annotations

import asyncio
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
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
    cpus: tuple[int, ...] | None = None  # pin the server to these cores
    profile: Path | None = None  # run the server under cProfile, its stats written here
    # the organization id it reports; None: one of its own per server, so linksync's
    # lock (per organization) never makes two benchmark runs on one machine wait
    org_id: str | None = None

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


def pin(pid: int, cpus: Sequence[int] | None) -> bool:
    """Keep process ``pid`` on ``cpus``; False where that is not possible."""
    if not cpus or not hasattr(os, "sched_setaffinity"):
        return False
    try:
        os.sched_setaffinity(pid, set(cpus))
    except OSError:
        return False
    return True


def split_cores() -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """(server cores, client cores): one core for the sandbox, the rest for the client."""
    if not hasattr(os, "sched_getaffinity"):
        return None
    cores = sorted(os.sched_getaffinity(0))
    return (tuple(cores[-1:]), tuple(cores[:-1])) if len(cores) >= 2 else None


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
    cpu_s: float | None = None  # the server's CPU time (user + system), once stopped
    _drains: list[_Drain] = field(default_factory=list)
    _config: Any = None  # the temporary --config file naming the organization

    def start(self, timeout: float = 30.0) -> Sandbox:
        port = free_port()
        env = dict(os.environ, PYTHONUNBUFFERED="1", NO_COLOR="1")
        prefix = linksync_argv()
        if self.options.profile is not None:  # written when the server stops (SIGINT)
            prefix = [sys.executable, "-m", "cProfile", "-o", str(self.options.profile)]
            prefix += ["-m", "linksync"]
        self._config = tempfile.NamedTemporaryFile(  # noqa: SIM115 - removed in stop()
            "w", suffix=".yaml", prefix="linksync-bench-sandbox-", delete=False
        )
        org = self.options.org_id or f"org_bench_{os.getpid()}_{port}"
        self._config.write(f"organization:\n  id: {org}\n")
        self._config.close()
        self.proc = subprocess.Popen(
            [*prefix, *self.options.argv(port), "--config", self._config.name],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            env=env,
            start_new_session=True,
        )
        assert self.proc.stdout is not None and self.proc.stderr is not None
        pin(self.proc.pid, self.options.cpus)
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
            with suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGINT)
            waited = _wait_with_rusage(proc, 10)
            if not waited.timed_out:
                self.cpu_s = waited.cpu_s
        for d in self._drains:
            d.join(timeout=2)
        self.proc = None
        if self._config is not None:
            Path(self._config.name).unlink(missing_ok=True)
            self._config = None

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
        side, stale = Path(str(src) + suffix), Path(str(dst) + suffix)
        stale.unlink(missing_ok=True)  # a side file of an older copy would corrupt it
        if side.exists():
            shutil.copyfile(side, stale)
    return dst


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


async def _probe(
    base_url: str, key: str, kind: str, slugs: Sequence[str], seconds: float, conc: int
) -> int:
    """Requests answered in ``seconds`` by ``conc`` workers: reads of existing links, or
    creates of new ones. Through linksync's own client (its network transport is the
    cheapest here, so the prober is not what limits the count)."""
    from linksync.api import LinkServiceClient, RetryPolicy

    done = 0
    deadline = time.monotonic() + seconds
    retry = RetryPolicy(
        rate_limited_retries=0,
        server_error_retries=0,
        unavailable_retries=0,
        transport_retries=0,
        reused_connection_retries=0,
    )
    async with LinkServiceClient(base_url, key, concurrency=conc, retry=retry) as client:

        async def worker(k: int) -> None:
            nonlocal done
            i = k
            while time.monotonic() < deadline and done < 1_000_000:
                if kind == "create":
                    await client.create_link({"slug": f"cap-{i}", "url": f"https://e.com/{i}"})
                else:
                    await client.get_link(slugs[i % len(slugs)])
                done += 1
                i += conc

        await asyncio.gather(*(worker(k) for k in range(conc)))
    return done


def sandbox_capacity(
    latency_ms: tuple[int, int] | None,
    *,
    kind: str = "read",
    seconds: float = 3.0,
    concurrency: int = 32,
    cores: tuple[tuple[int, ...], tuple[int, ...]] | None = None,
    facts: dict[str, float] | None = None,
) -> float:
    """Requests per second a sandbox on this machine serves right now with no rate limit
    (``kind``: reads of one link, or creates; ``concurrency`` in flight; the sandbox and
    the prober on their own cores when ``cores`` = (server, client)): the ceiling of any
    client here. ``facts`` (when given) receives the CPU seconds per 1,000 requests of
    the prober and of the sandbox during the probe."""
    opts = SandboxOptions(
        rate_limit=10_000_000, latency_ms=latency_ms, cpus=cores[0] if cores else None
    )
    links = [{"slug": f"probe-{i}", "url": f"https://example.com/{i}"} for i in range(20)]
    before = os.sched_getaffinity(0) if cores and hasattr(os, "sched_getaffinity") else None
    with running_sandbox(opts) as box:
        preload(box.base_url, box.key, links, concurrency=4)
        if cores:
            pin(0, cores[1])
        try:
            t0, cpu0 = time.perf_counter(), time.process_time()
            server0 = process_cpu(box.proc.pid) if box.proc else None
            slugs = [str(x["slug"]) for x in links]
            done = asyncio.run(_probe(box.base_url, box.key, kind, slugs, seconds, concurrency))
            rate = done / (time.perf_counter() - t0)
            server1 = process_cpu(box.proc.pid) if box.proc else None
            if facts is not None and done:
                facts["prober_cpu_per_1000"] = round((time.process_time() - cpu0) / done * 1e3, 3)
                if server0 is not None and server1 is not None:
                    facts["sandbox_cpu_per_1000"] = round((server1 - server0) / done * 1e3, 3)
            return rate
        finally:
            if before is not None:
                pin(0, tuple(before))


def process_cpu(pid: int) -> float | None:
    """CPU seconds (user + system) process ``pid`` has used so far (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    return (int(fields[11]) + int(fields[12])) / ticks


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
    started_at: float = 0.0  # Unix time just before the process was started
    cpu_s: float = 0.0  # the child's CPU time, user + system

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
    cpus: Sequence[int] | None = None,
) -> CliRun:
    """Run ``linksync ARGS`` (pinned to ``cpus`` when given); measure wall time and the
    child's own CPU time and peak RSS."""
    return run_process((*linksync_argv(), *args), env=env, cwd=cwd, timeout=timeout, cpus=cpus)


_COMPILED: list[bool] = []


def as_installed(env: Mapping[str, str] | None) -> dict[str, str]:
    """``env`` (default: this process's) for a child that runs as an installed package
    does: with its modules' bytecode cached. pip compiles a package when it installs it;
    an editable checkout run with ``PYTHONDONTWRITEBYTECODE=1`` (CI images, containers)
    compiles every linksync module again in each process, about 0.4-0.7 s of CPU that
    no user's run pays. So linksync's modules are compiled once, and the children may
    read and write their caches."""
    if not _COMPILED:
        import compileall

        import linksync

        compileall.compile_dir(Path(linksync.__file__).parent, quiet=1)
        _COMPILED.append(True)
    out = dict(os.environ if env is None else env)
    out.pop("PYTHONDONTWRITEBYTECODE", None)
    return out


def run_process(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = 300.0,
    cpus: Sequence[int] | None = None,
) -> CliRun:
    """Run ``argv`` (pinned to ``cpus`` when given), its modules' bytecode cached as an
    installed package's (``as_installed``); measure wall time and the child's own CPU
    time and peak RSS."""
    argv = tuple(argv)
    started_at = time.time()
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as out_fh, tempfile.TemporaryFile() as err_fh:
        proc = subprocess.Popen(
            argv,
            stdout=out_fh,
            stderr=err_fh,
            stdin=subprocess.DEVNULL,
            env=as_installed(env),
            cwd=cwd,
            start_new_session=True,
        )
        pin(proc.pid, cpus)
        waited = _wait_with_rusage(proc, timeout)
        wall = time.perf_counter() - t0
        out_fh.seek(0)
        err_fh.seek(0)
        stdout = out_fh.read().decode("utf-8", "replace")
        stderr = err_fh.read().decode("utf-8", "replace")
    return CliRun(
        argv,
        waited.returncode,
        stdout,
        stderr,
        wall,
        waited.max_rss_mb,
        waited.timed_out,
        started_at,
        waited.cpu_s,
    )


@dataclass(frozen=True, slots=True)
class _Waited:
    returncode: int | None  # None: killed on timeout
    max_rss_mb: float
    cpu_s: float  # user + system
    timed_out: bool


def _wait_with_rusage(proc: subprocess.Popen[Any], timeout: float) -> _Waited:
    deadline = time.monotonic() + timeout
    while True:
        pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
        timed_out = pid != proc.pid and time.monotonic() > deadline
        if timed_out:
            with suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            pid, status, ru = os.wait4(proc.pid, 0)
        if pid == proc.pid:
            code = os.waitstatus_to_exitcode(status)
            proc.returncode = code
            cpu = ru.ru_utime + ru.ru_stime
            return _Waited(None if timed_out else code, _rss_mb(ru.ru_maxrss), cpu, timed_out)
        time.sleep(0.02)
