"""Links as code written by hand, mistakes included: a misspelt key is an
error naming its line and the key it resembles, and that link (or that file) is not
sent; a file that declares no link is an error unless it says so (``links: []``);
merge keys (``<<: *common``) are merged as YAML defines them."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from hostile_inputs import GOOD, Expect, digest, remote, run, validate

import linksync
from linksync.errors import SourceError

# What a person writes: a good link, then three with one misspelt key each.
MISSPELT = f"""\
# Spring campaign links
links:
  - slug: {GOOD[0]}
    url: {GOOD[1]}
    description: Fine
  - slug: typo-desc
    url: https://example.com/desc
    descripton: Spring sale
  - slug: typo-expiry
    url: https://example.com/expiry
    expires: 2031-01-01
  - slug: typo-url
    utl: https://example.com/url
"""


def _write(workdir: Path, name: str, text: str) -> Path:
    path = workdir / name
    path.write_text(text, encoding="utf-8")
    return path


def _apply(workdir: Path, source: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    before = digest(source)
    result = run("apply", str(source), "--yes", "--no-progress", "--report", "out/r.json", *args)
    assert digest(source) == before, "the source was changed"
    assert "Traceback" not in result.output
    report = workdir / "out/r.json"
    doc = json.loads(report.read_text()) if report.exists() else {"results": []}
    return result.exit_code, doc, result.output


def test_a_misspelt_link_key_is_an_error_with_its_line_and_the_key_it_resembles(
    workdir: Path,
) -> None:
    path = _write(workdir, "links.yaml", MISSPELT)
    validate(
        path,
        code=1,
        expect=[
            Expect(
                6, "descripton", 'unknown key "descripton" on line 8 (did you mean "description"?)'
            ),
            Expect(9, "expires", 'unknown key "expires" on line 11 (did you mean "expiresAt"?)'),
            Expect(12, "utl", 'unknown key "utl" on line 13 (did you mean "url"?)'),
        ],
        good_rows=[3],
    )
    text = run("validate", "links.yaml")
    assert text.exit_code == 1
    assert (
        'ERROR   UNKNOWN_KEY: links.yaml, line 6: unknown key "descripton" on line 8 '
        '(did you mean "description"?): the link is not sent'
    ) in text.output
    # Lines, never spreadsheet rows and columns.
    assert "row " not in text.output and "column" not in text.output


def test_a_misspelt_link_key_keeps_that_link_out_and_the_others_go(workdir: Path) -> None:
    path = _write(workdir, "links.yaml", MISSPELT)
    code, doc, output = _apply(workdir, path)
    assert code == 1, output
    assert list(remote(workdir)) == [GOOD[0]]
    rows = {r["row"]: r for r in doc["results"]}
    assert (rows[3]["action"], rows[3]["status"]) == ("create", "ok")
    for row, key in ((6, "descripton"), (9, "expires"), (12, "utl")):
        assert rows[row]["status"] == "invalid"
        assert rows[row]["error_constant"] == "UNKNOWN_KEY"
        assert f'unknown key "{key}"' in rows[row]["message"]
    assert "links.yaml, line 6" in output


@pytest.mark.parametrize(
    "text,line,words",
    [
        (
            "defaults:\n  domian: go.example.com\nlinks:\n" + f"  - {{slug: a, url: {GOOD[1]}}}\n",
            2,
            'unknown key "defaults.domian" (did you mean "defaults.domain"?): nothing of '
            "this file is sent",
        ),
        (
            f"link:\n  - {{slug: a, url: {GOOD[1]}}}\n",
            1,
            'unknown key "link" (did you mean "links"?)',
        ),
        (
            f"defaults: {{tags: [x]}}\nLinks:\n  - {{slug: a, url: {GOOD[1]}}}\n",
            2,
            'unknown key "Links" (did you mean "links"?)',
        ),
    ],
    ids=["defaults-domian", "link", "Links"],
)
def test_a_misspelt_file_key_is_a_file_error_and_nothing_is_sent(
    workdir: Path, text: str, line: int, words: str
) -> None:
    path = _write(workdir, "links.yaml", text)
    validate(path, code=1, expect=[Expect(line, None, words)])
    shown = run("validate", "links.yaml").output
    assert f"links.yaml, line {line}: {words}" in shown
    planned = run("plan", str(path))
    assert planned.exit_code == 1 and words in planned.output
    code, _, output = _apply(workdir, path)
    assert code == 1 and "nothing applied" in output
    assert remote(workdir) == {}
    with pytest.raises(SourceError, match="nothing applied"):
        linksync.apply([str(path)], outputs=linksync.Outputs(journal=False))


@pytest.mark.parametrize(
    "text,words",
    [
        ("", "the file is empty, so it declares no link"),
        ("# links go here\n\n", "the file holds only comments"),
        ("links:\n", '"links:" has nothing under it'),
        ("links: ~\n", '"links:" has nothing under it'),
        ("defaults:\n  tags: [spring]\n", 'the file has no "links:" key'),
        (f"link:\n  - {{slug: a, url: {GOOD[1]}}}\n", 'the file has no "links:" key'),
    ],
    ids=["empty", "comments", "links-nothing", "links-null", "defaults-only", "link"],
)
def test_a_file_that_declares_no_link_is_an_error(workdir: Path, text: str, words: str) -> None:
    path = _write(workdir, "links.yaml", text)
    checked = validate(path, code=1)
    empty = [p for p in checked.problems if p["constant"] == "EMPTY_SOURCE"]
    assert [p["severity"] for p in empty] == ["error"]
    assert words in empty[0]["message"] and 'write "links: []"' in empty[0]["message"]
    assert empty[0]["source"] == str(path)


@pytest.mark.parametrize(
    "text", ["links: []\n", "links: {}\n", "[]\n", "defaults: {}\nlinks: []\n"]
)
def test_a_file_that_says_it_has_no_links_is_fine(workdir: Path, text: str) -> None:
    path = _write(workdir, "none.yaml", text)
    checked = validate(path, code=0)
    assert checked.doc["rows"] == 0 and checked.problems == []
    assert "No problems found." in run("validate", str(path)).output


MERGES = f"""\
x-common: &common
  tags: [spring, sale]
  utm: {{source: newsletter, medium: email}}
