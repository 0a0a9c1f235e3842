"""The progress of an apply: a bar on a terminal, and no terminal library loaded without one."""

from __future__ import annotations

import io
import re
from pathlib import Path

from rich.console import Console

from linksync.model import Action, RowResult, Status
from linksync.report.progress import RichProgress
from support.imports import modules_after


def _row(status: Status, constant: str | None = None) -> RowResult:
    return RowResult(
        action=Action.CREATE, status=status, source="links.csv", row=2, domain="lnk.test",
        slug="a", error_constant=constant,
    )  # fmt: skip


def test_the_bar_shows_done_failed_not_attempted_and_the_rate_limit_wait() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=160, color_system=None)
    bar = RichProgress(console)
    bar.start(4, wait=lambda: 2.0)
    bar.advance(_row(Status.OK))
    bar.advance(_row(Status.FAILED, "INTERNAL_ERROR"))
    bar.advance(_row(Status.SKIPPED, "NOT_ATTEMPTED"))
    bar.finish()
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue())  # the cursor's moves
    frames = [line for line in re.split(r"[\r\n]", text) if "applying" in line]
    last = frames[-1]  # the bar as the run left it
    assert "2/4" in last
    assert "1 failed, 1 not attempted" in last
    assert "rate-limit wait 2.0s" in last


def test_an_apply_without_a_terminal_loads_no_terminal_library(tmp_path: Path) -> None:
    (tmp_path / "links.csv").write_text("slug,url\nbar-1,https://example.com/1\n", "utf-8")
    modules, proc = modules_after(tmp_path, "apply", "links.csv", "--sandbox", "--yes")
    assert proc.returncode == 0, proc.stderr
    assert "applied 1/1" in proc.stderr  # the plain progress lines instead of a bar
    assert "rich" not in modules
