"""Which headers are read, which are guesses, which are row states: the
alias table split into exact names and loose words, the row-state words and the values
that agree with sending a row, and short links that cannot be split or disagree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostile_inputs import Expect, remote, run, validate

from linksync.sources import read_sources
from linksync.sources.aliases import ALIASES, HELD_FIELDS, LOOSE
from linksync.sources.columns import match_columns, normalize_header


def _csv(workdir: Path, name: str, text: str) -> Path:
    path = workdir / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "header,field",
    [
        ("utm_content", "utm_content"),
        ("UTM Content", "utm_content"),
        ("Campaign content", "utm_content"),
        ("utm-campaign", "utm_campaign"),
        ("Campaign name", "utm_campaign"),
        ("Campaign source", "utm_source"),
        ("Password", "password"),
        ("Long URL", "url"),
    ],
)
def test_exact_names_are_read_without_a_word(header: str, field: str) -> None:
    match = match_columns(["Back-half", header])
    assert dict(match.fields) == {"slug": 0, field: 1}
    assert (match.guesses, match.held) == (frozenset(), ())


@pytest.mark.parametrize(
    "header,field",
    [
        ("Content", "utm_content"),
        ("Campaign", "utm_campaign"),
        ("Source", "utm_source"),
        ("Medium", "utm_medium"),
        ("Term", "utm_term"),
        ("Target", "url"),
        ("Website", "url"),
        ("Pass", "password"),
    ],
)
def test_a_loose_word_that_would_change_the_url_is_not_read(header: str, field: str) -> None:
    match = match_columns(["Destination URL", "Back-half", header])
    assert dict(match.fields) == {"url": 0, "slug": 1}
    assert match.held == ((2, field),)
    chosen = match_columns(["Destination URL", "Back-half", header], {header: field})
    assert chosen.fields[field] == 2 and chosen.chosen(2) and chosen.held == ()


@pytest.mark.parametrize(
    "header,field",
    [("Notes", "description"), ("Memo", "description"), ("Labels", "tags"), ("Key", "slug")],
)
def test_a_loose_word_for_another_field_is_read_as_a_guess(header: str, field: str) -> None:
    match = match_columns(["Destination URL", header])
    assert match.fields[field] == 1
    assert match.guesses == frozenset({1})


def test_every_loose_word_is_an_alias_of_its_field() -> None:
    for fname, words in LOOSE.items():
        assert set(words) <= set(ALIASES[fname]), fname
    assert {"url", "password", "utm_source", "utm_content"} <= HELD_FIELDS


def test_a_column_of_post_copy_is_not_appended_to_the_url(workdir: Path) -> None:
    path = _csv(
        workdir,
        "posts.csv",
        "Destination URL,Back-half,Content,Notes\n"
        'https://shop.example.com/spring,spring,"Spring is here, 20% off",Hero banner\n',
    )
    validate(
        path,
        code=0,
        expect=[Expect(None, "Content", "--map Content=utm_content", "warning")],
    )
    (spec,) = read_sources([path]).specs
    assert spec.url == "https://shop.example.com/spring"
    assert spec.description == "Hero banner"
    (spec,) = read_sources([path], mapping={"Content": "utm_content"}).specs
    assert spec.url == "https://shop.example.com/spring?utm_content=Spring+is+here%2C+20%25+off"


def test_a_loose_url_header_alone_is_no_url_column(workdir: Path) -> None:
    path = _csv(workdir, "t.csv", "Target,Back-half\nhttps://e.com/a,a\n")
    validate(
        path,
        code=1,
        expect=[
            Expect(None, "Target", "--map Target=url", "warning"),
            Expect(2, "url", "no destination URL"),
        ],
    )
    assert run("validate", str(path), "--map", "Target=url").exit_code == 0


@pytest.mark.parametrize(
    "header,value,warned",
    [
        ("Status", "active", False),
        ("Status", "Live", False),
        ("Status", "paused", True),
        ("State", "draft", True),
        ("Action", "create", False),
        ("Action", "Delete", True),
        ("Archived", "FALSE", False),
        ("Archived", "yes", True),
        ("Active", "TRUE", False),
        ("Active", "no", True),
        ("Enabled", "0", True),
        ("Deleted", "x", True),
        ("Link status", "cancelled", True),
    ],
)
def test_row_state_values(workdir: Path, header: str, value: str, warned: bool) -> None:
    path = _csv(
        workdir, "s.csv", f"Destination URL,Back-half,{header}\nhttps://e.com/a,a,{value}\n"
    )
    checked = validate(path, code=0, good_rows=[2])
    states = [p for p in checked.problems if p["constant"] == "ROW_STATE_COLUMN"]
    assert [(p["row"], p["column"]) for p in states] == ([(2, header)] if warned else [])
    if warned:
        assert f'holds "{value}"' in states[0]["message"]


def test_a_state_cell_on_an_empty_row_says_nothing(workdir: Path) -> None:
    path = _csv(workdir, "e.csv", "Destination URL,Back-half,Status\nhttps://e.com/a,a,\n,,done\n")
    checked = validate(path, code=0)
    assert checked.doc["rows"] == 1 and checked.problems == []


def test_an_annotated_copy_read_again_has_no_row_states(workdir: Path) -> None:
    """The Status column linksync appends to an annotated copy is its own."""
    path = _csv(workdir, "c.csv", "Destination URL,Back-half\nhttps://e.com/a,ann-a\n")
    done = run("apply", str(path), "--yes", "--no-progress", "--annotate", "c.annotated.csv")
    assert done.exit_code == 0, done.output
    copy = workdir / "c.annotated.csv"
    assert "Short link,Status,Error" in copy.read_text(encoding="utf-8-sig")
    checked = validate(copy, code=0, good_rows=[2])
    assert checked.problems == []
    (columns,) = checked.doc["columns"]
    status = next(c for c in columns["columns"] if c["header"] == "Status")
    assert (status["how"], status["read"]) == ("ignored", False)
    again = run("apply", str(copy), "--yes", "--no-progress")
    assert again.exit_code == 0, again.output
    assert list(remote(workdir)) == ["ann-a"]


@pytest.mark.parametrize(
    "short,words",
    [
        ("https://lnk.test/promo-q?ref=qr", "it has a query string (?ref=qr)"),
        ("https://lnk.test/promo#top", "it has a fragment (#top)"),
        ("lnk.test/spring/sale", "its path has 2 segments (spring/sale)"),
        ("https://lnk.test/", "it has no slug after the domain"),
        ("spring sale", "it is not a URL"),
    ],
)
def test_a_short_link_that_cannot_be_split_is_an_error(
    workdir: Path, short: str, words: str
) -> None:
    path = _csv(
        workdir,
        "s.csv",
        f"Destination URL,Short link\nhttps://e.com/a,{short}\nhttps://e.com/b,lnk.test/fine\n",
    )
    validate(path, code=1, good_rows=[3], expect=[Expect(2, "Short link", words)])
    result = run("apply", str(path), "--yes", "--no-progress")
    assert result.exit_code == 1
    assert {s: link.url for s, link in remote(workdir).items()} == {"fine": "https://e.com/b"}


def test_a_short_link_and_the_other_columns_must_agree(workdir: Path) -> None:
    path = _csv(
        workdir,
        "d.csv",
        "Destination URL,Back-half,Domain,Short link\n"
        "https://e.com/a,Spring,,https://lnk.test/spring\n"  # same slug (case aside)
        "https://e.com/b,promo,go.example.com,https://lnk.test/promo\n"  # another domain
        "https://e.com/c,,,https://lnk.test/from-link\n",  # fills the slug
    )
    validate(
        path,
        code=1,
        good_rows=[2, 4],
        expect=[Expect(3, "Short link", "'go.example.com' in \"Domain\", 'lnk.test' in")],
    )
    specs = {s.provenance.row: s for s in read_sources([path]).specs if s.provenance}
    assert (specs[2].slug, specs[4].slug, specs[4].domain) == ("Spring", "from-link", "lnk.test")


def test_the_json_lists_each_column_of_each_sheet(workdir: Path) -> None:
    path = _csv(
        workdir,
        "j.csv",
        "Description,URL,Title,Slug,Owner,Budget\nhello,https://e.com/a,t,a,Ana,10\n",
    )
    doc = json.loads(run("validate", str(path), "--json").stdout)
    (columns,) = doc["columns"]
    seen = [(c["header"], c["field"], c["how"], c["read"], c["after"]) for c in columns["columns"]]
    assert seen == [
        ("Description", "description", "alias", True, None),
        ("URL", "url", "alias", True, None),
        ("Title", "description", "alias", True, "Description"),
        ("Slug", "slug", "alias", True, None),
        ("Owner", None, "ignored", False, None),
        ("Budget", None, "unknown", False, None),
    ]  # fmt: skip
    assert columns["line"] == (
        f'{path}: "Description" -> description, "URL" -> url, "Title" -> description '
        '(where "Description" is empty), "Slug" -> slug, not read: "Owner", "Budget" (unknown)'
    )
    assert normalize_header(columns["columns"][0]["header"]) == "description"
