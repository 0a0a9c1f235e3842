"""Helpers of the hostile-input suite: generate messy files, run the CLI on them, and
check what a user would check: the exit code, the message naming file / sheet / row /
column, the source file untouched, and the other rows still read."""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import openpyxl
from click.testing import CliRunner, Result

from linksync.cli import cli
from linksync.config import resolve

#: A row that must stay valid next to every hostile one.
GOOD = ("good-alpha", "https://example.com/alpha")


def run(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def digest(path: Path) -> str:
    if path.is_dir():
        parts = sorted(p for p in path.rglob("*") if p.is_file())
        return hashlib.sha256(b"".join(digest(p).encode() for p in parts)).hexdigest()
    return hashlib.sha256(path.read_bytes()).hexdigest()


def xlsx(build: Callable[[Any], None], title: str = "Links") -> bytes:
    """A workbook made by ``build(worksheet)`` (openpyxl), as bytes."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = title
    build(ws)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def rezip(data: bytes, edit: Callable[[str, bytes], bytes | None]) -> bytes:
    """The zip ``data`` with each part passed through ``edit`` (None drops the part)."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as zin,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout,
    ):
        for item in zin.infolist():
            new = edit(item.filename, zin.read(item.filename))
            if new is not None:
                zout.writestr(item, new)
    return out.getvalue()


@dataclass(frozen=True)
class Expect:
    """A problem that must be reported: its row, its column (header or key) and words
    of its message; ``severity`` error or warning."""

    row: int | None
    column: str | None
    words: str
    severity: str = "error"


@dataclass
class Checked:
    doc: dict[str, Any]
    result: Result
    problems: list[dict[str, Any]] = field(default_factory=list)


def validate(
    path: Path,
    *args: str,
    code: int,
    expect: Sequence[Expect] = (),
    good_rows: Sequence[int] = (),
    sheet: str | None = None,
    refused_words: str = "",
) -> Checked:
    """``linksync validate PATH --json``: the exit code, each expected problem named with
    the file (and sheet), row and column, no error on ``good_rows``, the file unchanged."""
    before = digest(path)
    result = run("validate", str(path), "--json", *args)
    assert digest(path) == before, "the source file was changed"
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    if code == 2:
        assert str(path) in result.output, result.output
        assert refused_words in result.output, result.output
        return Checked({}, result)
    doc = json.loads(result.stdout)
    problems = doc["problems"]
    for e in expect:
        found = [
            p
            for p in problems
            if p["row"] == e.row
            and p["column"] == e.column
            and e.words in p["message"]
            and p["severity"] == e.severity
            and str(p["source"]).startswith(str(path))
            and (sheet is None or p["sheet"] == sheet)
        ]
        assert found, f"no {e} among {json.dumps(problems, indent=1)}"
    for row in good_rows:
        bad = [p for p in problems if p["row"] == row and p["severity"] == "error"]
        assert not bad, f"good row {row} flagged: {bad}"
    return Checked(doc, result, problems)


def remote(workdir: Path) -> dict[str, Any]:
    """slug -> link in the built-in sandbox of ``workdir``."""
    settings = resolve(cwd=workdir, env={}, sandbox=True)

    async def go() -> dict[str, Any]:
        async with settings.open_client() as client:
            return {link.slug: link for link in await client.list_links()}

    return asyncio.run(go())
