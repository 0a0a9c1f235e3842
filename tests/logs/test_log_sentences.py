"""Each standard ``logging`` record of a run is a sentence with its facts (row, sheet,
constant, counts), whatever handler reads it; the JSON lines keep every key they had,
``event`` included, and secrets stay redacted in the sentence too."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from linksync.cli import cli
from linksync.logs import (
    log_event,
    log_plan_counts,
    log_row_failed,
    log_run_end,
    log_run_start,
    setup_logging,
)
from linksync.model import Action, RowResult, Status
from linksync.safe.secrets import Secrets

KEY = "lsk_live_9f8e7d6c5b4a"


class Collect(logging.Handler):
    """A plain standard-library handler, as an application embedding linksync adds."""

    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.fixture
def collected() -> Iterator[Collect]:
    logger = logging.getLogger("linksync.test-sentences")
    handler = Collect()
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


@pytest.fixture
def stream() -> Iterator[io.StringIO]:
    buf = io.StringIO()
    yield buf
    logger = logging.getLogger("linksync")
    for handler in list(logger.handlers):
        if not isinstance(handler, logging.NullHandler):
            logger.removeHandler(handler)
    logger.propagate = True
    logger.setLevel(logging.NOTSET)


def failed_row() -> RowResult:
    return RowResult(
        action=Action.CREATE,
        status=Status.FAILED,
        source="campaign.xlsx",
        sheet="Links",
        row=12,
        domain="lnk.test",
        slug="spring",
        http_status=409,
        error_constant="SLUG_EXISTS",
        message="the slug is taken",
        attempts=1,
    )


def test_a_standard_handler_reads_sentences(collected: Collect) -> None:
    logger = logging.getLogger("linksync.test-sentences")
    log_run_start(
        logger,
        target="http://127.0.0.1:8443",
        mode="mirror",
        dry_run=True,
        sources=["a.yaml", "b.yaml", "c.yaml"],
    )
    log_plan_counts(logger, {"unchanged": 10, "update": 1, "create": 3, "delete": 0})
    log_row_failed(logger, failed_row())
    invalid = RowResult(
        Action.INVALID,
        Status.INVALID,
        source="links/docs.yaml",
        row=9,
        error_constant="INVALID_URL",
        message="'htp://x' is not a URL",
    )
    log_row_failed(logger, invalid, repeat=True)
    log_run_end(logger, counts={"ok": 9, "failed": 1}, duration_s=1.23456, exit_code=1, requests=12)
    assert collected.messages == [
        "run started: plan of 3 sources (a.yaml, b.yaml, c.yaml) against "
        "http://127.0.0.1:8443, mode mirror",
        "plan: 3 create, 1 update, 10 unchanged",
        "row 12 of campaign.xlsx (sheet Links) failed: SLUG_EXISTS: the slug is taken "
        "(create lnk.test/spring, HTTP 409)",
        "line 9 of links/docs.yaml is invalid: INVALID_URL: 'htp://x' is not a URL; "
        "it failed in the last run too",
        "run ended: 9 ok, 1 failed in 1.235 s, exit code 1, 12 requests",
    ]


def test_a_delete_and_an_event_without_a_sentence_of_its_own(collected: Collect) -> None:
    logger = logging.getLogger("linksync.test-sentences")
    gone = RowResult(Action.DELETE, Status.FAILED, domain="lnk.test", slug="old",
                     error_constant="LINK_NOT_FOUND")  # fmt: skip
    log_row_failed(logger, gone)
    log_run_start(logger, target="sandbox", mode="upsert", dry_run=False, sources=["one.csv"],
                  run_id="20260301-1")  # fmt: skip
    log_plan_counts(logger, {})
    log_event(logger, "cache_cleared", files=3, folder=None)
    assert collected.messages == [
        "the delete of lnk.test/old failed: LINK_NOT_FOUND",
        "run started: apply of one.csv against sandbox, mode upsert, run 20260301-1",
        "plan: no rows",
        "cache cleared: files 3",
    ]


def test_json_lines_keep_their_keys_and_gain_the_sentence(
    stream: io.StringIO,
) -> None:
    logger = setup_logging("json", "info", stream, secrets=Secrets([KEY]))
    log_row_failed(logger, failed_row())
    [line] = [json.loads(text) for text in stream.getvalue().splitlines()]
    assert list(line)[:5] == ["ts", "level", "event", "logger", "message"]
    assert line["event"] == "row_failed" and line["level"] == "warning"
    assert line["message"].startswith("row 12 of campaign.xlsx (sheet Links) failed: SLUG_EXISTS")
    for key in ("source", "sheet", "row", "domain", "slug", "action", "status",
                "http_status", "error_constant", "error_code", "request_id", "attempts",
                "repeat"):  # fmt: skip
        assert key in line, key
    assert line["field_message"] == "the slug is taken"  # the row's own message, as before
    assert (line["row"], line["error_constant"]) == (12, "SLUG_EXISTS")


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_a_secret_in_a_fact_is_redacted_in_the_sentence(fmt: str, stream: io.StringIO) -> None:
    logger = setup_logging(fmt, "info", stream, secrets=Secrets([KEY]))  # type: ignore[arg-type]
    row = RowResult(Action.UPDATE, Status.FAILED, source="x.csv", row=3,
                    error_constant="UNAUTHORIZED", message=f"key {KEY} refused")  # fmt: skip
    log_row_failed(logger, row)
    out = stream.getvalue()
    assert KEY not in out
    assert "row 3 of x.csv failed: UNAUTHORIZED: key *** refused" in out


def test_text_lines_are_the_sentence_then_the_fields(stream: io.StringIO) -> None:
    logger = setup_logging("text", "info", stream)
    log_run_end(logger, counts={"ok": 2}, duration_s=0.5, exit_code=0)
    line = stream.getvalue().strip()
    head, _, fields = line.partition(" | ")
    assert head.endswith(" info run ended: 2 ok in 0.5 s, exit code 0")
    assert fields.startswith("event=run_end ")
    assert 'counts={"ok": 2}' in fields and "exit_code=0" in fields


def _events(err: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in err.splitlines() if line.startswith("{")]


def test_a_real_apply_logs_sentences(workdir: Path) -> None:
    (workdir / "links.csv").write_text(
        "slug,url\nspring,https://shop.example.com/spring\nbad slug!,https://x.example.com\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(
        cli, ["apply", "links.csv", "--yes", "--log-format", "json"], catch_exceptions=False
    )
    assert result.exit_code == 1, result.output
    lines = {line["event"]: line for line in _events(result.stderr)}
    start, end = lines["run_start"], lines["run_end"]
    assert start["message"] == (
        f"run started: apply of links.csv against {start['target']}, mode upsert, "
        f"run {start['run_id']}"
    )
    assert lines["plan_counts"]["message"] == "plan: 1 create, 1 invalid"
    assert lines["row_failed"]["message"].startswith(
        "row 3 of links.csv is invalid: INVALID_SLUG: column \"slug\": 'bad slug!' is not"
    )
    assert lines["row_failed"]["message"].endswith("(lnk.test/bad slug!)")
    assert end["message"] == (
        f"run ended: 1 ok, 1 invalid in {end['duration_s']} s, exit code 1, "
        f"{end['requests']} requests"
    )


def test_setup_turns_on_a_logger_another_configuration_turned_off(stream: io.StringIO) -> None:
    """``logging.config.dictConfig`` (a host application's, or a tool's run in the same
    process) disables every logger it does not name; asking linksync to log turns its
    loggers back on."""
    child = logging.getLogger("linksync.sync")
    parent = logging.getLogger("linksync")
    try:
        parent.disabled = child.disabled = True  # what dictConfig leaves
        setup_logging("json", "info", stream)
        log_plan_counts(parent, {"create": 1})
        child.info("hello")
    finally:
        parent.disabled = child.disabled = False
    said = [json.loads(line)["message"] for line in stream.getvalue().splitlines()]
    assert said == ["plan: 1 create", "hello"]
