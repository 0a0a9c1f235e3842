"""Runs that cannot collide, and that say what they did: where the default lock lives,
the commands starting without ``fcntl`` (Windows), the URL re-check of creates without
slug, the progress line after Ctrl-C, reports in source order."""

from __future__ import annotations

import asyncio
import csv
import io
import os
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from linksync.api import LinkServiceClient, asgi_transport
from linksync.config import Target, resolve
from linksync.config.identity import WorkspaceIdentity, key_digest
from linksync.model import Action, LinkSpec, Provenance, Status
from linksync.model.outcome import RemoteWrites, run_exit_code
from linksync.pipeline.lock import default_lock_path, state_dir
from linksync.pipeline.planning import make_plan
from linksync.report import ReportSet
from linksync.report.progress import PlainProgress
from linksync.sandbox import DEFAULT_FULL_KEY, SandboxSettings, create_app
from linksync.sync.execute import Sinks, execute
from linksync.sync.journal import Journal
from linksync.sync.options import SyncOptions
from linksync.validate import validate
from support.cli_runs import Source, remote_links, run
from support.journals import read_journal

pytestmark = pytest.mark.usefixtures("_umask")  # umask 022 for the files runs create

BASE = "http://sandbox.local"


# --- where the lock lives ---------------------------------------------------------------


def test_state_folder_per_platform() -> None:
    home = {"HOME": "/home/ana"}
    assert state_dir({"LINKSYNC_STATE_DIR": "/srv/ls", **home}) == Path("/srv/ls")
    assert state_dir(home, "linux") == Path("/home/ana/.local/state/linksync")
    assert state_dir({**home, "XDG_STATE_HOME": "/x"}, "linux") == Path("/x/linksync")
    assert state_dir({**home, "XDG_STATE_HOME": "rel"}, "linux") == Path(
        "/home/ana/.local/state/linksync"
    )
    assert state_dir(home, "darwin") == Path("/home/ana/Library/Application Support/linksync")
    win = state_dir({**home, "LOCALAPPDATA": "C:/Users/ana/AppData/Local"}, "win32")
    assert win == Path("C:/Users/ana/AppData/Local/linksync")


def test_default_lock_is_keyed_on_the_target_not_the_folder(tmp_path: Path) -> None:
    env = {"LINKSYNC_STATE_DIR": str(tmp_path / "state")}
    shared = tmp_path / "shared.db"
    a = Target(BASE, "k", is_sandbox=True, sandbox_db=str(shared))
    b = Target(BASE, "k", is_sandbox=True, sandbox_db=str(tmp_path / "x" / ".." / "shared.db"))
    other = Target(BASE, "k", is_sandbox=True, sandbox_db=str(tmp_path / "other.db"))
    assert default_lock_path(a, env) == default_lock_path(b, env)
    assert default_lock_path(a, env) != default_lock_path(other, env)
    assert default_lock_path(a, env).parent == tmp_path / "state" / "locks"
    # A service's lock is keyed on the workspace it reports (organization and key), not
    # on the URL's spelling (linksync.config.identity reads it).
    prod = WorkspaceIdentity("org_1", key_digest("sk_live_secret"))
    other_workspace = WorkspaceIdentity("org_1", key_digest("sk_live_other"))
    assert default_lock_path(prod, env) == default_lock_path(
        WorkspaceIdentity("org_1", key_digest("sk_live_secret")), env
    )
    assert default_lock_path(prod, env) != default_lock_path(other_workspace, env)
    assert "secret" not in str(default_lock_path(prod, env))
    assert default_lock_path(prod, env).name.startswith("org_1-")
    with pytest.raises(ValueError, match="read its identity first"):
        default_lock_path(Target("https://api.example.com", "sk_live_secret"), env)


