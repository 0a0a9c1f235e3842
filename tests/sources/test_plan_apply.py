"""The same problems through plan and apply against the built-in sandbox (in-process):
a bad row is an invalid row of the plan and the report, the good rows are created,
a file-level error stops apply before any request, and the source is never touched."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hostile_inputs import GOOD, digest, remote, run, xlsx

import linksync
from linksync.errors import SourceError
from linksync.model import Status


def _apply(workdir: Path, source: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    before = digest(source)
    result = run("apply", str(source), "--yes", "--no-progress", "--report", "out/r.json", *args)
    assert digest(source) == before, "the source file was changed"
    assert "Traceback" not in result.output
    report = workdir / "out/r.json"
    doc = json.loads(report.read_text()) if report.exists() else {"results": []}
    return result.exit_code, doc, result.output


def _row(doc: dict[str, Any], row: int) -> dict[str, Any]:
    return next(r for r in doc["results"] if r["row"] == row)


def test_na_slug_is_not_created_with_a_random_slug(workdir: Path) -> None:
    def build(ws: Any) -> None:
        ws.append(["slug", "url"])
        ws.append(list(GOOD))
        ws.append(["#N/A", "https://example.com/na"])
        ws["A3"].data_type = "e"

    path = workdir / "na.xlsx"
    path.write_bytes(xlsx(build))
    code, doc, _ = _apply(workdir, path)
    assert code == 1
    bad = _row(doc, 3)
    assert bad["status"] == "invalid" and "#N/A" in bad["message"]
    assert bad["message"].startswith('column "slug": ')
    assert list(remote(workdir)) == [GOOD[0]]


@pytest.mark.parametrize(
    "text,words",
    [
        ("links: 5\n", "links: must be a list"),
        (
            "defaults: [x]\nlinks:\n  - {slug: a, url: https://e.com/a}\n",
            "defaults: must be a mapping",
        ),
    ],
    ids=["links-5", "defaults-list"],
)
def test_wrong_yaml_structure_is_the_same_error_everywhere(
    workdir: Path, text: str, words: str
) -> None:
    path = workdir / "links.yaml"
    path.write_text(text, encoding="utf-8")
    assert run("validate", str(path)).exit_code == 1
    planned = run("plan", str(path))
    assert planned.exit_code == 1 and words in planned.output
    code, _, output = _apply(workdir, path)
    assert code == 1 and words in output and "nothing applied" in output
    assert remote(workdir) == {}
    with pytest.raises(SourceError, match="nothing applied"):
        linksync.apply([str(path)], outputs=linksync.Outputs(journal=False))
    assert remote(workdir) == {}


def test_ragged_and_unclosed_rows_with_good_rows_around(workdir: Path) -> None:
    text = (
        "slug,url,description\n"
        f"{GOOD[0]},{GOOD[1]},fine\n"
        "rag,https://example.com/rag,Sale, 50% off\n"
        "good-bravo,https://example.com/bravo,fine\n"
        'open,"https://example.com/open,d\n'
        "lost,https://example.com/lost,d\n"
    )
    path = workdir / "mess.csv"
    path.write_text(text, encoding="utf-8")
    planned = run("plan", str(path))
    assert planned.exit_code == 1
    assert "belong(s) to no column" in planned.output and "never closes" in planned.output
    code, doc, _ = _apply(workdir, path)
    assert code == 1
    assert _row(doc, 3)["status"] == "invalid" and _row(doc, 5)["status"] == "invalid"
    # The report names the column, as validate does.
    assert _row(doc, 3)["message"].startswith('column "D (no header)": ')
    assert _row(doc, 5)["message"].startswith('column "url": ')
    # A saved plan keeps the column too.
    assert run("plan", str(path), "--out", "plan.json").exit_code == 1
    saved = run("apply", "--plan", "plan.json", "--yes", "--no-progress", "--report", "out/s.json")
    rows = json.loads((workdir / "out/s.json").read_text())["results"]
    rag = next(r for r in rows if r["row"] == 3)
    assert saved.exit_code == 1 and rag["message"].startswith('column "D (no header)": ')
    assert sorted(remote(workdir)) == [GOOD[0], "good-bravo"]


def test_a_lone_carriage_return_does_not_move_a_ragged_row_onto_another(workdir: Path) -> None:
    # A cell holding a carriage return alone (pasted from an old Mac file) ends the row
    # there, for the readers as for the csv module: the ragged row after it is named on
    # its own row and not created without its extra value.
    text = (
        "slug,url,description\n"
        f"{GOOD[0]},{GOOD[1]},x\n"
        "cr,https://example.com/cr,a\rb\n"
        "rag,https://example.com/rag,Sale, 50% off\n"
        "good-bravo,https://example.com/bravo,fine\n"
    )
    path = workdir / "cr.csv"
    path.write_bytes(text.encode())
    code, doc, _ = _apply(workdir, path)
    assert code == 1
    assert _row(doc, 4)["slug"] == "b" and _row(doc, 4)["error_constant"] == "MISSING_URL"
    rag = _row(doc, 5)
    assert rag["slug"] == "rag" and rag["status"] == "invalid"
    assert rag["message"].startswith('column "D (no header)": this row has 4 values')
    assert sorted(remote(workdir)) == sorted([GOOD[0], "cr", "good-bravo"])


def test_strict_turns_a_warning_into_an_invalid_row(workdir: Path) -> None:
    def build(ws: Any) -> None:
        ws.append(["slug", "url"])
        ws.append(list(GOOD))
        ws.append([7, "https://example.com/seven"])
        ws["A3"].number_format = "000"

    path = workdir / "pad.xlsx"
    path.write_bytes(xlsx(build))
    code, doc, _ = _apply(workdir, path, "--strict")
    assert code == 1 and _row(doc, 3)["status"] == "invalid"
    assert list(remote(workdir)) == [GOOD[0]]
    planned = run("plan", str(path))
    assert planned.exit_code == 0 and "shown as 007" in planned.output
    code, _, _ = _apply(workdir, path)
    assert code == 0 and sorted(remote(workdir)) == ["007", GOOD[0]]


def test_map_date_format_and_empty_values_on_apply(workdir: Path) -> None:
    text = "Kürzel;Ziel;Ablauf;Notiz\nde-1;https://example.de/1;31.12.2030;N/A\nde-2;https://example.de/2;-;Hallo\n"
    path = workdir / "de.csv"
    path.write_text(text, encoding="utf-8")
    assert run("plan", str(path)).exit_code == 1  # no URL column known
    args = ("--map", "Kürzel=slug", "--map", "Ziel=url", "--map", "Ablauf=expires_at")
    args += ("--map", "Notiz=description", "--date-format", "dmy")
    planned = run("plan", str(path), *args)
    assert planned.exit_code == 1 and "placeholder" in planned.output
    code, _, output = _apply(workdir, path, *args, "--empty-value", "N/A", "--empty-value", "-")
    assert code == 0, output
    links = remote(workdir)
    assert links["de-1"].expires_at == "2030-12-31T00:00:00.000Z"
    assert links["de-1"].description is None and links["de-2"].description == "Hallo"


def test_python_api_takes_the_same_options(workdir: Path) -> None:
    path = workdir / "api.csv"
    path.write_text(
        "Ziel,Kürzel,Ablauf\nhttps://example.com/a,api-a,31/12/2030\n", encoding="utf-8"
    )
    mapping = {"Ziel": "url", "Kürzel": "slug", "Ablauf": "expires_at"}
    plan = linksync.plan([str(path)], reading=linksync.Reading(mapping=mapping))
    assert plan.counts["invalid"] == 1
    plan = linksync.plan([str(path)], reading=linksync.Reading(mapping=mapping, date_format="dmy"))
    assert plan.counts["create"] == 1
    results = linksync.apply(
        [str(path)],
        reading=linksync.Reading(mapping=mapping, date_format="dmy"),
        outputs=linksync.Outputs(journal=False),
    )
    assert [r.status for r in results.rows] == [Status.OK]
    assert remote(workdir)["api-a"].expires_at == "2030-12-31T00:00:00.000Z"


def test_links_create_follows_the_date_rule_of_files(workdir: Path) -> None:
    bare = run(
        "links", "create", "https://example.com/d", "--slug", "dated", "--expires-at", "2030-12-31"
    )
    assert bare.exit_code == 0, bare.output
    assert remote(workdir)["dated"].expires_at == "2030-12-31T00:00:00.000Z"
    local = run(
        "links", "create", "https://example.com/e", "--slug", "local", "--expires-at", "31/12/2030"
    )
    assert local.exit_code == 2 and "not an ISO 8601 date-time" in local.output
    assert "local" not in remote(workdir)
