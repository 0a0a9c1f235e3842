"""What the page's routes share, for one server (``UiState``), and the two helpers both
route modules use: the state of a request, and a refusal as JSON. The routes
(``ui.app``, ``ui.step_routes``) import this module; it imports neither.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
from starlette.requests import Request
from starlette.responses import JSONResponse

from linksync.config import Settings, Target
from linksync.ui.runs import RunRegistry
from linksync.ui.steps import ShownPlan
from linksync.ui.uploads import UploadStore

HERE = Path(__file__).parent


@dataclass
class UiState:
    """Everything the routes share, for one server. ``journals``: the folder of the
    runs' journals (the command line's ``.linksync/runs`` by default); ``shown``: the
    plan the page showed last (what Apply runs)."""

    settings: Settings
    token: str
    hosts: frozenset[str]
    uploads: UploadStore
    runs: RunRegistry
    journals: Path
    shown: ShownPlan | None = None
    closing: bool = False
    templates: jinja2.Environment = field(
        default_factory=lambda: jinja2.Environment(
            loader=jinja2.FileSystemLoader(HERE / "templates"),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
        )
    )

    @property
    def target(self) -> Target:
        return self.settings.target

    def target_view(self) -> dict[str, Any]:
        """What the banner shows: never the key."""
        return {"label": self.target.label, "sandbox": self.target.is_sandbox}


def ui_state(request: Request) -> UiState:
    """The state the app was made with (``create_ui_app``)."""
    state: UiState = request.app.state.ui
    return state


def error_answer(status: int, message: str) -> JSONResponse:
    """A refusal the page shows: ``{"error": message}`` with its status."""
    return JSONResponse({"error": message}, status_code=status)