def test_two_checkouts_share_the_lock_of_one_workspace(tmp_path: Path) -> None:
    db = tmp_path / "team.db"
    first = resolve(cwd=tmp_path / "checkout-1", env={}, config=_profile(tmp_path, db, "1"))
    second = resolve(cwd=tmp_path / "checkout-2", env={}, config=_profile(tmp_path, db, "2"))
    assert default_lock_path(first.target) == default_lock_path(second.target)


def _profile(tmp: Path, db: Path, n: str) -> Path:
    folder = tmp / f"checkout-{n}"
    folder.mkdir()
    (folder / "linksync.yaml").write_text(f"sandbox: true\nsandbox_db: {db}\n", encoding="utf-8")
    return folder / "linksync.yaml"


# --- starting without fcntl (Windows) -------------------------------------------------

NO_FCNTL = textwrap.dedent(
    """
    import sys, warnings
    class NoFcntl:
        def find_spec(self, name, path=None, target=None):
            if name == "fcntl":
                raise ModuleNotFoundError("No module named 'fcntl'", name="fcntl")
    sys.meta_path.insert(0, NoFcntl())
    sys.modules.pop("fcntl", None)
    # filelock says it falls back to a soft lock here; on Windows it uses LockFileEx.
    warnings.filterwarnings("ignore", message="only soft file lock")
    import importlib
    from linksync.cli import COMMANDS, cli
    for lazy in COMMANDS.values():
        importlib.import_module(lazy.target.split(":")[0])
    assert "fcntl" not in sys.modules
    try:
        cli.main(["apply", "l.csv", "--yes", "--no-progress", "--sandbox"], prog_name="linksync")
    except SystemExit as exc:
        print("exit", exc.code)
    """
)


def test_commands_import_and_apply_without_fcntl(tmp_path: Path) -> None:
    (tmp_path / "l.csv").write_text("slug,url\nwin,https://example.com/w\n", encoding="utf-8")
    env = {**os.environ, "LINKSYNC_STATE_DIR": str(tmp_path / "state")}
    for name in ("LINKSYNC_BASE_URL", "LINKSYNC_API_KEY", "LINKSYNC_PROFILE"):
        env.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-c", NO_FCNTL],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("exit 0"), done.stdout + done.stderr
    assert [ln.slug for ln in remote_links(tmp_path)] == ["win"]


# --- the library: a client on an in-process sandbox -----------------------------------


@asynccontextmanager
async def _client(app: object, concurrency: int = 8) -> AsyncIterator[LinkServiceClient]:
    async with LinkServiceClient(
        BASE,
        DEFAULT_FULL_KEY,
        transport=asgi_transport(app),
        concurrency=concurrency,
        allow_insecure=True,
    ) as client:
        yield client


def _specs(n: int, *, slugs: bool = True) -> list[LinkSpec]:
    return [
        LinkSpec(
            url=f"https://example.com/r{i}",
            slug=f"r{i:02d}" if slugs else None,
            managed=frozenset({"url", "slug"} if slugs else {"url"}),
            provenance=Provenance("c.csv", None, i + 2),
        )
        for i in range(n)
    ]


async def test_slugless_create_rechecks_the_url_when_another_writer_may_be_active() -> None:
    app = create_app(SandboxSettings(rate_limit=1_000_000), ":memory:")
    async with _client(app) as client:
        specs = _specs(2, slugs=False)
        planned = await make_plan(client, validate(specs), SyncOptions())
        assert [c.action for c in planned.changes] == [Action.CREATE, Action.CREATE]
        # Another writer (a job on another machine) creates the first URL meanwhile.
        await client.create_link({"url": "https://example.com/r0", "slug": "theirs"})
        results = await execute(planned, client, recheck_urls=True)
        first, second = results.rows
        assert (first.action, first.status, first.slug) == (Action.UNCHANGED, Status.OK, "theirs")
        assert "created by another writer meanwhile" in (first.message or "")
        assert (second.action, second.status) == (Action.CREATE, Status.OK)
        urls = [link.url for link in await client.list_links()]
        assert sorted(urls) == ["https://example.com/r0", "https://example.com/r1"]
        assert results.writes.to_dict()["created"] == 1


