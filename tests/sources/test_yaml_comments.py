"""A ``#word`` that YAML reads as a comment is not taken out of a value in silence.

In YAML a ``#`` after a space starts a comment, even in the middle of what a person
wrote as one value: ``url: https://example.com/page #pricing`` is the URL
``https://example.com/page``, ``description: Spring sale #1 for members`` is
``Spring sale``, ``description: #1 pick`` is null (which clears the description). Such
a link was sent cut short, exit 0. Now a plain value followed on its line by a comment
whose ``#`` touches the next word is an error of its link (``COMMENT_IN_VALUE``, with
the line, the key, what was read and both ways out): the link is not sent, the others
are, and a mirror keeps its link. A comment written ``# text`` (a space after the
``#``), a fragment written without a space (``page#pricing``) and a comment after a
quoted value say nothing."""

from __future__ import annotations

import json
from pathlib import Path

from hostile_inputs import GOOD, Expect, remote, run, validate

HAND_WRITTEN = f"""\
links:
  - slug: {GOOD[0]}
    url: {GOOD[1]}   # the launch page
  - slug: spring-page
    url: https://example.com/page #pricing
  - slug: members
    url: https://example.com/members
    description: Spring sale #1 for members
  - slug: fragment
    url: https://example.com/page#pricing # pricing anchor
  - slug: quoted
    url: "https://example.com/q" #checked
  - slug: tagged
    url: https://example.com/t
    tags:
      - spring
      - summer #2026
"""


def _write(workdir: Path, text: str, name: str = "links.yaml") -> Path:
    path = workdir / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_word_yaml_takes_as_a_comment_is_an_error_on_its_link(workdir: Path) -> None:
    path = _write(workdir, HAND_WRITTEN)
    validate(
        path,
        code=1,
        expect=[
            Expect(
                4,
                "url",
                "YAML reads the text after url: on line 5, '#pricing', as a comment, so "
                "the value is read as 'https://example.com/page': the link is not sent; if "
                "'#pricing' belongs to the value, quote it "
                '(url: "https://example.com/page#pricing"); if it is a comment, write a '
                "space after the # (# pricing)",
            ),
            Expect(
                6,
                "description",
                "so the value is read as 'Spring sale'",
            ),
            Expect(
                13,
                "tags",
                "YAML reads the text after - under tags: on line 17, '#2026', as a comment",
            ),
        ],
        good_rows=[2, 9, 11],
    )
    shown = run("validate", "links.yaml").output
    assert "ERROR   COMMENT_IN_VALUE: links.yaml, line 4: " in shown, shown
    assert shown.count("COMMENT_IN_VALUE") == 3, shown


def test_the_cut_links_are_not_sent_and_the_others_are(workdir: Path) -> None:
    path = _write(workdir, HAND_WRITTEN)
    result = run("apply", str(path), "--yes", "--no-progress", "--report", "out/r.json")
    assert result.exit_code == 1, result.output
    assert sorted(remote(workdir)) == sorted([GOOD[0], "fragment", "quoted"])
    assert remote(workdir)["fragment"].url == "https://example.com/page#pricing"
    rows = {r["row"]: r for r in json.loads((workdir / "out/r.json").read_text())["results"]}
    assert [rows[n]["error_constant"] for n in (4, 6, 13)] == ["COMMENT_IN_VALUE"] * 3


def test_a_mirror_keeps_the_link_of_a_cut_value(workdir: Path) -> None:
    (workdir / "all.csv").write_text(
        f"slug,url\n{GOOD[0]},{GOOD[1]}\nspring-page,https://example.com/page#pricing\n",
        encoding="utf-8",
    )
    assert run("apply", "all.csv", "--yes", "--no-progress").exit_code == 0
    path = _write(
        workdir,
        f"links:\n  {GOOD[0]}: {GOOD[1]}\n  spring-page: https://example.com/page #pricing\n",
    )
    mirror = run(
        "apply", str(path), "--yes", "--no-progress", "--mode", "mirror", "--domain", "lnk.test"
    )
    assert mirror.exit_code == 1, mirror.output
    assert 'spring-page: "https://example.com/page#pricing"' in mirror.output
    link = remote(workdir)["spring-page"]
    assert link.url == "https://example.com/page#pricing", "the link was changed or deleted"


def test_a_value_cut_to_nothing_does_not_clear_the_field(workdir: Path) -> None:
    path = _write(
        workdir,
        "links:\n  - slug: pick\n    url: https://example.com/p\n    description: #1 pick\n",
    )
    validate(
        path,
        code=1,
        expect=[Expect(2, "description", "so the value is read as empty (null)")],
    )


def test_a_cut_default_stops_the_file_and_a_cut_password_is_not_shown(workdir: Path) -> None:
    text = (
        "defaults:\n  domain: lnk.test #main\nlinks:\n"
        "  vip:\n    url: https://example.com/vip\n    password: s3cret-word #42\n"
    )
    path = _write(workdir, text)
    checked = validate(
        path,
        code=1,
        expect=[
            Expect(2, None, "so the value is read as 'lnk.test': nothing of this file is sent"),
            Expect(4, "password", "YAML reads the text after password: on line 6 from its #"),
        ],
    )
    assert "s3cret" not in checked.result.output and "#42" not in checked.result.output
    assert "nothing applied" in run("apply", str(path), "--yes", "--no-progress").output
    assert remote(workdir) == {}
