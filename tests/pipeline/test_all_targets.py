"""``linksync.plan_all`` / ``linksync.apply_all``: two workspaces (two built-in sandboxes)
in one run, from Python. Each target ends on its own (a refused key, a held lock), the
outputs of all of them are checked together before the first request, each key has its
own rate limiter, and the combined exit code keeps exit 2's promise."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

import linksync
from linksync.errors import ConfigError
from linksync.model import RowResult
from linksync.model.outcome import combined_exit_code
from linksync.pipeline import RunEvents, for_target
from linksync.pipeline.lock import acquire_lock, default_lock_path
from linksync.sandbox import SandboxSettings
from linksync.sandbox.settings import DEFAULT_FULL_KEY
from linksync.sync.plan import Plan
from linksync.sync.results import WaitFn
from support.sandbox_helpers import serve_in_thread
from support.two_workspaces import (
    A_SLUGS,
    B_SLUGS,
    good_env,
    make_two,
    remote_slugs,
    report_rows,
    settings_of,
)


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # journals in .linksync/runs here
    return make_two(tmp_path)


def test_plan_all_plans_each_workspace_and_writes_nothing(config: Path) -> None:
    every = linksync.plan_all(
        config=config, env=good_env(), outputs=linksync.PlanOutputs(out="plans/{target}.json")
    )
    assert [t.name for t in every] == ["brand-a", "brand-b"]
    assert every["brand-a"].counts["create"] == len(A_SLUGS)
    assert every["brand-b"].counts["create"] == len(B_SLUGS)
    assert every.exit_code == 0 and not every.wrote
    saved = json.loads(Path("plans/brand-b.json").read_text(encoding="utf-8"))
    assert saved["options"]["mode"] == "mirror"  # the target's own mode
    assert Path("plans/brand-a.json").is_file()
    assert remote_slugs(config, "brand-a") == [] and remote_slugs(config, "brand-b") == []
    detailed = linksync.plan_all(
        config=config, env=good_env(), outputs=linksync.PlanOutputs(detailed_exitcode=True)
    )
    assert detailed.exit_code == 3 and {t.status for t in detailed} == {"changes"}


def test_apply_all_writes_each_workspace_its_reports_and_the_summary(config: Path) -> None:
    every = linksync.apply_all(
        config=config,
        env=good_env(),
        outputs=linksync.Outputs(reports=["out/{target}.csv", "out/summary.json"]),
    )
    assert every.exit_code == 0, every.verdict()
    # each workspace holds its own links, and only those
    assert remote_slugs(config, "brand-a") == A_SLUGS
    assert remote_slugs(config, "brand-b") == B_SLUGS
    assert [r["slug"] for r in report_rows(Path("out/brand-a.csv"))] == A_SLUGS
    assert [r["slug"] for r in report_rows(Path("out/brand-b.csv"))] == B_SLUGS
    assert Path("out/summary-brand-a.json").is_file()  # a path without {target}
    assert every["brand-b"].files == (Path("out/brand-b.csv"), Path("out/summary-brand-b.json"))
    summary = every.to_dict()
    assert [t["writes"]["created"] for t in summary["targets"]] == [3, 2]
    assert summary["exit_code"] == 0 and summary["wrote"] is True
    journals = {t.journal for t in every}
    assert len(journals) == 2 and all(j is not None and j.is_file() for j in journals)
    again = linksync.apply_all(config=config, env=good_env())
    assert again.exit_code == 0 and not again.wrote
    assert again["brand-a"].counts["ok"] == len(A_SLUGS)


def test_a_refused_key_fails_its_target_only(config: Path) -> None:
    every = linksync.apply_all(
        config=config,
        env={"BRAND_B_KEY": "not-a-key"},
        outputs=linksync.Outputs(reports=["out/{target}.csv"]),
    )
    a, b = every["brand-a"], every["brand-b"]
    assert a.status == "ok" and a.writes.describe() == "3 created"
    assert (b.status, b.exit_code, b.error_constant) == ("error", 2, "UNAUTHORIZED")
    assert "not-a-key" not in (b.error or "")
    assert not Path("out/brand-b.csv").exists() and Path("out/brand-a.csv").is_file()
    # brand-b wrote nothing, brand-a wrote links: the run is 1, never "nothing done"
    assert every.exit_code == 1
    verdict = every.verdict()
    assert "brand-b (UNAUTHORIZED, nothing written to it)" in verdict
    assert "brand-a (3 created)" in verdict
    # Now brand-a has nothing left to write: no target wrote, so 2 holds.
    again = linksync.apply_all(config=config, env={"BRAND_B_KEY": "not-a-key"})
    assert again.exit_code == 2 and not again.wrote
    # An unset key variable fails its target alone too, before any request.
    unset = linksync.apply_all(config=config, env={})
    assert unset["brand-b"].error_constant == "CONFIG_ERROR"
    assert "BRAND_B_KEY" in (unset["brand-b"].error or "")
    assert unset["brand-a"].status == "ok"


def test_a_held_lock_fails_its_target_only(config: Path) -> None:
    with acquire_lock(default_lock_path(settings_of(config, "brand-a").target)):
        every = linksync.apply_all(config=config, env=good_env())
    a, b = every["brand-a"], every["brand-b"]
    assert (a.exit_code, a.error_constant) == (2, "LOCK_HELD")
    assert "another linksync run holds the lock" in (a.error or "")
    assert b.status == "ok" and b.writes.describe() == "2 created"
    assert every.exit_code == 1
    assert remote_slugs(config, "brand-a") == []


def test_a_cancel_stops_every_target_and_keeps_their_reports(config: Path) -> None:
    cancel = threading.Event()
    cancel.set()  # as Ctrl-C does, before the first write
    every = linksync.apply_all(
        config=config,
        env=good_env(),
        outputs=linksync.Outputs(reports=["out/{target}.csv"]),
        hooks=linksync.Hooks(cancel=cancel),
    )
    assert every.exit_code == 130 and {t.status for t in every} == {"interrupted"}
    rows = report_rows(Path("out/brand-b.csv"))
    assert [r["error_constant"] for r in rows] == ["NOT_ATTEMPTED"] * len(B_SLUGS)
    assert remote_slugs(config, "brand-a") == []


def test_one_target_per_job(config: Path) -> None:
    every = linksync.apply_all(["brand-b"], config=config, env=good_env())
    assert [t.name for t in every] == ["brand-b"] and every.exit_code == 0
    assert remote_slugs(config, "brand-a") == [] and remote_slugs(config, "brand-b") == B_SLUGS


def test_the_outputs_of_one_run_are_refused_over_targets(config: Path) -> None:
    for outputs in (linksync.Outputs(annotate=["copy.xlsx"]), linksync.Outputs(journal="j.jsonl")):
        with pytest.raises(ConfigError, match="outputs of one run"):
            linksync.apply_all(config=config, env=good_env(), outputs=outputs)
    assert remote_slugs(config, "brand-a") == [] and remote_slugs(config, "brand-b") == []


def test_every_output_is_checked_together_before_any_request(config: Path) -> None:
    # brand-b reads the very file brand-a's report would write: refused, nothing done.
    Path("out").mkdir()
    Path("out/brand-a.csv").write_text("slug,url\nb9,https://example.com/b9\n", "utf-8")
    text = config.read_text(encoding="utf-8").replace("[links/b.yaml]", "[out/brand-a.csv]")
    config.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=r"brand-a: --report out/brand-a\.csv"):
        linksync.apply_all(
            config=config, env=good_env(), outputs=linksync.Outputs(reports=["out/{target}.csv"])
        )
    with pytest.raises(ConfigError, match=r"brand-a: --report.*\n.*brand-b: --report"):
        linksync.apply_all(
            config=config, env=good_env(), outputs=linksync.Outputs(reports=["out/{target}.txt"])
        )
    assert not Path("a.db").exists() and not Path("b.db").exists()  # no request was made


def test_two_targets_on_one_workspace_are_refused(config: Path) -> None:
    text = config.read_text(encoding="utf-8").replace("sandbox_db: b.db", "sandbox_db: a.db")
    config.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match="targets brand-a and brand-b are one workspace"):
        linksync.apply_all(config=config, env=good_env())


class Watch:
    """A progress sink that keeps its target's rate-limiter wait (``WaitFn``)."""

    def __init__(self, on_failed: threading.Event | None = None) -> None:
        self.wait: WaitFn = lambda: 0.0
        self.on_failed = on_failed
        self.finished_with: dict[str, float] = {}

    def start(self, total: int, wait: WaitFn) -> None:
        self.wait = wait

    def advance(self, result: RowResult) -> None:
        if result.failed and self.on_failed is not None:
            self.on_failed.set()

    def finish(self) -> None:
        pass


