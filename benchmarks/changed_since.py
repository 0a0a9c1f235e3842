"""Runs that read only what changed (``--changed-since REF``) in a big links-as-code
repository: 100,000 links in 1,000 YAML files (a real git repository in a temporary
folder) against a sandbox workspace holding them, R = 100 requests per 1 s window and
20-40 ms of latency.

- ``full_plan``: ``linksync plan links/`` (every file, the workspace listed), for the
  record;
- ``changed_plan``: a commit changes the URL of 3 links in 3 files; ``linksync plan
  links/ --changed-since main`` (target: <= 2 s, and no request but those 3 links read
  one by one, the organization and the domains);
- ``hook``: the pre-commit hook's entry (``.pre-commit-hooks.yaml``) on those 3 files,
  as pre-commit runs it (target: <= 0.5 s of the hook's own time).

The repository holds the team's ``linksync.yaml`` naming the system domain (without it,
every plan reads one listing page to learn it). The sandbox is the service's own app
(``linksync.sandbox.create_app``, the settings of ``linksync sandbox serve``) served by
this script in a child process, behind a counter of every request it receives
(``GET /_bench/requests``, not counted): the request counts are what the service saw,
by kind. Prints one JSON document; each timed command
runs ``--repeat`` times (the minimum and the median are given).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import yaml
from _harness import (
    FULL_KEY,
    CliRun,
    free_port,
    pin,
    process_cpu,
    run_cli,
    run_process,
    split_cores,
)
from _workload import seed_store

ROOT = Path(__file__).resolve().parents[1]
FILES, PER_FILE = 1_000, 100
CHANGED = (7, 421, 886)  # the files whose one link changes
COUNTS = "/_bench/requests"
PROFILE = "default_profile: team\nprofiles:\n  team:\n    system_domain: lnk.test\n"

SERVE = """
import sys
from collections import Counter
from starlette.responses import JSONResponse
from linksync.sandbox import SandboxSettings, create_app
from linksync.sandbox.server import base_url_of, bind, make_server

db, port, org, rate = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
settings = SandboxSettings(rate_limit=rate, rate_window_s=1.0, latency_ms=(20, 40), org_id=org)
app = create_app(settings, db)
seen = Counter()

async def counted(scope, receive, send):
    if scope["type"] == "http" and scope["path"] == "/_bench/requests":
        if scope["method"] == "DELETE":
            seen.clear()
        await JSONResponse(dict(seen))(scope, receive, send)
        return
    if scope["type"] == "http":
        path = scope["path"].removeprefix("/api/v1")
        kind = "/links/:slug" if path.startswith("/links/") else path
        seen[f"{scope['method']} {kind}"] += 1
        if path.startswith("/links/"):
            seen["slugs read: " + path.removeprefix("/links/")] += 1
    await app(scope, receive, send)

