"""What the tests of the hand-written peers in ``benchmarks/`` share: a workspace of
numbered links written straight into a sandbox database, and the environment a peer
script reads its target from."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from linksync.sandbox.rows import LinkRow
from linksync.sandbox.store import Store

#: The sandbox's full-access key, which the peers send.
KEY = "sandbox-full-access-key"


def seeded(path: Path, n: int, *, described: bool = False) -> None:
    """A workspace of ``n`` links ``bench-00000``... on the system domain, written
    through the store (``described``: each with the description ``Link i``)."""
    store = Store(str(path))
    try:
        store.import_links(
            LinkRow(
                id=f"lnk_{i:016x}",
                domain="lnk.test",
                slug=f"bench-{i:05d}",
                url=f"https://example.com/landing/{i}",
                description=f"Link {i}" if described else None,
                tags=(),
                apple=None,
                google=None,
                password_hash=None,
                expires_at=None,
                created_at=f"2026-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}.000Z",
                updated_at=f"2026-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}.000Z",
            )
            for i in range(n)
        )
    finally:
        store.close()


def env_for(base_url: str) -> dict[str, str]:
    """The environment without the caller's own ``LINKSYNC_*``, pointing a peer (or
    linksync) at ``base_url`` with the full-access key."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LINKSYNC_")}
    return {**env, "LINKSYNC_BASE_URL": base_url, "LINKSYNC_API_KEY": KEY, "NO_COLOR": "1"}


def run_peer(script: Path, base_url: str, src: Path) -> dict[str, Any]:
    """The peer ``script`` run on ``src`` against ``base_url``: the JSON it prints (it
    must exit 0)."""
    done = subprocess.run(
        [sys.executable, str(script), str(src)],
        env=env_for(base_url),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def plan_counts(base_url: str, src: Path, cwd: Path) -> dict[str, int]:
    """``linksync plan SRC --format json`` against ``base_url``, in its own process: the
    plan's counts."""
    done = subprocess.run(
        [str(Path(sys.executable).parent / "linksync"), "plan", str(src), "--format", "json"],
        env=env_for(base_url),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    counts: dict[str, int] = json.loads(done.stdout)["counts"]
    return counts