class AfterOther(RunEvents):
    """Confirms its plan only once the other target's row failed."""

    def __init__(self, other_failed: threading.Event) -> None:
        self.other_failed = other_failed

    def confirm(self, plan: Plan) -> bool:
        return self.other_failed.wait(30)


def rate_limited_writes(app: Any) -> Any:
    """Another client has used up this key's window: every create gets 429 with a
    Retry-After of 30 s; reads go through."""

    async def front(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if (
            scope["type"] == "http"
            and scope["method"] == "POST"
            and scope["path"].endswith("/links")
        ):
            body = json.dumps(
                {"error": {"code": 42901, "constant": "RATE_LIMITED", "message": "slow down",
                           "requestId": "req_busy"}}
            ).encode()  # fmt: skip
            headers = [(b"content-type", b"application/json"), (b"retry-after", b"30")]
            await send({"type": "http.response.start", "status": 429, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await app(scope, receive, send)

    return front


def test_one_keys_429s_do_not_hold_the_other_target(tmp_path: Path) -> None:
    """brand-a's key is out of requests (its service answers 429, Retry-After 30 s):
    brand-a's limiter then holds its every request for 30 s. brand-b writes only after
    that, and its own limiter holds nothing: one limiter per key, none shared."""
    (tmp_path / "links").mkdir()
    (tmp_path / "links/a.csv").write_text("slug,url\na1,https://example.com/a1\n", "utf-8")
    (tmp_path / "links/b.csv").write_text(
        "slug,url\n" + "".join(f"b{i},https://example.com/b{i}\n" for i in range(5)), "utf-8"
    )
    a_failed = threading.Event()
    watches = {"brand-a": Watch(a_failed), "brand-b": Watch()}
    seen: dict[str, float] = {}

    def finish_b() -> None:  # read both limiters the moment brand-b is done
        seen.update(a=watches["brand-a"].wait(), b=watches["brand-b"].wait())

    watches["brand-b"].finish = finish_b  # type: ignore[method-assign]
    settings = SandboxSettings(rate_limit=1_000_000)
    with serve_in_thread(settings, ":memory:", wrap=rate_limited_writes) as busy:
        config = tmp_path / "linksync.yaml"
        config.write_text(
            "targets:\n"
            f"  brand-a:\n    base_url: {busy.base_url}\n    api_key_env: A_KEY\n"
            "    files: [links/a.csv]\n    retry: {rate_limited_retries: 0}\n"
            "  brand-b:\n    sandbox: true\n    sandbox_db: b.db\n    files: [links/b.csv]\n",
            encoding="utf-8",
        )
        every = linksync.apply_all(
            config=config,
            env={"A_KEY": DEFAULT_FULL_KEY},
            cwd=tmp_path,
            hooks=lambda name: linksync.Hooks(
                events=AfterOther(a_failed) if name == "brand-b" else RunEvents(),
                on_progress=watches[name],
            ),
        )
    a, b = every["brand-a"], every["brand-b"]
    assert a.results is not None and b.results is not None
    assert [r.error_constant for r in a.results.failed] == ["RATE_LIMITED"]
    assert a.results.info.rate_limit_waits == 1
    assert seen["a"] > 20  # brand-a's limiter holds its requests for Retry-After...
    assert seen["b"] == 0.0  # ...while brand-b's holds nothing,
    assert b.results.info.rate_limit_waits == 0  # and brand-b never met a 429
    assert b.status == "ok" and b.writes.describe() == "5 created"
    assert every.exit_code == 1


@pytest.mark.parametrize(
    ("outcomes", "code"),
    [
        ([(0, True), (0, False)], 0),
        ([(0, False), (3, False)], 3),
        ([(1, True), (3, False)], 1),
        ([(2, False), (0, False)], 2),  # nothing written anywhere: 2 holds
        ([(2, False), (1, False)], 2),
        ([(2, False), (0, True)], 1),  # another target wrote: never "nothing done"
        ([(2, False), (1, True)], 1),
        ([(1, True), (130, True)], 130),
        ([(2, False), (130, False)], 130),
    ],
)
def test_the_combined_exit_code(outcomes: list[tuple[int, bool]], code: int) -> None:
    assert combined_exit_code(outcomes) == code


def test_paths_named_per_target() -> None:
    assert for_target("out/{target}/results.csv", "b") == Path("out/b/results.csv")
    assert for_target("out/results.csv", "brand-a") == Path("out/results-brand-a.csv")
