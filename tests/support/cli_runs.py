"""Helpers of the outputs/runs/exit-codes suite."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner, Result

from linksync.cli import cli
from linksync.config import resolve
from linksync.model import RemoteLink

#: Characters a terminal acts on; none may reach the console raw.
RAW_CONTROLS = ("\x00", "\x07", "\x1b", "\u202e", "\u2066", "\r")


def run(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def remote_links(workdir: Path) -> list[RemoteLink]:
    """The links of the built-in sandbox of ``workdir``, read through the client."""
    settings = resolve(cwd=workdir, env={}, sandbox=True)

    async def go() -> list[RemoteLink]:
        async with settings.open_client() as client:
            return await client.list_links()

    return asyncio.run(go())


@dataclass(frozen=True)
class Source:
    """A file's bytes and inode, to prove a run left it alone."""

    path: Path
    data: bytes
    inode: int

    @classmethod
    def of(cls, path: Path) -> Source:
        return cls(path, path.read_bytes(), os.stat(path).st_ino)

    def untouched(self) -> bool:
        return (
            self.path.is_file()
            and not self.path.is_symlink()
            and self.path.read_bytes() == self.data
            and os.stat(self.path).st_ino == self.inode
        )


def opens(workdir: Path, slug: str, password: str) -> int:
    """The status the built-in sandbox's short link of ``slug`` (on lnk.test) answers
    with ``password`` (302: it opens)."""
    import httpx

    from linksync.sandbox import SandboxSettings, create_app

    target = resolve(cwd=workdir, env={}, sandbox=True).target
    app = create_app(target.sandbox or SandboxSettings(), db_path=target.sandbox_db)

    async def go() -> int:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://sandbox.local") as c:
            answer = await c.get(f"/r/lnk.test/{slug}", params={"password": password})
            return answer.status_code

    return asyncio.run(go())


def no_raw_controls(text: str) -> bool:
    return not any(c in text for c in RAW_CONTROLS)
