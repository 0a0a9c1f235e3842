"""Serving the page: uvicorn on 127.0.0.1 only, a free port unless one is asked for.

``start_ui`` runs the server in a thread (tests, notebooks) and returns a handle;
``serve_ui`` runs it in the foreground until Ctrl-C (``linksync ui``). Both bind the
socket first, so the real port is known before the app is made (the guard needs it
to check Host and Origin), and both clean up on the way out: a run still going is
cancelled and waited for (its record then says how it ended), the uploads are
deleted.
"""

from __future__ import annotations

import secrets
import socket
import threading
import time
import webbrowser
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import uvicorn

from linksync.config import Settings
from linksync.sandbox.server import base_url_of, bind
from linksync.ui.app import UiState, create_ui_app
from linksync.ui.runs import RunRegistry
from linksync.ui.security import page_hosts
from linksync.ui.uploads import DEFAULT_MAX_BYTES, UploadStore

#: The only address the page's server listens on.
LOOPBACK = "127.0.0.1"
#: Where the page's runs keep their files, relative to the folder it started in. Their
#: journals go beside the command line's, in the ``runs`` folder next to it (unless
#: ``journal_dir`` says otherwise): the rows a page run left failing go first in the
#: next run, from the page or the command line.
DEFAULT_RUNS_DIR = Path(".linksync") / "ui"
#: Seconds uvicorn gives open connections (an event stream) when it stops.
_GRACE_S = 2


@dataclass
class UiServer:
    """A running page server: its ``url``, its ``state`` and ``stop()``."""

    url: str
    state: UiState
    server: uvicorn.Server
    thread: threading.Thread | None = None

    def close(self) -> None:
        """What the end of a server does: stop runs, delete uploads."""
        self.state.closing = True
        self.state.runs.close()
        self.state.uploads.close()

    def stop(self, timeout: float = 10.0) -> None:
        self.state.closing = True
        self.server.should_exit = True
        if self.thread is not None:
            self.thread.join(timeout)
        self.close()

    def __enter__(self) -> UiServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _build(
    settings: Settings, port: int, max_upload_bytes: int, runs_dir: Path, journal_dir: Path | None
) -> tuple[UiServer, socket.socket]:
    sock = bind(LOOPBACK, port)
    real_port = sock.getsockname()[1]
    state = UiState(
        settings=settings,
        token=secrets.token_urlsafe(32),
        hosts=page_hosts(real_port),
        uploads=UploadStore(max_upload_bytes),
        runs=RunRegistry(runs_dir),
        journals=journal_dir if journal_dir is not None else Path(runs_dir).parent / "runs",
    )
    config = uvicorn.Config(
        create_ui_app(state),
        lifespan="off",
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=_GRACE_S,
    )
    return UiServer(base_url_of(sock) + "/", state, uvicorn.Server(config)), sock


def start_ui(
    settings: Settings,
    *,
    port: int = 0,
    max_upload_bytes: int = DEFAULT_MAX_BYTES,
    runs_dir: Path = DEFAULT_RUNS_DIR,
    journal_dir: Path | None = None,
    startup_timeout: float = 10.0,
) -> UiServer:
    """Serve the page in a daemon thread; returns once it listens."""
    handle, sock = _build(settings, port, max_upload_bytes, runs_dir, journal_dir)
    handle.thread = threading.Thread(
        target=handle.server.run, kwargs={"sockets": [sock]}, name="linksync-ui", daemon=True
    )
    handle.thread.start()
    deadline = time.monotonic() + startup_timeout
    while not handle.server.started:
        if not handle.thread.is_alive() or time.monotonic() > deadline:
            handle.stop()
            raise RuntimeError("the page's server did not start")
        time.sleep(0.005)
    return handle


def serve_ui(
    settings: Settings,
    *,
    port: int = 0,
    open_browser: bool = True,
    max_upload_bytes: int = DEFAULT_MAX_BYTES,
    runs_dir: Path = DEFAULT_RUNS_DIR,
    journal_dir: Path | None = None,
    on_ready: Callable[[str], None] = print,
) -> None:
    """Serve the page in the foreground until interrupted; ``on_ready(url)`` once the
    socket is bound, then the browser opens the page (unless ``open_browser`` is
    False)."""
    handle, sock = _build(settings, port, max_upload_bytes, runs_dir, journal_dir)
    try:
        on_ready(handle.url)
        if open_browser:
            webbrowser.open(handle.url)
        handle.server.run(sockets=[sock])
    finally:
        handle.close()
