"""The local web page (``linksync ui``): one more front end over the library, beside
``cli/``.

Served by uvicorn on 127.0.0.1 only, guarded against other web pages (``security``),
with uploads kept in a temporary folder (``uploads``). Its steps (``app``)
show the columns of each sheet, check the rows (``steps.check``), plan
with ``linksync.plan`` and apply that plan with ``linksync.apply`` (``apply_run``) as a
run that outlives a closed tab (``runs``), whose progress the page follows as
server-sent events (``progress``). A guide with screenshots is in ``docs/ui.md``.

    from linksync.config import resolve
    from linksync.ui import start_ui

    with start_ui(resolve(sandbox="if-unset")) as server:  # the sandbox when nothing is set
        print(server.url)

Layer: under ``cli``. It may import every library package (the pipeline for runs,
sources and validate for the check step, the sandbox), never the command line.
"""

from __future__ import annotations

from linksync.ui.app import UiState, create_ui_app
from linksync.ui.progress import RunFeed, RunOutcome, RunState
from linksync.ui.runs import RunBusy, RunRegistry
from linksync.ui.server import UiServer, serve_ui, start_ui
from linksync.ui.uploads import Upload, UploadStore

__all__ = [
    "RunBusy",
    "RunFeed",
    "RunOutcome",
    "RunRegistry",
    "RunState",
    "UiServer",
    "UiState",
    "Upload",
    "UploadStore",
    "create_ui_app",
    "serve_ui",
    "start_ui",
]
