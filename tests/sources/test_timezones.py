"""Time zones: date-times written without a zone are wall-clock
times in ``--timezone`` (or the profile's ``timezone:``; UTC by default), in Excel
cells and serials, CSV and YAML text alike; ``Z`` and offsets are kept as written; a
time the zone skips is an error on its cell, one it repeats is read as the first with
a warning; plan and report rows show each expiry with its zone. Checked through the
CLI against the built-in sandbox (its state read back through the client)."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from click.testing import CliRunner, Result

from linksync.cli import cli
from linksync.config import resolve

NY = "America/New_York"


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def remote(workdir: Path) -> dict[str, Any]:
    """slug -> link in the built-in sandbox of ``workdir``."""
    settings = resolve(cwd=workdir, env={}, sandbox=True)

    async def go() -> dict[str, Any]:
        async with settings.open_client() as client:
            return {link.slug: link for link in await client.list_links()}

    return asyncio.run(go())


def apply(workdir: Path, source: Path, *args: str) -> tuple[int, dict[str, dict[str, Any]]]:
    result = run("apply", str(source), "--yes", "--no-progress", "--report", "r.json", *args)
    assert "Traceback" not in result.output
    report = workdir / "r.json"
    doc = json.loads(report.read_text()) if report.exists() else {"results": []}
    return result.exit_code, {r["slug"]: r for r in doc["results"]}


def csv_file(workdir: Path, rows: list[tuple[str, str]]) -> Path:
    path = workdir / "links.csv"
    lines = ["slug,url,expires"] + [f"{s},https://example.com/{s},{e}" for s, e in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_csv_naive_times_are_new_york_times(workdir: Path) -> None:
    path = csv_file(
        workdir,
        [
            ("iso", "2027-03-31 23:59"),
            ("dmy", "31/03/2027 23:59"),
            ("zulu", "2027-03-31T23:59:00Z"),
            ("offset", "2027-03-31T23:59:00+02:00"),
            ("day", "2027-07-04"),
        ],
    )
    code, rows = apply(workdir, path, "--timezone", NY, "--date-format", "dmy")
    assert code == 0
    links = remote(workdir)
    # 23:59 EDT (UTC-4) is 03:59 UTC the next day; midnight of a July day is 04:00 UTC.
    assert links["iso"].expires_at == "2027-04-01T03:59:00.000Z"
    assert links["dmy"].expires_at == "2027-04-01T03:59:00.000Z"
    assert links["zulu"].expires_at == "2027-03-31T23:59:00.000Z"  # kept as written
    assert links["offset"].expires_at == "2027-03-31T21:59:00.000Z"  # kept as written
    assert links["day"].expires_at == "2027-07-04T04:00:00.000Z"
    assert rows["iso"]["message"] == (
        "expires 2027-03-31 23:59 America/New_York = 2027-04-01T03:59:00.000Z"
    )
    # A time with its own zone is shown in the run's zone, naming the same instant.
    assert rows["zulu"]["message"] == (
        "expires 2027-03-31 19:59 America/New_York = 2027-03-31T23:59:00.000Z"
    )


def test_without_a_zone_times_are_utc_and_the_report_says_so(workdir: Path) -> None:
    path = csv_file(workdir, [("plain", "2027-03-31 23:59")])
    code, rows = apply(workdir, path)
    assert code == 0
    assert remote(workdir)["plain"].expires_at == "2027-03-31T23:59:00.000Z"
    assert rows["plain"]["message"] == "expires 2027-03-31 23:59 UTC = 2027-03-31T23:59:00.000Z"


def test_xlsx_dates_and_serials_are_read_in_the_zone(workdir: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Slug", "Destination URL", "Expiration"])
    ws.append(["cell", "https://example.com/cell", datetime(2027, 3, 31, 23, 59)])
    ws.append(["winter", "https://example.com/winter", datetime(2027, 1, 15, 12, 0)])
    ws.append(["serial", "https://example.com/serial", 46477.5])  # 2027-03-31 12:00
    ws.append(["text", "https://example.com/text", "2027-03-31T23:59:00Z"])
    path = workdir / "links.xlsx"
    wb.save(path)
    code, rows = apply(workdir, path, "--timezone", NY)
    assert code == 0
    links = remote(workdir)
    assert links["cell"].expires_at == "2027-04-01T03:59:00.000Z"  # EDT, UTC-4
    assert links["winter"].expires_at == "2027-01-15T17:00:00.000Z"  # EST, UTC-5
    assert links["serial"].expires_at == "2027-03-31T16:00:00.000Z"
    assert links["text"].expires_at == "2027-03-31T23:59:00.000Z"
    assert (
        "2027-03-31 23:59 America/New_York = 2027-04-01T03:59:00.000Z" in (rows["cell"]["message"])
    )


def test_plan_shows_the_zone(workdir: Path) -> None:
    path = csv_file(workdir, [("p", "2027-03-31 23:59")])
    result = run("plan", str(path), "--timezone", "Europe/Paris")
    assert result.exit_code == 0, result.output
    assert "2027-03-31 23:59 Europe/Paris = 2027-03-31T21:59:00.000Z" in result.output


def test_a_skipped_time_is_an_error_on_its_cell_and_a_repeated_one_a_warning(
    workdir: Path,
) -> None:
    # 2027-03-14 02:30 never happens in New York (02:00 -> 03:00); 2027-11-07 01:30
    # happens twice (EDT, then EST): the first is used.
    path = csv_file(workdir, [("gap", "2027-03-14 02:30"), ("fold", "2027-11-07 01:30")])
    checked = run("validate", str(path), "--timezone", NY, "--json")
    assert checked.exit_code == 1
    problems = {p["constant"]: p for p in json.loads(checked.output)["problems"]}
    gap = problems["INVALID_EXPIRY"]
    assert (gap["row"], gap["column"], gap["severity"]) == (2, "expires", "error")
    assert "2027-03-14 02:30 does not exist in America/New_York" in gap["message"]
    fold = problems["AMBIGUOUS_TIME"]
    assert (fold["row"], fold["column"], fold["severity"]) == (3, "expires", "warning")
    assert "2027-11-07T05:30:00.000Z" in fold["message"]
    code, rows = apply(workdir, path, "--timezone", NY)
    assert code == 1
    assert rows["gap"]["status"] == "invalid"
    assert set(remote(workdir)) == {"fold"}
    assert remote(workdir)["fold"].expires_at == "2027-11-07T05:30:00.000Z"


def test_unknown_zone_is_a_usage_error_before_anything_is_sent(workdir: Path) -> None:
    path = csv_file(workdir, [("x", "2027-03-31 23:59")])
    result = run("apply", str(path), "--yes", "--timezone", "Mars/Olympus_Mons")
    assert result.exit_code == 2
    assert "unknown time zone 'Mars/Olympus_Mons'" in result.output
    assert run("validate", str(path), "--timezone", "America").exit_code == 2
    assert remote(workdir) == {}


def test_profile_key_and_flag_over_it(workdir: Path) -> None:
    (workdir / "linksync.yaml").write_text(
        "profiles:\n  default:\n    timezone: Asia/Tokyo\n", encoding="utf-8"
    )
    path = csv_file(workdir, [("tokyo", "2027-03-31 23:59")])
    code, rows = apply(workdir, path)
    assert code == 0
    assert remote(workdir)["tokyo"].expires_at == "2027-03-31T14:59:00.000Z"
    assert "Asia/Tokyo" in rows["tokyo"]["message"]
    over = csv_file(workdir, [("utc", "2027-03-31 23:59")])
    assert apply(workdir, over, "--timezone", "UTC")[0] == 0
    assert remote(workdir)["utc"].expires_at == "2027-03-31T23:59:00.000Z"


def test_unknown_zone_in_a_profile_is_a_configuration_error(workdir: Path) -> None:
    (workdir / "linksync.yaml").write_text(
        "profiles:\n  default:\n    timezone: Nowhere/Land\n", encoding="utf-8"
    )
    path = csv_file(workdir, [("x", "2027-03-31 23:59")])
    result = run("plan", str(path))
    assert result.exit_code == 2 and "Nowhere/Land" in result.output


def test_yaml_strings_without_offset_get_the_zone(workdir: Path) -> None:
    path = workdir / "links.yaml"
    path.write_text(
        "links:\n"
        "  - {slug: naive, url: https://example.com/n, expiresAt: '2027-03-31 23:59'}\n"
        "  - {slug: zulu, url: https://example.com/z, expiresAt: '2027-03-31T23:59:00Z'}\n",
        encoding="utf-8",
    )
    code, _ = apply(workdir, path, "--timezone", NY)
    assert code == 0
    links = remote(workdir)
    assert links["naive"].expires_at == "2027-04-01T03:59:00.000Z"
    assert links["zulu"].expires_at == "2027-03-31T23:59:00.000Z"


@pytest.mark.parametrize("zone", ["UTC", "Etc/UTC"])
def test_utc_by_name_is_the_default(workdir: Path, zone: str) -> None:
    path = csv_file(workdir, [("u", "2027-03-31 23:59")])
    code, rows = apply(workdir, path, "--timezone", zone)
    assert code == 0
    assert remote(workdir)["u"].expires_at == "2027-03-31T23:59:00.000Z"
    assert rows["u"]["message"].startswith("expires 2027-03-31 23:59 UTC = ")


def test_annotated_copy_shows_each_expiry_with_its_zone(workdir: Path) -> None:
    path = csv_file(workdir, [("a", "2027-03-31 23:59"), ("none", "")])
    code, _ = apply(workdir, path, "--timezone", NY, "--annotate", "done.csv")
    assert code == 0
    lines = (workdir / "done.csv").read_text(encoding="utf-8").splitlines()
    assert lines[0].endswith("Short link,Status,Error,Expires")
    assert lines[1].endswith(
        ",created,,2027-03-31 23:59 America/New_York = 2027-04-01T03:59:00.000Z"
    )
    assert lines[2].endswith(",created,,")
