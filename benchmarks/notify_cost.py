"""What an alert (``--notify``) adds to a run: apprise's import and plugin load (once
per process), one message to a JSON webhook on 127.0.0.1, and one to a closed port
(the warning case). Prints one JSON document; each figure is the median of --repeat
messages (the load is measured once, in a fresh process)."""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

LOAD = """
import time
t = time.perf_counter()
from linksync.pipeline.notify import Alerts
Alerts(("json://127.0.0.1/x",)).check()
print(time.perf_counter() - t)
"""


class _Hook(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def _timed(urls: list[str], repeat: int) -> tuple[float, list[bool]]:
    from linksync.pipeline.notify import deliver

    times, oks = [], []
    for _ in range(repeat):
        t = time.perf_counter()
        done = deliver(urls, "linksync apply bench: 1 row failed", "Rows: 1\n" * 20)
        times.append(time.perf_counter() - t)
        oks.append(not done.failed)
    return statistics.median(times), oks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    load = float(subprocess.run([sys.executable, "-c", LOAD], capture_output=True,
                                text=True, check=True).stdout)  # fmt: skip
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    ok_url = f"json://127.0.0.1:{server.server_address[1]}/hook"
    _timed([ok_url], 1)  # the plugins loaded
    sent, sent_ok = _timed([ok_url], args.repeat)
    refused, refused_ok = _timed([f"json://127.0.0.1:{closed}/hook"], args.repeat)
    server.shutdown()
    print(json.dumps({
        "apprise_load_s": round(load, 3),
        "one_message_local_webhook_ms": round(sent * 1000, 2),
        "delivered": all(sent_ok),
        "one_message_closed_port_ms": round(refused * 1000, 2),
        "closed_port_delivered": any(refused_ok),
        "repeat": args.repeat,
    }, indent=2))  # fmt: skip


if __name__ == "__main__":
    main()