sock = bind("127.0.0.1", port, settings.backlog)
print(base_url_of(sock), flush=True)
make_server(counted, sock, "warning", settings.backlog).run(sockets=[sock])
"""


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com"}
    env.update(GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.com")
    done = subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout.strip()


def url(f: int, i: int) -> str:
    return f"https://example.com/docs/{f}/page-{i}?ref=links"


def file_text(f: int, changed: bool = False) -> str:
    lines = [f"# team {f}\n", "defaults:\n", f"  tags: [team-{f}]\n", "links:\n"]
    for i in range(PER_FILE):
        target = url(f, i) + ("&v=2" if changed and i == 0 else "")
        lines.append(f"  t{f}-link-{i}:\n    url: {target}\n    description: Page {i}\n")
    return "".join(lines)


def make_repository(root: Path) -> list[str]:
    """The repository on ``main`` (every file), then a branch ``change`` whose commit
    changes one link in each of 3 files; the paths of those 3 files."""
    links = root / "links"
    links.mkdir(parents=True)
    # the team's profile names the system domain (else a first listing page tells it)
    (root / "linksync.yaml").write_text(PROFILE, encoding="utf-8")
    for f in range(FILES):
        (links / f"team-{f:04d}.yaml").write_text(file_text(f), encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "100,000 links")
    git(root, "checkout", "-q", "-b", "change")
    names = []
    for f in CHANGED:
        name = f"links/team-{f:04d}.yaml"
        (root / name).write_text(file_text(f, changed=True), encoding="utf-8")
        names.append(name)
    git(root, "commit", "-q", "-am", "3 links changed")
    return names


def seed_links() -> Any:
    for f in range(FILES):
        for i in range(PER_FILE):
            yield {
                "slug": f"t{f}-link-{i}",
                "url": url(f, i),
                "description": f"Page {i}",
                "tags": [f"team-{f}"],
            }


class Server:
    """The counted sandbox in a child process (see module docstring)."""

    def __init__(self, db: Path, rate: int, cpus: tuple[int, ...] | None) -> None:
        org = f"org_bench_changed_{os.getpid()}"
        argv = [sys.executable, "-c", SERVE, str(db), str(free_port()), org, str(rate)]
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
        pin(self.proc.pid, cpus)
        assert self.proc.stdout is not None
        self.base_url = self.proc.stdout.readline().strip()
        if not self.base_url.startswith("http://127.0.0.1:"):
            self.stop()
            raise RuntimeError("the counted sandbox did not start")
        for _ in range(100):
            try:
                httpx.get(self.base_url + COUNTS, timeout=2)
                break
            except httpx.HTTPError:
                time.sleep(0.1)

    def counts(self, clear: bool = False) -> dict[str, int]:
        method = "DELETE" if clear else "GET"
        return dict(httpx.request(method, self.base_url + COUNTS, timeout=10).json())

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("LINKSYNC_")}
        return {**env, "LINKSYNC_BASE_URL": self.base_url, "LINKSYNC_API_KEY": FULL_KEY,
                "NO_COLOR": "1"}  # fmt: skip

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


def figures(runs: list[CliRun]) -> dict[str, Any]:
    walls, cpus = [r.wall_s for r in runs], [r.cpu_s for r in runs]
    return {
        "wall_s": {"min": round(min(walls), 3), "median": round(statistics.median(walls), 3)},
        "cpu_s": {"min": round(min(cpus), 3), "median": round(statistics.median(cpus), 3)},
        "max_rss_mb": round(max(r.max_rss_mb for r in runs), 1),
        "exit_codes": sorted({r.returncode for r in runs}, key=str),
    }


def split_counts(seen: dict[str, int]) -> tuple[dict[str, int], list[str]]:
    kinds = {k: n for k, n in seen.items() if not k.startswith("slugs read: ")}
    slugs = sorted(k.removeprefix("slugs read: ") for k in seen if k.startswith("slugs read: "))
    return dict(sorted(kinds.items())), slugs


def main() -> None:
    global FILES
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=int, default=100, help="R: requests per 1 s window")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each fast command")
    parser.add_argument("--no-full", action="store_true", help="skip the full plan")
    parser.add_argument("--files", type=int, default=FILES, help="YAML files (1,000)")
    args = parser.parse_args()
    FILES = max(args.files, max(CHANGED) + 1)
    cores = split_cores()
    server_cores, client_cores = (cores[0], cores[1]) if cores else (None, None)
    hook = next(
        h
        for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
        if h["id"] == "linksync-validate"
    )
    out: dict[str, Any] = {"files": FILES, "links": FILES * PER_FILE, "rate_limit_per_s": args.rate}
    with tempfile.TemporaryDirectory(prefix="linksync-bench-changed-") as d:
        tmp = Path(d)
        repo = tmp / "repo"
        t0 = time.perf_counter()
        changed = make_repository(repo)
        out["repository_s"] = round(time.perf_counter() - t0, 1)
        log(f"repository: {FILES} files, {FILES * PER_FILE} links ({out['repository_s']} s)")
        db = tmp / "sandbox.db"
        out["seed_s"] = round(seed_store(db, seed_links()), 1)
        server = Server(db, args.rate, server_cores)
        try:
            env = server.env()
            if not args.no_full:
                log("full plan: every file, the workspace listed")
                server.counts(clear=True)
                before = process_cpu(server.proc.pid)
                full = run_cli(["plan", "links/"], env=env, cwd=repo, timeout=900,
                               cpus=client_cores)  # fmt: skip
                after = process_cpu(server.proc.pid)
                kinds, _ = split_counts(server.counts())
                out["full_plan"] = {
                    **figures([full]),
                    "requests": kinds,
                    "planned": [line.strip() for line in full.stdout.splitlines()[:1]],
                    "sandbox_cpu_s": round(after - before, 2) if before and after else None,
                }
                if full.returncode != 0:
                    out["full_plan"]["stderr_tail"] = full.stderr.strip().splitlines()[-5:]
            log(f"plan --changed-since main, {args.repeat} times")
            runs, seen = [], []
            for _ in range(args.repeat):
                server.counts(clear=True)
                runs.append(
                    run_cli(
                        ["plan", "links/", "--changed-since", "main", "--format", "json"],
                        env=env,
                        cwd=repo,
                        timeout=120,
                        cpus=client_cores,
                    )
                )
                seen.append(server.counts())
            kinds, slugs = split_counts(seen[-1])
            plan = json.loads(runs[-1].stdout) if runs[-1].returncode == 0 else {}
            allowed = {"GET /links/:slug", "GET /organizations/current", "GET /domains"}
            out["changed_plan"] = {
                **figures(runs),
                "requests": kinds,
                "slugs_read": slugs,
                "same_requests_every_run": all(s == seen[0] for s in seen),
                "planned": Counter(c["action"] for c in plan.get("changes", [])),
                "files_read": [f["file"] for f in (plan.get("partial") or {}).get("files", [])],
            }
            expected = sorted(f"t{f}-link-0" for f in CHANGED)
            out["targets"] = {
                "changed_plan<=2s": min(r.wall_s for r in runs) <= 2.0,
                "changed_plan_reads_only_the_3_links": slugs == expected
                and set(kinds) <= allowed
                and kinds.get("GET /links/:slug") == 3,
            }
        finally:
            server.stop()
        entry = [*shlex.split(hook["entry"]), *hook.get("args", [])]
        entry[0] = str(Path(sys.executable).parent / entry[0])
        offline = {k: v for k, v in os.environ.items() if not k.startswith("LINKSYNC_")}
        log(f"pre-commit hook: {' '.join(entry)} on the 3 files, {args.repeat} times")
        hooks = [
            run_process([*entry, *changed], env=offline, cwd=repo, timeout=60, cpus=client_cores)
            for _ in range(args.repeat)
        ]
        out["hook"] = {**figures(hooks), "files": changed,
                       "said": hooks[-1].stdout.strip().splitlines()[:1]}  # fmt: skip
        out["targets"]["hook<=0.5s"] = min(r.wall_s for r in hooks) <= 0.5
        out["targets"]["hook_cpu<=0.5s"] = min(r.cpu_s for r in hooks) <= 0.5
    out["load_average"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
