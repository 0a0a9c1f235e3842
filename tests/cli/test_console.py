"""Honest console output and clean refusals: text from files escaped for the terminal,
no credentials echoed, JSON-only stderr with --log-format json, clear usage errors for
a bad target or saved plan, the column of every row problem, reports in source order
that Excel opens with accents intact, and a domain removal that says what it deletes."""

from __future__ import annotations

import asyncio
import csv
import json
from pathlib import Path

import openpyxl
import pytest

from linksync.config import resolve
from support.cli_runs import Source, no_raw_controls, remote_links, run

pytestmark = pytest.mark.usefixtures("_umask")  # umask 022 for the files runs create

APPLY = ["apply", "links.csv", "--yes", "--no-progress"]


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://127.0.0.1:99999", "the port must be a number 1..65535"),
        ("https://api.example.com:0", "the port must be 1..65535"),
        ("https://api.example.com:http", "the port must be a number 1..65535"),
        ("ftp://files.example.com", "must be http(s)://host[:port][/path]"),
    ],
)
def test_bad_base_url_is_a_usage_error(
    url: str, expected: str, workdir: Path, source: Source
) -> None:
    result = run(*APPLY, "--base-url", url, "--report", "r.csv")
    assert result.exit_code == 2
    assert expected in result.stderr and "Traceback" not in result.output + result.stderr
    assert not (workdir / "r.csv").exists()
    assert source.untouched()


@pytest.mark.parametrize(
    "url",
    ["https://ops:hunter2-pw@api.example.com", "user:hunter2-pw@api.example.com"],
)
def test_base_url_with_credentials_is_refused_without_showing_them(
    url: str, workdir: Path, source: Source, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LINKSYNC_BASE_URL", url)
    monkeypatch.setenv("LINKSYNC_API_KEY", "k-123")
    for args in (APPLY, ["links", "list"], ["plan", "links.csv", "--log-format", "json"]):
        result = run(*args)
        assert result.exit_code == 2
        shown = result.output + result.stderr
        assert "must not carry a user name or password" in shown
        assert "hunter2" not in shown and "ops:" not in shown
    assert source.untouched()


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("this is not json", "is not a saved plan: not JSON"),
        ("[1, 2, 3]", "expected a JSON object with a list of changes"),
        ('{"changes": 5}', "expected a JSON object with a list of changes"),
        ('{"changes": [{"action": "explode"}]}', "is not a saved plan of this linksync"),
        ('{"changes": [{"action": "create"}]}', "is not a saved plan of this linksync"),
        (b"\xff\xfe\x00garbage", "not UTF-8 text"),
    ],
)
def test_bad_saved_plan_is_a_usage_error(
    content: str | bytes, expected: str, workdir: Path, source: Source
) -> None:
    plan = workdir / "plan.json"
    if isinstance(content, bytes):
        plan.write_bytes(content)
    else:
        plan.write_text(content, encoding="utf-8")
    result = run("apply", "--plan", "plan.json", "links.csv", "--yes")
    assert result.exit_code == 2
    assert expected in result.stderr and "Traceback" not in result.stderr
    assert remote_links(workdir) == []
    assert source.untouched()


def test_journal_folder_with_unrelated_files(workdir: Path, source: Source) -> None:
    logs = workdir / "logs"
    logs.mkdir()
    (logs / "zz-data.jsonl").write_text('[1, 2]\n"text"\n{"no": "journal"}\n')
    (logs / "zz-binary.jsonl").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    (logs / "zz-folder.jsonl").mkdir()
    for _ in range(2):
        result = run(*APPLY, "--journal", "logs/run.jsonl")
        assert result.exit_code == 0, result.output
    assert len(remote_links(workdir)) == 3
    assert (logs / "zz-data.jsonl").read_text().startswith("[1, 2]")
    assert source.untouched()


def test_json_log_format_keeps_stderr_json_even_for_errors(workdir: Path, source: Source) -> None:
    ok = run("apply", "links.csv", "--yes", "--log-format", "json")  # with progress
    failed = run(*APPLY, "--log-format", "json", "--report", "links.csv")
    for result in (ok, failed):
        lines = result.stderr.splitlines()
        assert lines and all(isinstance(json.loads(line), dict) for line in lines)
    assert ok.exit_code == 0
    events = [json.loads(line) for line in ok.stderr.splitlines()]
    progress = [e for e in events if e["event"] == "progress"]
    assert progress[-1]["applied"] == 3 and progress[-1]["total"] == 3
    plan = next(e["message"] for e in events if e.get("message", "").startswith("Plan: 3"))
    assert "create    lnk.test/alpha -> https://example.com/alpha  [links.csv, row 2]" in plan
    assert failed.exit_code == 2
    error = [json.loads(line) for line in failed.stderr.splitlines()][-1]
    assert error["event"] == "error" and "would replace the source" in error["message"]
    assert source.untouched()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--bogus", "--log-format", "json"], "apply: No such option '--bogus'"),
        (["--log-format=json", "--concurrency", "abc"], "Invalid value for '--concurrency'"),
    ],
)
def test_json_log_format_keeps_stderr_json_for_a_usage_error(
    args: list[str], expected: str, workdir: Path, source: Source
) -> None:
    # click finds these before the command runs; with --log-format json anywhere on the
    # line, stderr is still one JSON line, and nothing is done (exit 2).
    result = run(*APPLY, *args)
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    event = json.loads(line)
    assert event["event"] == "error" and expected in event["message"]
    assert source.untouched()
    plain = run(*APPLY, "--bogus")
    assert plain.exit_code == 2 and "Usage: " in plain.stderr  # text without the flag


