"""JSON and text logs: one object per line, the four run events, secrets redacted."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from linksync.logs import (
    get_logger,
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


@pytest.fixture
def secrets() -> Secrets:
    return Secrets([KEY])


@pytest.fixture
def stream() -> Iterator[io.StringIO]:
    buf = io.StringIO()
    yield buf
    # Leave the linksync logger as a fresh process has it.
    logger = logging.getLogger("linksync")
    for handler in list(logger.handlers):
        if not isinstance(handler, logging.NullHandler):  # the package's own, at import
            logger.removeHandler(handler)
    logger.propagate = True
    logger.setLevel(logging.NOTSET)


def _lines(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_json_run_events_one_object_per_line(stream: io.StringIO, secrets: Secrets) -> None:
    logger = setup_logging("json", "info", stream, secrets=secrets)
    log_run_start(logger, target="sandbox", mode="upsert", dry_run=False, sources=["a.yaml"])
    log_plan_counts(logger, {"update": 2, "create": 3, "unchanged": 5})
    failed = RowResult(
        action=Action.CREATE,
        status=Status.FAILED,
        source="links.csv",
        row=7,
        domain="lnk.test",
        slug="spring",
        http_status=409,
        error_constant="SLUG_EXISTS",
        error_code=40901,
        message="taken",
        request_id="req-1",
        attempts=1,
    )
    log_row_failed(logger, failed, repeat=True)
    log_run_end(logger, counts={"ok": 9, "failed": 1}, duration_s=1.23456, exit_code=1, requests=12)

    lines = _lines(stream)
    assert [line["event"] for line in lines] == [
        "run_start",
        "plan_counts",
        "row_failed",
        "run_end",
    ]
    for line in lines:
        assert list(line)[:3] == ["ts", "level", "event"]
        assert line["ts"].endswith("Z")
    assert lines[0]["sources"] == ["a.yaml"] and lines[0]["dry_run"] is False
    assert lines[1]["counts"] == {"create": 3, "unchanged": 5, "update": 2}
    assert lines[1]["total"] == 10
    row = lines[2]
    assert row["level"] == "warning"
    assert (row["slug"], row["row"], row["error_constant"], row["repeat"]) == (
        "spring",
        7,
        "SLUG_EXISTS",
        True,
    )
    assert lines[3]["duration_s"] == 1.235
    assert lines[3]["exit_code"] == 1
    assert lines[3]["counts"] == {"failed": 1, "ok": 9}


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_secret_is_redacted_everywhere(fmt: str, stream: io.StringIO, secrets: Secrets) -> None:
    logger = setup_logging(fmt, "debug", stream, secrets=secrets)  # type: ignore[arg-type]
    log_event(logger, "request", headers={"Authorization": f"Bearer {KEY}"}, key=KEY)
    logger.info("using key %s", KEY)
    try:
        raise RuntimeError(f"boom {KEY}")
    except RuntimeError:
        logger.exception("failed")
    out = stream.getvalue()
    assert KEY not in out
    assert "Bearer ***" in out
    assert "boom ***" in out


def test_secret_with_characters_json_escapes_is_redacted(stream: io.StringIO) -> None:
    odd = 'k"ey\\with/quote'
    logger = setup_logging("json", "info", stream, secrets=Secrets([odd]))
    log_event(logger, "x", value=f"prefix {odd} suffix", nested=[{"deep": odd}])
    line = _lines(stream)[0]
    assert line["value"] == "prefix *** suffix"
    assert line["nested"] == [{"deep": "***"}]
    assert odd not in stream.getvalue()
    assert json.dumps(odd)[1:-1] not in stream.getvalue()


def test_registry_replaces_longest_secret_first() -> None:
    reg = Secrets(["abc", "abcdef", ""])
    assert len(reg) == 2
    assert reg.redact("x abcdef y abc") == "x *** y ***"


def test_plain_log_calls_and_child_loggers(stream: io.StringIO, secrets: Secrets) -> None:
    setup_logging("json", logging.INFO, stream, secrets=secrets)
    child = get_logger("sync")
    child.info("hello %s", "world")
    child.debug("not shown")
    [line] = _lines(stream)
    assert line["event"] == "message"
    assert line["message"] == "hello world"
    assert line["logger"] == "linksync.sync"


def test_text_format_is_key_value(stream: io.StringIO, secrets: Secrets) -> None:
    logger = setup_logging("text", "INFO", stream, secrets=secrets)
    log_run_end(logger, counts={"ok": 2}, duration_s=0.5, exit_code=0)
    line = stream.getvalue().strip()
    assert " info run ended: 2 ok in 0.5 s, exit code 0 | event=run_end " in line
    assert 'counts={"ok": 2}' in line
    assert "duration_s=0.5" in line and "exit_code=0" in line


def test_setup_twice_does_not_duplicate_lines(stream: io.StringIO, secrets: Secrets) -> None:
    setup_logging("json", "info", io.StringIO(), secrets=secrets)
    logger = setup_logging("json", "info", stream, secrets=secrets)
    log_event(logger, "once")
    assert len(_lines(stream)) == 1


def test_fields_never_overwrite_the_envelope(stream: io.StringIO, secrets: Secrets) -> None:
    logger = setup_logging("json", "info", stream, secrets=secrets)
    log_event(logger, "real", level=logging.ERROR, ts="fake", event_count=1, level_name="x")
    [line] = _lines(stream)
    assert line["event"] == "real" and line["level"] == "error"
    assert line["field_ts"] == "fake"


def test_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown log format"):
        setup_logging("xml")  # type: ignore[arg-type]


def test_off_writes_nothing_and_can_be_switched_back(
    stream: io.StringIO, secrets: Secrets, capsys: pytest.CaptureFixture[str]
) -> None:
    logger = setup_logging("off")
    log_event(logger, "row_failed", level=logging.WARNING, slug="x")
    assert capsys.readouterr().err == ""
    logger = setup_logging("json", "info", stream, secrets=secrets)
    log_event(logger, "back")
    assert [line["event"] for line in _lines(stream)] == ["back"]
    # "off"'s handler was replaced, not kept beside the new one (the package's
    # NullHandler stays whatever ran before: count the others)
    assert [h for h in logger.handlers if not isinstance(h, logging.NullHandler)] == [
        logger.handlers[-1]
    ]


def test_a_nightly_drift_check_refused_by_the_service_ends_with_run_end(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """plan --detailed-exitcode --log-format json whose key the service refuses: after
    run_start, a run_end at level error with exit code 2 and the service's constant,
    then the error line; the key is in no line."""
    from click.testing import CliRunner

    from linksync.cli import cli

    monkeypatch.setenv("LINKSYNC_API_KEY", "revoked-key-0123456789")
    (workdir / "links.csv").write_text("url,slug\nhttps://example.com/a,a1\n", encoding="utf-8")
    args = ["plan", "links.csv", "--detailed-exitcode", "--log-format", "json"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    lines = [json.loads(line) for line in result.stderr.splitlines()]
    names = [e["event"] for e in lines]
    assert names.index("run_start") < names.index("run_end") < names.index("error")
    end = lines[names.index("run_end")]
    assert (end["level"], end["exit_code"], end["error_constant"]) == ("error", 2, "UNAUTHORIZED")
    assert "revoked-key-0123456789" not in result.stderr + result.output


def test_an_apply_the_key_stops_mid_run_logs_run_end_as_an_error(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A key that may not write (403 on the first create): the run ends with its
    summary, and its run_end says why it stopped, at level error, with the exit code."""
    from click.testing import CliRunner

    from linksync.cli import cli

    monkeypatch.setenv("LINKSYNC_API_KEY", "sandbox-read-only-key")
    rows = "url,slug\nhttps://example.com/a,a1\nhttps://example.com/b,b1\n"
    (workdir / "links.csv").write_text(rows, encoding="utf-8")
    args = ["apply", "links.csv", "--yes", "--log-format", "json", "--concurrency", "1"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    (end,) = [json.loads(x) for x in result.stderr.splitlines() if '"run_end"' in x]
    assert (end["level"], end["exit_code"], end["error_constant"]) == ("error", 2, "FORBIDDEN")
    assert end["counts"]["failed"] == 1 and end["counts"]["skipped"] == 1
