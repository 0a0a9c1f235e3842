"""What a small run loads: a plan or an apply of a CSV file without a terminal loads the
reader, the engine and the way it reaches the service, and none of what only other
runs use: the QR code library (``--qr``, an annotated workbook's codes), the workbook
editors (an Excel source, an annotated copy) and pandas (the Excel reader), the alert
library (``--notify``), the terminal's progress bars and httpx's own command line (rich,
pygments), the file lock (a plan takes none). Against a served sandbox the client loads
no sandbox; against the built-in one, no network stack. Without a config file a CSV
run loads no YAML parser. ``plan --help`` and ``apply --help`` load no run at all.
A run sends its first request before it loads the readers' numpy (they load it in
the thread that reads beside the first requests), and numpy runs on one OpenBLAS
thread. Each case runs the command in a fresh interpreter and reads its sys.modules
at exit."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from support.imports import modules_after, run_probe, startup_of
from support.served_sandbox import sandbox_process

T = TypeVar("T")

#: Loaded only by the runs that use them; never by a plan or apply of a CSV file.
OTHER_RUNS = {
    "segno",  # QR codes
    "openpyxl",  # annotated workbooks, Excel sources
    "python_calamine",  # Excel sources
    "xlsxwriter",
    "msoffcrypto",  # encrypted workbooks
    "apprise",  # --notify
    "pygments",  # httpx's command line
}
#: Loaded by the Excel reader only: a CSV file is read with the csv module.
SPREADSHEETS_ONLY = {"pandas"}
#: Also unused by a plan without a terminal: no progress bar, no lock.
NOT_IN_A_PLAN = OTHER_RUNS | {"rich", "filelock"}
#: The sandbox's side: a client of a served sandbox is only a client.
SERVER_SIDE = {"linksync.sandbox", "starlette", "uvicorn", "sqlite3"}
#: Read only from a config file or a YAML source: a run of a CSV file without a config
#: file never loads the YAML parser.
YAML_ONLY = {"yaml", "linksync.sources.yaml_nodes"}

KEY = "k-startup"


def write_csv(folder: Path, rows: int = 50) -> None:
    lines = ["slug,url", *(f"start-{i},https://example.com/p/{i}" for i in range(rows))]
    (folder / "links.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_a_csv_plan_on_the_built_in_sandbox_loads_only_what_it_uses(tmp_path: Path) -> None:
    write_csv(tmp_path)
    modules, proc = modules_after(tmp_path, "plan", "links.csv", "--sandbox")
    assert proc.returncode == 0, proc.stderr
    assert "/start-49 -> https://example.com/p/49" in proc.stdout
    assert {"linksync.sources.csv_reader", "linksync.sandbox"} <= modules  # what it used
    assert modules & (NOT_IN_A_PLAN | SPREADSHEETS_ONLY) == set()
    assert "aiohttp" not in modules  # the built-in sandbox is reached in this process


def test_a_csv_plan_against_a_served_sandbox_loads_no_sandbox(tmp_path: Path) -> None:
    write_csv(tmp_path)
    with sandbox_process(tmp_path, key=KEY) as served:
        modules, proc = modules_after(
            tmp_path, "plan", "links.csv", "--base-url", served.url, env={"LINKSYNC_API_KEY": KEY}
        )
    assert proc.returncode == 0, proc.stderr
    assert "/start-49 -> https://example.com/p/49" in proc.stdout
    assert "aiohttp" in modules  # the network transport it talked through
    assert modules & (NOT_IN_A_PLAN | SERVER_SIDE | SPREADSHEETS_ONLY | YAML_ONLY) == set()


def served_csv_apply(folder: Path, probe: Callable[..., tuple[T, Any]]) -> T:
    """What ``probe`` (``modules_after``, ``startup_of``) found of an apply of the
    CSV file's 50 rows against a served sandbox, each row written."""
    write_csv(folder)
    with sandbox_process(folder, key=KEY) as served:
        args = ("apply", "links.csv", "--base-url", served.url, "--yes", "--report", "out.csv")
        found, proc = probe(folder, *args, env={"LINKSYNC_API_KEY": KEY})
    assert proc.returncode == 0, proc.stderr
    assert (folder / "out.csv").read_text(encoding="utf-8").count(",create,ok,") == 50
    return found


