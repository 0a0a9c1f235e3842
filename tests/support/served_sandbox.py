"""``linksync sandbox serve`` as a user starts it: a process of its own on 127.0.0.1, a
free port, state in memory; stopped by its pid when the test ends.

    with sandbox_process(tmp_path, key="k-1") as server:
        server.url            # http://127.0.0.1:PORT
        server.url_as("localhost")   # the same server under another spelling
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

BIN = Path(sys.executable).parent


@dataclass(frozen=True)
class ServedSandbox:
    """A running ``linksync sandbox serve``: its pid, port and key."""

    pid: int
    port: int
    key: str

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url_as(self, host: str) -> str:
        """The server's base URL spelt with another host name (``localhost``)."""
        return f"http://{host}:{self.port}"


@contextmanager
def sandbox_process(tmp: Path, *, key: str) -> Iterator[ServedSandbox]:
    """Start ``linksync sandbox serve --port 0 --memory --full-key KEY``, wait for the
    line that names its address, yield it; stop the process by its pid at the end."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LINKSYNC_")}
    log = (tmp / "sandbox-serve.log").open("w", encoding="utf-8")
    proc = subprocess.Popen(
        [str(BIN / "linksync"), "sandbox", "serve", "--port", "0", "--memory", "--full-key", key],
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("linksync sandbox listening on http://127.0.0.1:"), first
        port = int(first.split()[-1].rsplit(":", 1)[1])
        yield ServedSandbox(proc.pid, port, key)
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.communicate(timeout=10)
        log.close()
