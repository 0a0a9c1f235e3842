from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from linksync.model import Action, RowResult, RunInfo, Status
from linksync.report import ReportOptions, open_writer, report_row

from .conftest import make_info, write_reports


def test_json_round_trip(tmp_path: Path, results: list[RowResult], info: RunInfo) -> None:
    path = tmp_path / "out.json"
    writer = open_writer(path)
    for r in results:
        writer.write(r)
    writer.close(info)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert list(doc) == ["run", "summary", "notes", "refused_reason", "results"]
    assert doc["run"] == info.to_dict()
    assert doc["results"] == [report_row(r) for r in results]
    summary = doc["summary"]
    assert summary["total"] == len(results)
    assert summary["by_status"] == {"ok": 3, "failed": 2, "skipped": 1, "invalid": 1}
    assert summary["by_action"]["create"] == 3
    assert summary["by_action_status"]["create"] == {"ok": 1, "failed": 2}
    assert [e["constant"] for e in summary["errors"]] == [
        "INVALID_URL",
        "MISSING_URL",
        "NOT_ATTEMPTED",
        "SLUG_EXISTS",
    ]


def test_json_rows_are_written_as_json_dumps_writes_them(tmp_path: Path, info: RunInfo) -> None:
    # Each row on its own line, its text as written (not escaped), as json.dumps makes it.
    rows = [
        RowResult(
            Action.CREATE, Status.FAILED, source="caf\u00e9.csv", sheet="\u00c9t\u00e9", row=3,
            slug="caf\u00e9", url='https://e.com/?q="\u2603"\\x',
            message="tab\there\u2028\U0001f600",
            changed_fields=("url", "tags"), http_status=409, attempts=2,
        ),
        RowResult(Action.UNCHANGED, Status.OK, row=4, slug="plain"),
    ]  # fmt: skip
    path = tmp_path / "out.json"
    writer = open_writer(path)
    for r in rows:
        writer.write(r)
    writer.close(info)
    text = path.read_text(encoding="utf-8")
    lines = [json.dumps(report_row(r), ensure_ascii=False) for r in rows]
    assert '  "results": [\n    ' + ",\n    ".join(lines) + "\n  ]\n}\n" in text
    assert "caf\u00e9" in text and "\\u00e9" not in text


def test_json_with_no_rows_is_valid(tmp_path: Path, info: RunInfo) -> None:
    path = tmp_path / "empty.json"
    writer = open_writer(path)
    writer.close(info)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["results"] == []
    assert doc["summary"]["total"] == 0


def test_json_keeps_no_credentials(tmp_path: Path) -> None:
    secret = "sk_live_zzz"
    info = make_info(target=f"https://user:{secret}@api.example.com/v1?key={secret}")
    r = RowResult(Action.CREATE, Status.FAILED, message=f"echo {secret}")
    path = tmp_path / "out.json"
    write_reports([path], [r], info, options=ReportOptions(secrets=(secret,)), notes=[secret])
    text = path.read_text(encoding="utf-8")
    assert secret not in text
    assert json.loads(text)["run"]["target"] == "https://api.example.com/v1"


def test_junit_parses_and_counts(tmp_path: Path, results: list[RowResult], info: RunInfo) -> None:
    path = tmp_path / "junit.xml"
    write_reports([path], results, info, refused_reason="40% deletes > 10%")
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    suite = root.find("testsuite")
    assert suite is not None
    assert suite.get("tests") == str(len(results))
    assert suite.get("failures") == "3"  # 2 failed + 1 invalid
    assert suite.get("skipped") == "1"
    cases = suite.findall("testcase")
    assert len(cases) == len(results)
    assert cases[0].get("classname") == "campaign.xlsx/Spring"
    assert cases[0].get("name") == "row 3 spring-sale"
    assert cases[0].find("failure") is None
    failure = cases[2].find("failure")
    assert failure is not None
    assert failure.get("type") == "INVALID_URL"
    assert failure.get("message") == ("INVALID_URL: Destination URL malformed | line one\nline two")
    assert "http_status: 400" in (failure.text or "")
    assert cases[3].find("failure") is not None  # invalid row
    assert cases[5].get("classname") == "remote/go.example.com"
    skipped = cases[5].find("skipped")
    assert skipped is not None
    assert skipped.get("message") == "NOT_ATTEMPTED: \tstopped after FORBIDDEN\ufffd"
    assert cases[6].get("classname") == "links/b.yaml"
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["note"] == "This plan would be refused: 40% deletes > 10%"
    assert sum(1 for c in cases if c.find("failure") is not None) == 3


def test_junit_escapes_markup_and_control_characters(tmp_path: Path, info: RunInfo) -> None:
    nasty = 'a<b>&"c"\x00\x1b[31m]]>'
    r = RowResult(
        Action.CREATE, Status.FAILED, slug=nasty, error_constant="INVALID_SLUG", message=nasty
    )
    path = tmp_path / "junit.xml"
    write_reports([path], [r], info)
    case = ET.parse(path).getroot().find("testsuite/testcase")
    assert case is not None
    assert case.get("name") == 'a<b>&"c"\ufffd\ufffd[31m]]>'
    failure = case.find("failure")
    assert failure is not None
    assert "a<b>&" in (failure.get("message") or "")
