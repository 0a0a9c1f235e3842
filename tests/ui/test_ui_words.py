"""The page's advice names what the page offers, never a command-line flag: an
unreadable date points at “Dates in your file” (and choosing “Day first” there reads
it), placeholders at “Cells that mean empty”, an uncertain encoding at “Encoding of CSV
files”, columns at the Columns step. One advice table (``linksync.errors.advice``) and
one set of messages; the page's table maps each flag to its words, and a flag any
message of the library names must have an entry (so none ever shows on the page)."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from linksync.config import Settings, resolve
from linksync.errors.advice import ADVICE
from linksync.ui import UiState
from linksync.ui.fixes import fix_for
from linksync.ui.words import CONTROLS, page_words

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]+")
SRC = Path(__file__).resolve().parents[2] / "src" / "linksync"


async def check(client: httpx.AsyncClient, name: str, content: bytes, **choices: Any) -> Any:
    answer = await client.post("/api/uploads", params={"name": name}, content=content)
    assert answer.status_code == 201, answer.text
    checked = await client.post("/api/check", json=choices)
    assert checked.status_code == 200, checked.text
    return checked.json()


def no_flag(*texts: str) -> None:
    for text in texts:
        assert FLAG.search(text) is None, text


DATED = (
    b"Destination URL,Back-half,Expiry\n"
    b"https://shop.example.com/a,autumn-a,31/12/2030\n"
    b"https://shop.example.com/b,autumn-b,2030-12-31\n"
)


async def test_an_unreadable_date_points_at_the_pages_date_format(
    client: httpx.AsyncClient,
) -> None:
    answer = await check(client, "campaign.csv", DATED)
    (problem,) = answer["data"]["problems"]
    assert problem["constant"] == "INVALID_EXPIRY" and problem["row"] == 2
    assert (
        "is a day-first or month-first date: choose “Day first” or “Month first” at "
        "“Dates in your file” in the Options, or write it as `2030-12-31`"
    ) in problem["message"]
    no_flag(problem["message"], problem["fix"], answer["html"]["check"])
    page = (await client.get("/")).text
    assert '<label for="opt-date">Dates in your file</label>' in page
    assert ">Day first (31/12/2026)</option>" in page

    day_first = (await client.post("/api/check", json={"date_format": "dmy"})).json()["data"]
    assert day_first["problems"] == [] and day_first["counts"]["valid"] == 2
    plan = (await client.post("/api/plan", json={"date_format": "dmy"})).json()["data"]
    assert "--date-format dmy" in plan["command_line"]
    assert any("2030-12-31T00:00:00" in f for row in plan["rows"] for f in row["fields"])


async def test_a_date_pattern_and_a_wrong_one(client: httpx.AsyncClient) -> None:
    content = b"url,slug,expires\nhttps://shop.example.com/a,a,31 Dec 2030\n"
    first = await check(client, "links.csv", content)
    assert [p["constant"] for p in first["data"]["problems"]] == ["INVALID_EXPIRY"]
    patterned = await client.post("/api/check", json={"date_format": "%d %b %Y"})
    assert patterned.json()["data"]["problems"] == []
    wrong = await client.post("/api/check", json={"date_format": "day-month"})
    assert wrong.status_code == 400
    assert wrong.json()["error"].startswith("date format 'day-month': use dmy (31/12/2026)")


async def test_the_profiles_date_format_is_shown_and_not_repeated(tmp_path: Path) -> None:
    (tmp_path / "linksync.yaml").write_text("date_format: dmy\n", encoding="utf-8")
    from ui_support import make_state, page_client

    ui = make_state(resolve(cwd=tmp_path, env={}, sandbox=True), tmp_path)
    try:
        async with page_client(ui) as client:
            page = (await client.get("/")).text
            assert '<option value="dmy" selected>' in page
            answer = await check(client, "campaign.csv", DATED, date_format="dmy")
            assert answer["data"]["problems"] == []
            plan = (await client.post("/api/plan", json={"date_format": "dmy"})).json()
            assert "--date-format" not in plan["data"]["command_line"]  # the profile says it
            iso = (await client.post("/api/plan", json={"date_format": "iso"})).json()
            assert "--date-format iso" in iso["data"]["command_line"]
    finally:
        ui.uploads.close()


async def test_placeholders_encoding_and_columns_point_at_the_page(
    client: httpx.AsyncClient,
) -> None:
    content = (
        b"Destination URL,Back-half,Title,Approver\n"
        b"https://shop.example.com/a,a,N/A,Ana\n"
        b"https://shop.example.com/b,b,Boots,Ben\n"
    )
    answer = await check(client, "campaign.csv", content)
    by_constant = {p["constant"]: p for p in answer["data"]["problems"]}
    placeholder = by_constant["INVALID_FIELD"]
    assert "add 'N/A' to “Cells that mean empty” in the Options" in placeholder["message"]
    unknown = by_constant["UNKNOWN_COLUMN"]
    assert "choose what each holds in the Columns step" in unknown["message"]
    assert "choose what it holds in the Columns step" in unknown["fix"]
    for p in answer["data"]["problems"]:
        no_flag(p["message"], p["fix"])
    no_flag(answer["html"]["check"], answer["html"]["columns"])

    emptied = await client.post(
        "/api/check", json={"empty_values": "N/A, TBD", "mapping": {"Approver": "ignore"}}
    )
    assert emptied.json()["data"]["problems"] == []
    plan = (await client.post("/api/plan", json={"empty_values": "N/A, TBD"})).json()["data"]
    assert "--empty-value N/A --empty-value TBD" in plan["command_line"]


async def test_an_uncertain_encoding_points_at_the_pages_encoding(
    client: httpx.AsyncClient,
) -> None:
    # Two characters: as GB18030 促销 (promotion), as Big5 棻种; nothing tells them apart.
    content = "slug,url,title\nx,https://e.com/x,促销\n".encode("gb18030")
    answer = await check(client, "tags.csv", content)
    (problem,) = answer["data"]["problems"]
    assert problem["constant"] == "UNCERTAIN_ENCODING" and "too short to tell" in problem["message"]
    assert (
        "choose the one that reads right (e.g. gb18030) at “Encoding of CSV files” in the Options"
    ) in problem["message"]
    assert "name the file's encoding at “Encoding of CSV files” in the Options" in problem["fix"]
    no_flag(problem["message"], problem["fix"])
    chosen = (await client.post("/api/check", json={"encoding": "gb18030"})).json()["data"]
    assert chosen["problems"] == [] and chosen["counts"]["valid"] == 1
    plan = (await client.post("/api/plan", json={"encoding": "gb18030"})).json()["data"]
    assert "--encoding gb18030" in plan["command_line"]
    unknown = await client.post("/api/check", json={"encoding": "martian"})
    assert unknown.status_code == 400 and "unknown encoding 'martian'" in unknown.json()["error"]


async def test_utm_case_is_offered_with_the_teams_rules(tmp_path: Path) -> None:
    (tmp_path / "linksync.yaml").write_text("utm_rules:\n  lowercase: true\n", encoding="utf-8")
    from ui_support import make_state, page_client

    ui = make_state(resolve(cwd=tmp_path, env={}, sandbox=True), tmp_path)
    try:
        async with page_client(ui) as client:
            assert 'id="opt-utm-case"' in (await client.get("/")).text
            content = b"url,slug,utm_source\nhttps://shop.example.com/a,a,News\n"
            answer = await check(client, "utm.csv", content)
            (problem,) = answer["data"]["problems"]
            assert problem["constant"] == "UTM_CASE"
            assert "tick “Fix UTM case” in the Options" in problem["message"]
            assert "tick “Fix UTM case” in the Options" in problem["fix"]
            fixed = await client.post("/api/check", json={"fix_utm_case": True})
            (note,) = fixed.json()["data"]["problems"]
            assert note["severity"] == "warning" and "(“Fix UTM case” is ticked)" in note["message"]
    finally:
        ui.uploads.close()


async def test_a_warning_made_an_error_by_the_profile_says_so(tmp_path: Path) -> None:
    (tmp_path / "linksync.yaml").write_text("strict: true\n", encoding="utf-8")
    from ui_support import make_state, page_client

    ui = make_state(resolve(cwd=tmp_path, env={}, sandbox=True), tmp_path)
    try:
        async with page_client(ui) as client:
            content = b"url,slug,Approver\nhttps://shop.example.com/a,a,Ana\n"
            (problem,) = (await check(client, "links.csv", content))["data"]["problems"]
    finally:
        ui.uploads.close()
    assert problem["severity"] == "error"
    assert problem["message"].endswith(
        '"Approver" (choose what each holds in the Columns step or a profile\'s columns: '
        "block) (an error when the profile says strict: true)"
    )


async def test_the_page_without_utm_rules_has_no_utm_case_box(client: httpx.AsyncClient) -> None:
    assert 'id="opt-utm-case"' not in (await client.get("/")).text


def test_every_advice_in_the_pages_words_names_no_flag() -> None:
    for constant, _advice in ADVICE.items():
        no_flag(fix_for(constant))
    assert "tick “Fix invisible characters” in the Options" in fix_for("INVALID_URL")
    assert "under the plan, then apply" in fix_for("UNSAFE_PLAN")
    assert fix_for("NOT_FOUND") == ADVICE["NOT_FOUND"]  # no flag: the same words


def _messages() -> dict[str, list[str]]:
    """Every text of the library (not its docstrings, not the command line's help, nor
    the help of the run request's fields) that names a flag, by flag."""
    found: dict[str, list[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC)
        if rel.parts[0] in ("cli", "ui") or rel.as_posix() == "pipeline/request.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docs
                and not FLAG.fullmatch(node.value)  # a program's argument (git's), no text
            ):
                for flag in FLAG.findall(node.value):
                    found.setdefault(flag, []).append(f"{rel}:{node.lineno}: {node.value}")
    return found


def test_every_flag_the_library_names_has_the_pages_words() -> None:
    messages = _messages()
    assert "--date-format" in messages and "--map" in messages  # the scan sees them
    missing = {flag: where[0] for flag, where in messages.items() if flag not in CONTROLS}
    assert missing == {}, "add the page's words for these flags to linksync.ui.words.CONTROLS"
    for where in messages.values():
        for text in where:
            no_flag(page_words(text.split(": ", 1)[1]))


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            "no column of destination URLs found among the headers ('Link'); name it e.g. "
            '"Destination URL" or map it with --map HEADER=url',
            "or choose “Destination URL” for it in the Columns step",
        ),
        (
            'columns "Link" and "URL" both give the url: "Link" is used and "URL" only fills '
            "its empty cells; they differ on 2 row(s), e.g. a and b (map one with --map "
            '"URL=ignore" to silence this)',
            '(choose “Not used” for "URL" in the Columns step to silence this)',
        ),
        (
            "the file is not UTF-8, and its text is too short to tell its encoding: it reads as "
            "2 different texts (x, y); its rows are not read: pass --encoding with the one that "
            "reads right (e.g. --encoding cp1252), or the profile's encoding:",
            "choose the one that reads right (e.g. cp1252) at “Encoding of CSV files” in the "
            "Options, or the profile's encoding:",
        ),
        (
            "another linksync run holds the lock /x/lock: pid 12 on host. Nothing was done. "
            "Wait for it to finish, or pass --lock-wait SECONDS to wait for it.",
            "Nothing was done. Wait for it to finish, then apply again.",
        ),
        (
            "mirror mode deletes only inside an explicit scope: name the domains (--domain D) "
            "and/or an ownership tag (--owner-tag T)",
            "name the domains (at “Mirror deletes on” in the Options) and/or an ownership tag "
            "(the profile's owner_tag:)",
        ),
        ("a new flag --made-up-later FILE here", "a new flag an option of a terminal run here"),
    ],
)
def test_messages_in_the_pages_words(text: str, said: str) -> None:
    assert said in page_words(text)
    no_flag(page_words(text))


async def test_a_page_run_that_fails_says_why_in_the_pages_words(
    client: httpx.AsyncClient, state: UiState, settings: Settings
) -> None:
    from ui_support import eventually

    from linksync.pipeline.lock import acquire_lock, default_lock_path
    from linksync.ui import RunState

    await check(client, "links.csv", b"url,slug\nhttps://shop.example.com/a,a\n")
    shown = (await client.post("/api/plan", json={})).json()["data"]
    with acquire_lock(default_lock_path(settings.target), target="a terminal run"):
        started = await client.post("/api/apply", json={"plan_id": shown["plan_id"]})
        run = state.runs.get(started.json()["run_id"])
        assert run is not None
        eventually(lambda: run.record.state.over, timeout=30)
    assert run.record.state is RunState.FAILED
    error = run.record.error or ""
    assert "another linksync run holds the lock" in error
    assert error.endswith("Nothing was done. Wait for it to finish, then apply again.")
    no_flag(error)