def test_a_csv_apply_against_a_served_sandbox_loads_no_yaml_parser(tmp_path: Path) -> None:
    """Without a config file (none named, no ./linksync.yaml) an apply of a CSV file
    reads no YAML: the parser is loaded by the config file's reader and the YAML
    source's, when they run."""
    modules = served_csv_apply(tmp_path, modules_after)
    assert modules & (OTHER_RUNS | SERVER_SIDE | SPREADSHEETS_ONLY | YAML_ONLY) == set()


def test_a_csv_apply_loads_no_qr_workbook_or_alert_library(tmp_path: Path) -> None:
    write_csv(tmp_path)
    modules, proc = modules_after(
        tmp_path, "apply", "links.csv", "--sandbox", "--yes", "--report", "out.csv"
    )
    assert proc.returncode == 0, proc.stderr
    report = (tmp_path / "out.csv").read_text(encoding="utf-8")
    assert report.count(",create,ok,") == 50  # every row written
    assert "filelock" in modules  # an apply takes the run lock
    assert modules & (OTHER_RUNS | SPREADSHEETS_ONLY) == set()


#: What only the other report formats, an annotated copy, the QR zip or a YAML source load.
OTHER_WRITERS = {
    "linksync.report.xlsx",  # an .xlsx report
    "linksync.report.markdown",  # an .md report, a plan's markdown
    "linksync.report.junit",  # an .xml report
    "xml.sax",  # (what the JUnit XML writer escapes with)
    "linksync.report.qr_sheet",  # the QR column of an annotated workbook
    "linksync.report.qr",  # the zip of QR codes (--qr)
    "linksync.sources.yaml_reader",  # a YAML source
}


