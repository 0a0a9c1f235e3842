"""Run many ``linksync`` commands at once, each in its own process and working folder.

A fresh interpreter per run costs about a second of imports (pandas, httpx); twenty of
them on a shared 2-core machine would dominate the suite. So one helper process (the
"zygote") imports the CLI once, then forks one child per run: each child is a real
process with its own working folder, its own file descriptors and its own event loop,
exactly what twenty jobs started at once on one machine are.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

ZYGOTE = textwrap.dedent(
    """
    import json, os, sys
    import linksync.cli.apply, linksync.api, linksync.report  # heavy imports, once, before forking
    from linksync.cli import cli

    runs = json.loads(sys.stdin.read())
    children = {}
    for i, run in enumerate(runs):
        pid = os.fork()
        if pid == 0:
            try:
                os.chdir(run["cwd"])
                out = os.open(run["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                err = os.open(run["err"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                os.dup2(out, 1)
                os.dup2(err, 2)
                os.environ.update(run["env"])
                code = 0
                try:
                    cli.main(run["args"], prog_name="linksync")
                except SystemExit as exc:
                    code = exc.code if isinstance(exc.code, int) else 1
                except BaseException:
                    import traceback
                    traceback.print_exc()
                    code = 99
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
        children[pid] = i
    codes = [None] * len(runs)
    for _ in runs:
        pid, status = os.wait()
        codes[children[pid]] = os.waitstatus_to_exitcode(status)
    print(json.dumps(codes))
    """
)


@dataclass(frozen=True, slots=True)
class Finished:
    cwd: Path
    exit_code: int
    stdout: str
    stderr: str


def run_parallel(
    runs: list[tuple[Path, list[str]]], env: dict[str, str], timeout: float = 120
) -> list[Finished]:
    """Start every ``(cwd, args)`` at once; wait for all; their exit codes and output."""
    spec = []
    for n, (cwd, args) in enumerate(runs):
        spec.append(
            {
                "cwd": str(cwd),
                "args": args,
                "env": env,
                "out": str(cwd / f".run{n}.out"),
                "err": str(cwd / f".run{n}.err"),
            }
        )
    done = subprocess.run(
        [sys.executable, "-c", ZYGOTE],
        input=json.dumps(spec),
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **env},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    codes = json.loads(done.stdout)
    return [
        Finished(
            Path(s["cwd"]),
            code,
            Path(s["out"]).read_text(encoding="utf-8"),
            Path(s["err"]).read_text(encoding="utf-8"),
        )
        for s, code in zip(spec, codes, strict=True)
    ]
