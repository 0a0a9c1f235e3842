"""Helpers of the page's tests: a run the test drives step by step, an in-process
client of the page's app (the guard sees the Host of a server on ``PORT``), and the
encrypted sample workbook with the ways to look for its password in what was written."""

from __future__ import annotations

import io
import json
import queue
import threading
import time
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
from msoffcrypto.format.ooxml import OOXMLFile  # type: ignore[import-untyped]

from linksync.config import Settings
from linksync.model import Action, RowResult, Status
from linksync.ui import RunFeed, RunOutcome, RunRegistry, UiState, UploadStore, create_ui_app
from linksync.ui.security import page_hosts

PORT = 8765
ORIGIN = f"http://127.0.0.1:{PORT}"
TOKEN = "test-session-token"
SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "campaign.xlsx"
PASSWORD = "Fr\u00fchling-2027 s3cr3t!"


def encrypt(data: bytes, password: str = PASSWORD) -> bytes:
    """``data`` (an xlsx) encrypted as Excel does with a password (agile encryption)."""
    out = io.BytesIO()
    OOXMLFile(io.BytesIO(data)).encrypt(password, out)
    return out.getvalue()


def contents(folder: Path) -> Iterator[tuple[str, bytes]]:
    """Every file under ``folder``, and every member of a zip (xlsx, QR codes) unpacked."""
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        yield str(path), data
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                for member in archive.namelist():
                    yield f"{path}!{member}", archive.read(member)


def secret_forms(password: str) -> list[bytes]:
    """The password as it would stand in a file: UTF-8, inside JSON, UTF-16."""
    return [password.encode(), json.dumps(password)[1:-1].encode(), password.encode("utf-16-le")]


def eventually(check: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.01)


def ok_row(n: int) -> RowResult:
    return RowResult(Action.CREATE, Status.OK, slug=f"s{n}", domain="lnk.test")


def failed_row(n: int) -> RowResult:
    return RowResult(Action.CREATE, Status.FAILED, slug=f"f{n}", error_constant="INVALID_URL")


class ScriptedRun:
    """A run source the test drives: ``send("row")``, ``send("fail")``,
    ``send("wait", seconds)``, ``send("resume")``, ``send("end")``. On cancel it stops
    at once and still writes its report. Its one file is ``results.csv``."""

    kind = "apply"

    def __init__(self, total: int = 4) -> None:
        self.total = total
        self.commands: queue.Queue[tuple[str, float]] = queue.Queue()
        self.done = threading.Event()
        self.wait_s = 0.0  # the rate limiter's wait, as the engine's ``wait`` reports it

    def send(self, command: str, value: float = 0.0) -> None:
        self.commands.put((command, value))

    def run(self, feed: RunFeed, cancel: threading.Event, folder: Path) -> RunOutcome:
        feed.start(self.total, lambda: self.wait_s)
        rows = 0
        try:
            while not cancel.is_set():
                try:
                    command, value = self.commands.get(timeout=0.05)
                except queue.Empty:
                    continue
                if command == "row":
                    rows += 1
                    feed.advance(ok_row(rows))
                elif command == "fail":
                    rows += 1
                    feed.advance(failed_row(rows))
                elif command == "wait":
                    self.wait_s = value
                elif command == "resume":
                    self.wait_s = 0.0
                elif command == "boom":
                    raise RuntimeError("the test run broke")
                elif command == "end":
                    break
            (folder / "results.csv").write_text(f"rows\n{rows}\n", encoding="utf-8")
            feed.finish()
            if cancel.is_set():
                return RunOutcome(f"cancelled after {rows} rows", 130, ("results.csv",), True)
            return RunOutcome(f"{rows} rows applied", 0, ("results.csv",))
        finally:
            self.done.set()


def make_state(settings: Settings, tmp: Path, *, max_bytes: int = 100_000) -> UiState:
    return UiState(
        settings=settings,
        token=TOKEN,
        hosts=page_hosts(PORT),
        uploads=UploadStore(max_bytes),
        runs=RunRegistry(tmp / "ui"),
        journals=tmp / "journals",
    )


def page_client(state: UiState, *, token: str | None = TOKEN, **headers: str) -> httpx.AsyncClient:
    """A client of the app as the page itself would be (Host and Origin its own, the
    session token unless ``token`` says otherwise; None: no token header)."""
    sent = {"Origin": ORIGIN, **headers}
    if token is not None:
        sent["X-Linksync-Token"] = token
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=create_ui_app(state)), base_url=ORIGIN, headers=sent
    )