def test_a_csv_apply_with_a_json_report_loads_no_other_writer(tmp_path: Path) -> None:
    """A run loads the writer of each report it writes, when it opens it: an apply
    of a CSV file with a JSON report loads neither the xlsx, markdown and JUnit XML
    writers nor the YAML reader."""
    write_csv(tmp_path)
    modules, proc = modules_after(
        tmp_path, "apply", "links.csv", "--sandbox", "--yes", "--report", "out.json"
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert [r["status"] for r in report["results"]] == ["ok"] * 50  # every row written
    assert "linksync.report.jsonfile" in modules  # the writer it used
    assert modules & OTHER_WRITERS == set()


#: Counts the garbage collector's walks while ``linksync ARGS`` runs in this process.
GC_PROBE = """
import atexit, gc, json, sys
from linksync.cli import main
walks = []
def walked(phase, info):
    if phase == "start":
        walks.append(info["generation"])
gc.callbacks.append(walked)
atexit.register(lambda: print("walks", json.dumps(walks), file=sys.stderr))
sys.argv = ["linksync", *sys.argv[1:]]
main()
"""


def test_a_csv_apply_does_not_walk_what_it_loaded(tmp_path: Path) -> None:
    """The modules a command loads live as long as its process: the collector waits
    while they load and the run starts with them frozen, so a small apply is not
    slowed by some hundred walks of them (the default thresholds made 90-110)."""
    write_csv(tmp_path)
    args = ["apply", "links.csv", "--sandbox", "--yes", "--report", "out.json"]
    proc = run_probe(GC_PROBE, tmp_path, *args)
    assert proc.returncode == 0, proc.stderr
    report = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert [r["status"] for r in report["results"]] == ["ok"] * 50
    line = next(ln for ln in proc.stderr.splitlines() if ln.startswith("walks "))
    walks = json.loads(line.removeprefix("walks "))
    assert len(walks) <= 5, walks


@pytest.mark.parametrize("command", ["plan", "apply"])
def test_a_csv_run_asks_the_service_before_it_loads_numpy(tmp_path: Path, command: str) -> None:
    """The quick look at a small CSV before the first request counts its lines without
    numpy; the readers load numpy in the thread that reads beside the first requests,
    so the main thread sends the first request without waiting for it."""
    write_csv(tmp_path)
    with sandbox_process(tmp_path, key=KEY) as served:
        env = {"LINKSYNC_API_KEY": KEY}
        args = (command, "links.csv", "--base-url", served.url)
        startup, proc = startup_of(
            tmp_path, *args, *(("--yes",) if command == "apply" else ()), env=env
        )
    assert proc.returncode == 0, proc.stderr
    assert startup.connected
    assert {"linksync.sources.csv_reader", "numpy"} <= startup.modules  # the reading loaded it
    assert "numpy" not in startup.main_before_connect
    assert "linksync.sources.frame" not in startup.main_before_connect


def test_a_csv_apply_loads_no_httpx_command_line_and_leaves_it_importable(tmp_path: Path) -> None:
    """httpx's own command line (click's commands, rich's console, pygments) is kept out
    of httpx's import in linksync's process, without refusing it for good: a later
    ``import httpx._main`` in the same process imports it."""
    startup = served_csv_apply(tmp_path, startup_of)
    assert "httpx" in startup.modules
    assert startup.modules & {"httpx._main", "pygments", "rich"} == set()
    assert startup.httpx_command_line == "httpx._main"


@pytest.mark.parametrize("command", ["plan", "apply"])
def test_a_commands_help_loads_no_run(tmp_path: Path, command: str) -> None:
    """``--help`` shows the flags: it reads no config, starts no event loop and loads
    neither the run (``linksync.pipeline.applying``, the lock) nor the client."""
    modules, proc = modules_after(tmp_path, command, "--help")
    assert proc.returncode == 0 and f"Usage: linksync {command}" in proc.stdout
    run = {"asyncio", "yaml", "linksync.config", "linksync.pipeline.applying", "httpx"}
    assert modules & (run | {"linksync.pipeline.lock", "filelock"}) == set()


#: ``linksync ARGS``, then the number of the process's threads at exit on stderr.
THREADS_PROBE = """
import atexit, os, sys
count = lambda: print("threads", len(os.listdir("/proc/self/task")), file=sys.stderr)
atexit.register(count)
sys.argv = ["linksync", *sys.argv[1:]]
from linksync.cli import main
main()
"""


def threads_at_exit(folder: Path, blas_threads: str) -> int:
    env = {"OPENBLAS_NUM_THREADS": blas_threads} if blas_threads else {}
    drop = ("LINKSYNC_", "OPENBLAS_")
    proc = run_probe(THREADS_PROBE, folder, "validate", "links.csv", env=env, drop=drop)
    assert proc.returncode == 0, proc.stderr
    assert "50 row(s): 50 valid" in proc.stdout, proc.stdout
    line = next(ln for ln in proc.stderr.splitlines() if ln.startswith("threads "))
    return int(line.removeprefix("threads "))


def cores() -> int:
    """The cores this process may run on (what OpenBLAS counts its threads by)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1


@pytest.mark.skipif(
    not Path("/proc/self/task").is_dir() or cores() < 2,
    reason="counts the threads of a Linux process allowed two cores or more",
)
def test_numpy_starts_one_blas_thread_unless_the_user_asks_for_more(tmp_path: Path) -> None:
    """numpy (the readers' columns) starts OpenBLAS, whose threads (one a core) spin
    while it starts: a command asks for one, as no command does linear algebra;
    ``OPENBLAS_NUM_THREADS`` set by the user wins."""
    write_csv(tmp_path)
    assert threads_at_exit(tmp_path, "") + 1 == threads_at_exit(tmp_path, "2")


#: ``linksync ARGS``, then at exit (stderr) the CA certificates held by aiohttp's two
#: default contexts and by a default context made then.
CAS_PROBE = """
import atexit, json, ssl, sys
def count():
    from aiohttp import connector
    made = (connector._SSL_CONTEXT_VERIFIED, connector._SSL_CONTEXT_UNVERIFIED)
    cas = [c.cert_store_stats()["x509_ca"] for c in (*made, ssl.create_default_context())]
    print("cas", json.dumps(cas), file=sys.stderr)
atexit.register(count)
sys.argv = ["linksync", *sys.argv[1:]]
from linksync.cli import main
main()
"""


def test_an_apply_over_plain_http_loads_no_ca_certificate(tmp_path: Path) -> None:
    """aiohttp's two default contexts (which linksync never hands a connection) are
    made without the system's CA store: an apply against an ``http://`` service loads
    no certificate before its first request; a context made afterwards in the same
    process loads the store as ever."""
    write_csv(tmp_path)
    with sandbox_process(tmp_path, key=KEY) as served:
        args = ("apply", "links.csv", "--base-url", served.url, "--yes", "--report", "out.csv")
        proc = run_probe(CAS_PROBE, tmp_path, *args, env={"LINKSYNC_API_KEY": KEY})
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "out.csv").read_text(encoding="utf-8").count(",create,ok,") == 50
    line = next(ln for ln in proc.stderr.splitlines() if ln.startswith("cas "))
    verifying, unverified, made_later = json.loads(line.removeprefix("cas "))
    assert (verifying, unverified) == (0, 0)
    assert made_later > 0
