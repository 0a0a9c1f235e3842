"""Passwords kept out of git, as a team writes them in YAML: ``password: {env: NAME}``
and ``{file: PATH}`` (on a link or in ``defaults:``), read when the file is read; a
password file must sit in the repository's tree (the git work tree, made here with
``git init``; outside a repository, the YAML file's own folder); a password written in
clear is a warning on its line whose message shows the ``env:`` form. And the
``ignore_changes`` / ``ignore`` keys, checked as they are written."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from linksync.model import LinkSpec, Problem, Severity
from linksync.sources import ReadOptions, read_sources
from linksync.validate import validate

SECRET = "s3cret-VIP-2026"


def git_repo(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def read(path: Path, **options: object) -> tuple[list[LinkSpec], list[Problem]]:
    batch = read_sources([path], options=ReadOptions.build(**options))  # type: ignore[arg-type]
    return list(batch.specs), list(batch.problems)


def said(problems: list[Problem]) -> list[tuple[str, str, int | None]]:
    return [
        (p.constant, p.severity.value, p.provenance.row if p.provenance else None) for p in problems
    ]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = git_repo(tmp_path / "repo")
    write(root / ".gitignore", "secrets/\n")
    write(root / "secrets" / "club.txt", "club-Pa55-from-file\n")  # a line, as editors save it
    return root


def test_a_variable_and_a_file_give_the_password_and_say_where_it_came_from(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VIP_PASSWORD", SECRET)
    path = write(
        repo / "links" / "go.yaml",
        "links:\n"
        "  vip:\n"
        "    url: https://example.com/vip\n"
        "    password: {env: VIP_PASSWORD}\n"
        "  club:\n"
        "    url: https://example.com/club\n"
        "    password:\n"
        "      file: ../secrets/club.txt\n",
    )
    specs, problems = read(path)
    assert problems == []
    assert [(s.slug, s.password, s.declared.password_from) for s in specs] == [
        ("vip", SECRET, "env VIP_PASSWORD"),
        ("club", "club-Pa55-from-file", "file ../secrets/club.txt"),  # its line break dropped
    ]
    assert all("password" in s.managed for s in specs)
    shown = str([s.to_dict() for s in specs])
    assert SECRET not in shown and "club-Pa55" not in shown
    assert "env VIP_PASSWORD" in shown  # the saved plan's spec names where it came from


def test_defaults_give_every_link_the_reference_and_a_link_its_own(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEAM_PASSWORD", "team-wide-Pa55")
    path = write(
        repo / "links.yaml",
        "defaults:\n"
        "  password: {env: TEAM_PASSWORD}\n"
        "links:\n"
        "  - {slug: a, url: 'https://e.com/a'}\n"
        "  - {slug: b, url: 'https://e.com/b', password: {file: secrets/club.txt}}\n"
        "  - {slug: c, url: 'https://e.com/c', password: null}\n",
    )
    specs, problems = read(path)
    assert problems == []
    assert [(s.password, s.declared.password_from) for s in specs] == [
        ("team-wide-Pa55", "env TEAM_PASSWORD"),
        ("club-Pa55-from-file", "file secrets/club.txt"),
        (None, None),  # null removes it, as before
    ]


def test_a_variable_not_set_is_an_error_on_each_link_naming_it_and_a_warning_for_validate(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VIP_PASSWORD", raising=False)
    monkeypatch.setenv("EMPTY_PASSWORD", "")
    path = write(
        repo / "links.yaml",
        "links:\n"
        "  vip: {url: 'https://e.com/vip', password: {env: VIP_PASSWORD}}\n"
        "  blank: {url: 'https://e.com/blank', password: {env: EMPTY_PASSWORD}}\n"
        "  gone: {url: 'https://e.com/gone', password: {file: secrets/none.txt}}\n"
        "  open: {url: 'https://e.com/open'}\n",
    )
    specs, problems = read(path)
    assert said(problems) == [
        ("MISSING_SECRET", "error", 2),
        ("MISSING_SECRET", "error", 3),
        ("MISSING_SECRET", "error", 4),
    ]
    assert "the variable VIP_PASSWORD is not set" in problems[0].message
    assert "the variable EMPTY_PASSWORD is empty" in problems[1].message
    assert "the file secrets/none.txt does not exist" in problems[2].message
    assert problems[0].where() == f'{path}, line 2, key "password"'
    # the link is not sent, and a password it cannot read is never taken for "none"
    assert [("password" in s.managed) for s in specs] == [False, False, False, False]
    assert validate(read_sources([path])).invalid == frozenset({0, 1, 2})

    _, warned = read(path, secrets_needed=False)  # validate: secrets may live elsewhere
    assert said(warned) == [
        ("MISSING_SECRET", "warning", 2),
        ("MISSING_SECRET", "warning", 3),
        ("MISSING_SECRET", "warning", 4),
    ]
    assert "plan and apply need it" in warned[0].message


def test_a_password_file_outside_the_repository_is_refused_even_through_a_link(
    tmp_path: Path, repo: Path
) -> None:
    outside = write(tmp_path / "outside.txt", "not-for-links\n")
    os.symlink(outside, repo / "secrets" / "sneaky.txt")
    path = write(
        repo / "links" / "go.yaml",
        "links:\n"
        "  a: {url: 'https://e.com/a', password: {file: ../../outside.txt}}\n"
        "  b: {url: 'https://e.com/b', password: {file: ../secrets/sneaky.txt}}\n"
        f"  c: {{url: 'https://e.com/c', password: {{file: {outside}}}}}\n"
        "  d: {url: 'https://e.com/d', password: {file: ../secrets/club.txt}}\n",
    )
    specs, problems = read(path, secrets_needed=False)  # refused under validate too
    assert said(problems) == [
        ("INVALID_FIELD", "error", 2),
        ("INVALID_FIELD", "error", 3),
        ("INVALID_FIELD", "error", 4),
    ]
    assert "leads out of the repository's tree (the git work tree" in problems[0].message
    assert str(repo.resolve()) in problems[0].message
    assert "leads out of the repository's tree" in problems[1].message
    assert "give a path relative to" in problems[2].message
    assert "not-for-links" not in str([p.message for p in problems])
    assert [s.password for s in specs] == [None, None, None, "club-Pa55-from-file"]


def test_outside_any_repository_the_tree_is_the_files_own_folder(tmp_path: Path) -> None:
    folder = tmp_path / "plain" / "links"
    write(folder / "pw" / "vip.txt", "folder-Pa55\n")
    write(tmp_path / "plain" / "up.txt", "above-Pa55\n")
    path = write(
        folder / "go.yaml",
        "links:\n"
        "  a: {url: 'https://e.com/a', password: {file: pw/vip.txt}}\n"
        "  b: {url: 'https://e.com/b', password: {file: ../up.txt}}\n",
    )
    specs, problems = read(path)
    assert specs[0].password == "folder-Pa55"
    assert said(problems) == [("INVALID_FIELD", "error", 3)]
    assert f"(the folder {folder.resolve()})" in problems[0].message


def test_a_reference_written_wrong_names_the_forms(repo: Path) -> None:
    path = write(
        repo / "links.yaml",
        "links:\n"
        "  a: {url: 'https://e.com/a', password: {vault: vip}}\n"
        "  b: {url: 'https://e.com/b', password: {env: 1ST}}\n"
        "  c: {url: 'https://e.com/c', password: {env: A, file: b}}\n",
    )
    _, problems = read(path)
    assert said(problems) == [("INVALID_FIELD", "error", n) for n in (2, 3, 4)]
    assert "write {env: NAME} (a variable) or {file: PATH}" in problems[0].message
    assert "not a variable name" in problems[1].message
    assert "{env, file} is no reference" in problems[2].message


def test_a_password_in_clear_is_a_warning_on_its_line_showing_the_env_form(repo: Path) -> None:
    path = write(
        repo / "links.yaml",
        "links:\n  spring-vip:\n    url: https://e.com/a\n    password: hunter2\n",
    )
    specs, problems = read(path)
    assert said(problems) == [("SECRET_IN_SOURCE", "warning", 2)]
    assert "(line 4)" in problems[0].message
    assert "password: {env: SPRING_VIP_PASSWORD}" in problems[0].message
    assert specs[0].password == "hunter2"  # still sent: a warning, not a refusal
    strict = validate(read_sources([path]), strict=True)
    assert strict.invalid == frozenset({0})  # --strict: an error


def test_a_password_in_clear_in_defaults_is_said_once_for_the_file(repo: Path) -> None:
    path = write(
        repo / "links.yaml",
        "defaults: {password: hunter2}\n"
        "links:\n  - {slug: a, url: 'https://e.com/a'}\n  - {slug: b, url: 'https://e.com/b'}\n",
    )
    specs, problems = read(path)
    assert said(problems) == [("SECRET_IN_SOURCE", "warning", 1)]
    assert problems[0].message.startswith("defaults.password written in clear")
    assert [s.password for s in specs] == ["hunter2", "hunter2"]
    strict = validate(read_sources([path]), strict=True)
    assert [p.severity for p in strict.file_problems] == [Severity.ERROR]


def test_ignore_changes_and_ignore_as_written(repo: Path) -> None:
    path = write(
        repo / "links.yaml",
        "defaults:\n"
        "  ignore_changes: [tags, description]\n"
        "  ignore: [Promo-*, {tag: hand-made}, 'tag:frozen']\n"
        "links:\n"
        "  a: {url: 'https://e.com/a'}\n"
        "  b: {url: 'https://e.com/b', ignore_changes: [url]}\n"
        "  c: {url: 'https://e.com/c', ignore_changes: []}\n"
        "  d: {url: 'https://e.com/d', ignore_changes: [tgas]}\n",
    )
    batch = read_sources([path])
    specs = list(batch.specs)
    assert [sorted(s.declared.ignore_changes) for s in specs] == [
        ["description", "tags"],
        ["url"],  # a link's own list replaces the file's
        [],
        [],
    ]
    assert batch.frames[0].ignore == ("promo-*", "tag:hand-made", "tag:frozen")
    (problem,) = batch.problems
    assert (problem.constant, problem.provenance and problem.provenance.row) == ("INVALID_FIELD", 8)
    assert 'unknown field "tgas" (did you mean "tags"?)' in problem.message


@pytest.mark.parametrize(
    ("defaults", "words"),
    [
        ("ignore_changes: [expiresAt]", '"expiresAt" cannot be named: an expiry is never updated'),
        (
            "ignore_changes: [descripton]",
            'unknown field "descripton" (did you mean "description"?)',
        ),
        ("ignore: [promo_*]", '"promo_*" can never match a slug'),
        ("ignore: [{owner: me}]", "is no entry: write a slug pattern (promo-*) or {tag: NAME}"),
    ],
)
def test_a_mistake_in_defaults_is_an_error_of_the_file(
    repo: Path, defaults: str, words: str
) -> None:
    path = write(repo / "links.yaml", f"defaults:\n  {defaults}\nlinks: []\n")
    (problem,) = read_sources([path]).problems
    assert (problem.constant, problem.severity, problem.provenance and problem.provenance.row) == (
        "INVALID_FIELD",
        Severity.ERROR,
        2,
    )
    assert words in problem.message and problem.message.startswith("defaults.")