def test_saved_plan_applied_after_another_writer_creates_no_duplicate(
    workdir: Path, source: Source
) -> None:
    """The saved plan's create without slug is refused as stale (and, were it not, the
    URL re-check would adopt the other writer's link): never a second link."""
    assert run("plan", "links.csv", "--out", "p.json").exit_code == 0
    settings = resolve(cwd=workdir, env={}, sandbox=True)

    async def other_writer() -> None:
        async with settings.open_client() as client:
            await client.create_link({"url": "https://example.com/no-slug"})

    asyncio.run(other_writer())
    result = run("apply", "--plan", "p.json", "links.csv", "--yes", "--no-progress")
    assert result.exit_code == 1, result.output
    assert "STALE_PLAN x1" in result.stdout
    urls = [link.url for link in remote_links(workdir)]
    assert urls.count("https://example.com/no-slug") == 1
    assert len(urls) == 3
    assert source.untouched()


async def test_progress_after_ctrl_c_shows_what_was_applied() -> None:
    # A little latency, as on a network: each request lets the loop see the Ctrl-C.
    app = create_app(SandboxSettings(rate_limit=1_000_000, latency_ms=(2, 2)), ":memory:")
    async with _client(app, concurrency=1) as client:
        planned = await make_plan(client, validate(_specs(10)), SyncOptions())
        out = io.StringIO()
        progress = PlainProgress(out=out, every=3600)
        seen: list[str] = []

        def on_result(row: object) -> None:
            seen.append(str(row))
            if len(seen) == 3:
                task.cancel()

        writes = RemoteWrites()
        task = asyncio.ensure_future(
            execute(
                planned,
                client,
                sinks=Sinks(progress=progress, on_result=on_result, writes=writes),
            )
        )
        results = await task
        applied = sum(r.status is Status.OK for r in results.rows)
        assert results.interrupted and 3 <= applied < 10
        last = out.getvalue().splitlines()[-1]
        assert last.startswith(f"applied {applied}/10 ")
        assert f", {10 - applied} not attempted" in last
        assert writes.describe() == f"{applied} created"
        assert run_exit_code(writes, failed=False, interrupted=True, stopped_by=None) == 130


async def test_reports_follow_source_order_whatever_order_requests_finish(
    tmp_path: Path,
) -> None:
    app = create_app(SandboxSettings(rate_limit=1_000_000, latency_ms=(0, 30), seed=5), ":memory:")
    async with _client(app, concurrency=8) as client:
        planned = await make_plan(client, validate(_specs(24)), SyncOptions())
        journal = tmp_path / "run.jsonl"
        with ReportSet([tmp_path / "r.csv"]) as reports:
            with Journal(journal, "run") as jr:
                results = await execute(planned, client, sinks=Sinks(jr, on_result=reports.write))
            reports.close(results.info)
    finished = [e["row"] for e in read_journal(journal) if e["event"] == "result"]
    assert finished != sorted(finished)  # the requests did finish out of order
    with open(tmp_path / "r.csv", encoding="utf-8-sig", newline="") as f:
        rows = [int(r["row"]) for r in csv.DictReader(f)]
    assert rows == list(range(2, 26))


@pytest.mark.parametrize(
    ("done", "unknown"), [({}, 0), ({"created": 1}, 0), ({}, 1), ({"deleted": 2}, 0)]
)
def test_an_error_never_claims_nothing_was_done_after_a_write(
    done: dict[str, int], unknown: int
) -> None:
    from linksync.cli.common import exit_code_for
    from linksync.errors import StoppedAfterWrites

    writes = RemoteWrites(dict(done), unknown)
    after = StoppedAfterWrites("a report could not be written", written=writes.describe())
    assert exit_code_for(after) == 1  # raised only after a write: never 2
    stopped = run_exit_code(writes, failed=True, interrupted=False, stopped_by="FORBIDDEN")
    assert stopped == (2 if not writes.any else 1)
