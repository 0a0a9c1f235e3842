"""linksync in Airflow: one task per target (workspace) of a config file, every night.

Each target is its own task instance (dynamic task mapping), so Airflow may run them
on different workers at once: a target's pace is its own key's rate limit, whichever
machine runs it. Copy this file into your DAGs folder, point LINKSYNC_CONFIG at a
linksync.yaml with a ``targets:`` block (the links and key files beside it, the keys in
the workers' environment under the names the targets give in ``api_key_env``), and
install linksync on the workers (``pip install linksync`` or from its git repository).
Each target names its service (``base_url``), or the built-in sandbox for a trial
(``sandbox: true``): a worker has no terminal, so a target that names neither fails
("no base_url") instead of writing to a local sandbox file.

Without Airflow the same callable runs from cron or a shell (and the tests run it):

    python samples/schedulers/airflow_dag.py            # every target, at once
    python samples/schedulers/airflow_dag.py brand-a    # one target

Works with Airflow 2.4+ (``airflow.decorators``) and 3.x (``airflow.sdk``).
"""

from __future__ import annotations

import os
import sys
from datetime import UTC, datetime
from typing import Any

import linksync

CONFIG = os.environ.get("LINKSYNC_CONFIG", "/opt/airflow/links/linksync.yaml")
REPORT_DIR = os.environ.get("LINKSYNC_REPORT_DIR", "/opt/airflow/links/out")


def target_names(config: str = CONFIG) -> list[str]:
    """The targets the config names, in file order (reads the file, no request)."""
    return [workspace.name for workspace in linksync.load_workspaces(config)]


def sync_target(name: str, config: str = CONFIG, report_dir: str = REPORT_DIR) -> dict[str, Any]:
    """Plan and apply one target: its own key, rate limiter, run lock and journal. The
    reports are written either way; the task fails (after writing them) when the target
    did not end well, with the sentence that says what was written. Returns the
    target's summary (counts, writes, files, error constant) for XCom."""
    every = linksync.apply_all(
        [name],
        config,
        outputs=linksync.Outputs(
            reports=[f"{report_dir}/{{target}}.csv", f"{report_dir}/{{target}}.json"],
            lock_wait=300,  # a run of this target still going on this machine: wait for it
        ),
    )
    if every.exit_code != 0:
        raise RuntimeError(every.verdict())
    return every[name].to_dict()


try:  # Airflow 3
    from airflow.sdk import dag, task
except ImportError:  # Airflow 2.4+, or no Airflow at all (cron, tests)
    try:
        from airflow.decorators import dag, task
    except ImportError:
        dag = task = None

if dag is not None and task is not None:

    @dag(
        dag_id="linksync_targets",
        schedule="17 3 * * *",
        start_date=datetime(2026, 1, 1, tzinfo=UTC),
        catchup=False,
        max_active_runs=1,  # two nights never overlap on one workspace
        tags=["linksync"],
    )
    def linksync_targets() -> None:
        @task(retries=0)  # the next night converges; a retry storm helps no one
        def sync(name: str) -> dict[str, Any]:
            return sync_target(name)

        sync.expand(name=target_names())

    linksync_targets()


if __name__ == "__main__":
    every = linksync.apply_all(
        sys.argv[1:] or None,
        CONFIG,
        outputs=linksync.Outputs(reports=[f"{REPORT_DIR}/{{target}}.csv"]),
    )
    for target in every:
        print(target.name, target.status, target.error_constant or "", target.writes.describe())
    print(every.verdict())
    sys.exit(every.exit_code)