x-extra: &extra
  description: From extra
  tags: [extra]

links:
  - <<: *common
    slug: {GOOD[0]}
    url: {GOOD[1]}
  - <<: [*extra, *common]
    slug: merged-list
    url: https://example.com/list
  - <<: *common
    slug: own-wins
    url: https://example.com/own
    tags: [own]
    utm: {{source: blog}}
  - &base
    slug: base
    url: https://example.com/base
    description: Base
  - <<: *base
    slug: from-base
"""


def test_merge_keys_are_merged_as_yaml_defines_them(workdir: Path) -> None:
    path = _write(workdir, "links.yaml", MERGES)
    checked = validate(path, code=0)
    assert checked.problems == [] and checked.doc["valid"] == 5
    code, _, output = _apply(workdir, path)
    assert code == 0, output
    links = remote(workdir)
    alpha = links[GOOD[0]]
    assert sorted(alpha.tags) == ["sale", "spring"]
    assert alpha.url == f"{GOOD[1]}?utm_source=newsletter&utm_medium=email"
    # In a list, the earlier mapping wins (extra's tags and description).
    listed = links["merged-list"]
    assert listed.tags == ("extra",) and listed.description == "From extra"
    assert listed.url == "https://example.com/list?utm_source=newsletter&utm_medium=email"
    # The link's own keys win over merged ones.
    own = links["own-wins"]
    assert own.tags == ("own",) and own.url == "https://example.com/own?utm_source=blog"
    # A link merged from another link keeps its own slug and takes the rest.
    assert links["from-base"].url == "https://example.com/base"
    assert links["from-base"].description == "Base"


def test_an_unknown_key_brought_by_a_merge_names_its_line(workdir: Path) -> None:
    text = (
        "x-common: &common\n  descripton: Shared\n"
        f"links:\n  - slug: {GOOD[0]}\n    url: {GOOD[1]}\n"
        "  - <<: *common\n    slug: merged\n    url: https://example.com/m\n"
    )
    path = _write(workdir, "links.yaml", text)
    validate(
        path,
        code=1,
        expect=[Expect(6, "descripton", "on line 2 (brought by a merge key <<) (did you mean")],
        good_rows=[4],
    )


@pytest.mark.parametrize(
    "text,words",
    [
        ("links:\n  - <<: 5\n    url: https://e.com\n", "a merge key (<<) takes a mapping"),
        ("links:\n  - <<: [a, b]\n    url: https://e.com\n", "a merge key (<<) takes a mapping"),
        (
            "x-a: &a\n  <<: *a\n  tags: [x]\nlinks:\n  - <<: *a\n    url: https://e.com\n",
            "merges a mapping into itself",
        ),
    ],
    ids=["scalar", "list-of-scalars", "itself"],
)
def test_a_merge_that_cannot_be_made_is_refused(workdir: Path, text: str, words: str) -> None:
    path = _write(workdir, "links.yaml", text)
    validate(path, code=2, refused_words=words)


def test_merges_of_merges_stay_cheap_and_plain_alias_bombs_stay_refused(workdir: Path) -> None:
    """Nine levels of nine merges each: keys are merged by name, so each level holds the
    same few keys (a "billion laughs" through merge keys builds nothing big)."""
    levels = ["x-l0: &l0\n  tags: [a, b]\n  description: deep\n"]
    for i in range(1, 10):
        refs = ", ".join([f"*l{i - 1}"] * 9)
        levels.append(f"x-l{i}: &l{i}\n  <<: [{refs}]\n")
    links = "".join(
        f"  - <<: *l9\n    slug: s{n}\n    url: https://example.com/{n}\n" for n in range(200)
    )
    path = _write(workdir, "deep.yaml", "".join(levels) + "links:\n" + links)
    started = time.perf_counter()
    checked = validate(path, code=0)
    assert checked.doc["valid"] == 200 and checked.problems == []
    assert time.perf_counter() - started < 20
    # An alias that repeats a list outside a merge is still refused as a bomb.
    bomb = "x-t: &t [a, b]\nlinks:\n  - {url: 'https://e.com/1', tags: *t}\n"
    bomb += "  - {url: 'https://e.com/2', tags: *t}\n"
    path = _write(workdir, "bomb.yaml", bomb)
    validate(path, code=2, refused_words="an alias repeats a mapping or list")


def test_the_markdown_plan_names_yaml_lines(workdir: Path) -> None:
    path = _write(workdir, "links.yaml", MISSPELT)
    planned = run("plan", str(path), "--format", "markdown")
    assert planned.exit_code == 1
    assert "links.yaml, line 6" in planned.output
    assert "links.yaml, row" not in planned.output
