"""``samples/schedulers/airflow_dag.py``: its callable, one target per job, run against
two built-in sandboxes without Airflow (the DAG itself is declared only where Airflow is
installed); and the sample as a script, as cron would run it (in this process)."""

from __future__ import annotations

import importlib.util
import json
import re
import runpy
import sys
from pathlib import Path
from types import ModuleType

import pytest

from support.two_workspaces import A_SLUGS, B_SLUGS, remote_slugs, report_rows

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "schedulers" / "airflow_dag.py"


def load_sample() -> ModuleType:
    spec = importlib.util.spec_from_file_location("airflow_dag_sample", SAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_one_task_per_target(config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sample = load_sample()
    if importlib.util.find_spec("airflow") is None:
        assert sample.dag is None  # no Airflow: the callable alone
    names = sample.target_names(str(config))
    assert names == ["brand-a", "brand-b"]
    out = config.parent / "out"
    summaries = [sample.sync_target(name, str(config), str(out)) for name in names]
    assert [s["status"] for s in summaries] == ["ok", "ok"]
    assert [s["writes"]["created"] for s in summaries] == [len(A_SLUGS), len(B_SLUGS)]
    json.dumps(summaries)  # fit for XCom
    assert [r["slug"] for r in report_rows(out / "brand-a.csv")] == A_SLUGS
    assert json.loads((out / "brand-b.json").read_text(encoding="utf-8"))["results"]
    assert remote_slugs(config, "brand-b") == B_SLUGS

    monkeypatch.setenv("BRAND_B_KEY", "not-a-key")  # the task fails, and says why
    with pytest.raises(RuntimeError, match=r"brand-b \(UNAUTHORIZED, nothing written to it\)"):
        sample.sync_target("brand-b", str(config), str(out))


def test_the_sample_as_a_script(
    config: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LINKSYNC_CONFIG", str(config))
    monkeypatch.setenv("LINKSYNC_REPORT_DIR", "out")
    monkeypatch.setattr(sys, "argv", [str(SAMPLE), "brand-a"])
    with pytest.raises(SystemExit) as exited:
        runpy.run_path(str(SAMPLE), run_name="__main__")
    assert exited.value.code == 0
    assert "brand-a ok  3 created" in capsys.readouterr().out
    assert Path("out/brand-a.csv").is_file() and not Path("out/brand-b.csv").exists()


def docs_python_block() -> str:
    docs = SAMPLE.parents[2] / "docs" / "links-as-code.md"
    section = docs.read_text(encoding="utf-8").split("### From Python, and one target per job")[1]
    return re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)[0]


def test_the_python_block_of_the_docs_runs(
    config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    namespace: dict[str, object] = {"__name__": "docs"}
    exec(compile(docs_python_block(), "links-as-code.md", "exec"), namespace)
    printed = capsys.readouterr().out
    assert "brand-a ok None 3 created" in printed and "brand-b ok None 2 created" in printed
    assert namespace["names"] == ["brand-a", "brand-b"]
    assert Path("out/brand-a.csv").is_file() and Path("plans/brand-b.json").is_file()