def test_text_from_files_reaches_the_terminal_escaped(workdir: Path) -> None:
    evil = "\x1b]0;pwned\x07\x1b[2J"
    (workdir / "links.csv").write_text(
        "slug,url,description\n"
        f"ok-row,https://example.com/a,{evil} caf\u00e9\n"
        f"bad-row,https://example.com/\u202egnp.exe,\x00nul\n",
        encoding="utf-8",
    )
    source = Source.of(workdir / "links.csv")
    book = openpyxl.Workbook()
    book.active.title = "Spring\u202e2026"
    book.active.append(["slug", "url"])
    book.active.append(["x\u2066y", "https://example.com/x"])
    book.save(workdir / "sheet.xlsx")
    outputs = [
        run("validate", "links.csv", "sheet.xlsx"),
        run("plan", "links.csv", "sheet.xlsx"),
        run("plan", "links.csv", "--format", "json"),
        run("apply", "links.csv", "sheet.xlsx", "--yes", "--no-progress"),
    ]
    for result in outputs:
        shown = result.stdout + result.stderr
        assert no_raw_controls(shown), repr(shown)
    plan = outputs[1].stdout
    assert "sheet Spring\\u202e2026" in plan
    assert "https://example.com/\\u202egnp.exe" in plan
    # JSON stays JSON: the escapes read back to the very same values.
    data = json.loads(outputs[2].stdout)
    descriptions = [c["payload"].get("description") for c in data["changes"] if c["payload"]]
    assert f"{evil} caf\u00e9" in descriptions
    assert source.untouched()


def test_bomless_utf16_csv_prints_no_raw_nul(workdir: Path) -> None:
    text = "slug,url\nutf16-a,https://example.com/caf\u00e9\n"
    (workdir / "u16.csv").write_bytes(text.encode("utf-16-le"))
    source = Source.of(workdir / "u16.csv")
    for args in (["validate", "u16.csv"], ["plan", "u16.csv"]):
        result = run(*args)
        assert no_raw_controls(result.stdout + result.stderr)
        assert result.exit_code in (0, 1, 2)
    assert source.untouched()


def test_row_problems_name_their_column_in_reports_and_console(
    workdir: Path,
) -> None:
    (workdir / "links.csv").write_text(
        "Slug,Destination URL\nfine,https://example.com/fine\nbroken,ftp://example.com/x\n",
        encoding="utf-8",
    )
    result = run(*APPLY, "--report", "r.csv", "--report", "r.json")
    assert result.exit_code == 1
    assert 'column "Destination URL": ' in result.stderr  # the plan on the console
    with open(workdir / "r.csv", encoding="utf-8-sig", newline="") as f:
        broken = next(r for r in csv.DictReader(f) if r["slug"] == "broken")
    assert broken["message"].startswith('column "Destination URL": ')
    rows = json.loads((workdir / "r.json").read_text())["results"]
    assert rows[1]["message"] == broken["message"]


def test_csv_report_opens_in_excel_with_accents(workdir: Path, source: Source) -> None:
    assert run(*APPLY, "--report", "r.csv").exit_code == 0
    raw = (workdir / "r.csv").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # UTF-8 byte order mark: Excel reads UTF-8
    assert "https://example.com/no-slug" in raw.decode("utf-8-sig")
    assert source.untouched()


def test_domain_removal_says_how_many_links_it_deletes(workdir: Path) -> None:
    settings = resolve(cwd=workdir, env={}, sandbox=True)

    async def seed() -> str:
        async with settings.open_client() as client:
            domain = await client.create_domain("go.example.com", None, None)
            for n in range(3):
                await client.create_link(
                    {"url": f"https://e.com/{n}", "slug": f"d{n}", "domain": "go.example.com"}
                )
            await client.create_link({"url": "https://e.com/sys", "slug": "elsewhere"})
            return domain.id

    domain_id = asyncio.run(seed())
    declined = run("domains", "remove", domain_id, input="n\n")
    assert declined.exit_code == 1
    assert (
        f"Remove custom domain go.example.com (ID {domain_id})? "
        "This also deletes the 3 link(s) on it." in declined.stderr
    )
    assert len(remote_links(workdir)) == 4
    removed = run("domains", "remove", domain_id, "--yes")
    assert removed.exit_code == 0
    assert "removed custom domain go.example.com" in removed.stdout
    assert "and the 3 link(s) on it" in removed.stdout
    assert [ln.slug for ln in remote_links(workdir)] == ["elsewhere"]


def test_export_refuses_to_overwrite_without_force(workdir: Path, source: Source) -> None:
    assert run(*APPLY).exit_code == 0
    (workdir / "links.yaml").write_text("# my hand-written links\n", encoding="utf-8")
    kept = Source.of(workdir / "links.yaml")
    refused = run("export", "links.yaml")
    assert refused.exit_code == 2
    assert "links.yaml exist(s) already; use --force to overwrite it" in refused.stderr
    assert kept.untouched()
    forced = run("export", "links.yaml", "--force")
    assert forced.exit_code == 0, forced.stderr
    assert "https://example.com/alpha" in (workdir / "links.yaml").read_text()
    (workdir / "linksync.yaml").write_text("default_domain: lnk.test\n", encoding="utf-8")
    config = Source.of(workdir / "linksync.yaml")
    onto_config = run("export", "linksync.yaml", "--force")
    assert onto_config.exit_code == 2
    assert "export linksync.yaml would replace the config file" in onto_config.stderr
    assert config.untouched()
    assert source.untouched()
