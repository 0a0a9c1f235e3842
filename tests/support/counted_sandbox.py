"""A sandbox that counts what it is asked, and a git repository of link files.

- ``counted_sandbox(tmp, links)``: the sandbox served on 127.0.0.1 in a thread, its
  state file seeded with ``links`` (slug -> URL, on the system domain ``lnk.test``)
  straight through its own store, and a ``Requests`` that records every request it
  receives (``kinds()``: "GET /links/:slug" and the like; ``slugs_read()``).
- ``Repo``: a git repository made with the git of the OS (``git init``, commits,
  branches) in a folder, for the runs that read what changed since a ref.
"""

from __future__ import annotations

import subprocess
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from starlette.types import ASGIApp, Receive, Scope, Send

from linksync.sandbox import SandboxSettings
from support.sandbox_helpers import ServerHandle, serve_in_thread

PREFIX = "/api/v1"


@dataclass
class Requests:
    """Every request the sandbox received: (method, path, query)."""

    seen: list[tuple[str, str, str]] = field(default_factory=list)

    def wrap(self, app: ASGIApp) -> ASGIApp:
        async def counted(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] == "http":
                query = scope.get("query_string", b"").decode("latin-1")
                self.seen.append((scope["method"], scope["path"], query))
            await app(scope, receive, send)

        return counted

    def kinds(self) -> Counter[str]:
        """Requests by kind: "GET /links/:slug", "GET /links", "GET /domains"..."""
        out: Counter[str] = Counter()
        for method, path, _ in self.seen:
            route = path.removeprefix(PREFIX)
            if route.startswith("/links/"):
                route = "/links/:slug"
            out[f"{method} {route}"] += 1
        return out

    def slugs_read(self) -> list[str]:
        """The slugs read one by one (``GET /links/:slug``), sorted."""
        prefix = f"{PREFIX}/links/"
        return sorted(
            path.removeprefix(prefix)
            for method, path, _ in self.seen
            if method == "GET" and path.startswith(prefix)
        )

    def clear(self) -> None:
        self.seen.clear()


def seed(
    db: Path, links: Mapping[str, str], tags: Mapping[str, tuple[str, ...]] | None = None
) -> None:
    """Write ``links`` (slug -> URL; ``tags``: slug -> its tags) into the sandbox's
    state file ``db``."""
    from linksync.rules.timestamps import format_ts
    from linksync.sandbox.backend import Backend
    from linksync.sandbox.rows import LinkRow
    from linksync.sandbox.store import Store

    settings = SandboxSettings()
    store = Store(str(db))
    try:
        backend = Backend(settings, store, time.time)
        stamp = format_ts(backend.now())
        store.import_links(
            LinkRow(
                id=backend.new_id("lnk"),
                domain=settings.system_domain,
                slug=slug,
                url=url,
                description=None,
                tags=(tags or {}).get(slug, ()),
                apple=None,
                google=None,
                password_hash=None,
                expires_at=None,
                created_at=stamp,
                updated_at=stamp,
            )
            for slug, url in links.items()
        )
    finally:
        store.close()


@contextmanager
def counted_sandbox(
    tmp: Path, links: Mapping[str, str], tags: Mapping[str, tuple[str, ...]] | None = None
) -> Iterator[tuple[ServerHandle, Requests]]:
    """The sandbox holding ``links`` (with ``tags``), served, and what it is asked."""
    db = tmp / "sandbox-state.db"
    seed(db, links, tags)
    asked = Requests()
    handle = serve_in_thread(SandboxSettings(rate_limit=1_000_000), str(db), wrap=asked.wrap)
    try:
        yield handle, asked
    finally:
        handle.stop()


@dataclass(frozen=True)
class Repo:
    """A git repository in ``root`` (made by ``Repo.init``)."""

    root: Path

    @classmethod
    def init(cls, root: Path, branch: str = "main") -> Repo:
        repo = cls(root)
        repo.git("init", "-q", "-b", branch)
        repo.git("config", "user.email", "tests@example.com")
        repo.git("config", "user.name", "tests")
        repo.git("config", "commit.gpgsign", "false")
        return repo

    def git(self, *args: str) -> str:
        done = subprocess.run(
            ["git", *args], cwd=self.root, capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    def commit(self, message: str) -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")

    def write(self, name: str, text: str) -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path
