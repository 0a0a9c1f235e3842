"""A flag of what a run may do given an empty value, as a job writes it when its
variable is not set (``--owner-tag "$OWNER_TAG"``), is refused before anything is read
or sent. It was read as not given: a mirror scoped by ``--domain`` and that owner tag
deleted every link of the domain, other owners' and hand-made ones included, and an
empty ``--retire-to`` deleted the links it was meant to keep answering."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.cli_runs import remote_links, run

MIRROR = ("--mode", "mirror", "--domain", "lnk.test")


@pytest.fixture
def three(workdir: Path) -> Path:
    """ours-a and ours-b made under owner:web, theirs made by hand; the file now declares
    ours-a only."""
    path = workdir / "links.yaml"
    path.write_text("links:\n  ours-a: https://example.com/a\n  ours-b: https://example.com/b\n")
    assert run("apply", "links.yaml", "--owner-tag", "owner:web", "--yes").exit_code == 0
    made = run("links", "create", "https://example.com/theirs", "--slug", "theirs")
    assert made.exit_code == 0, made.output
    path.write_text("links:\n  ours-a: https://example.com/a\n")
    return workdir


def slugs(workdir: Path) -> set[str]:
    return {link.slug for link in remote_links(workdir)}


@pytest.mark.parametrize(
    "flags",
    [
        ("--owner-tag", ""),
        ("--owner-tag", "owner:web", "--retire-to", " "),
        ("--owner-tag", "owner:web", "--ignore", ""),
    ],
)
def test_an_empty_flag_of_the_run_is_refused(three: Path, flags: tuple[str, ...]) -> None:
    for command in (("plan",), ("apply", "--yes")):
        result = run(*command, "links.yaml", *MIRROR, *flags)
        assert result.exit_code == 2, result.output
        assert f"{flags[-2]} was given an empty value" in result.output
        assert "nothing done" in result.output
    assert slugs(three) == {"ours-a", "ours-b", "theirs"}


def test_the_flag_with_its_value_scopes_the_mirror(three: Path) -> None:
    result = run("apply", "links.yaml", *MIRROR, "--owner-tag", "owner:web", "--yes")
    assert result.exit_code == 0, result.output
    assert slugs(three) == {"ours-a", "theirs"}
