"""An owner tag written in another letter case than the workspace's links carry it
(``--owner-tag OWNER:WEB`` for ``owner:web``, a profile edited by hand) is refused
before any write, naming the spelling the links have: tags are compared as written, so
the run re-tagged every link it updated (``added OWNER:WEB; removed owner:web``) and
created new ones under a tag no one else uses, without a word."""

from __future__ import annotations

from pathlib import Path

from support.cli_runs import remote_links, run


def _links(workdir: Path, text: str) -> None:
    (workdir / "links.yaml").write_text(f"defaults:\n  domain: lnk.test\nlinks:\n{text}", "utf-8")


def test_an_owner_tag_in_another_case_is_refused(workdir: Path) -> None:
    _links(workdir, "  a: https://example.com/a\n  b: https://example.com/b\n")
    assert run("apply", "links.yaml", "--owner-tag", "owner:web", "--yes").exit_code == 0
    _links(
        workdir,
        "  a: https://example.com/a2\n  b: https://example.com/b\n  c: https://example.com/c\n",
    )
    for command in (("plan",), ("apply", "--yes")):
        result = run(*command, "links.yaml", "--owner-tag", "OWNER:WEB")
        assert result.exit_code == 2, result.output
        assert "--owner-tag OWNER:WEB: the links of the workspace carry owner:web" in result.output
        assert "write --owner-tag owner:web (nothing done)" in result.output
    links = {link.slug: link for link in remote_links(workdir)}
    assert sorted(links) == ["a", "b"]
    assert links["a"].url == "https://example.com/a" and list(links["a"].tags) == ["owner:web"]


def test_the_owner_tag_as_the_links_carry_it_plans(workdir: Path) -> None:
    _links(workdir, "  a: https://example.com/a\n")
    assert run("apply", "links.yaml", "--owner-tag", "owner:web", "--yes").exit_code == 0
    _links(workdir, "  a: https://example.com/a2\n")
    result = run("apply", "links.yaml", "--owner-tag", "owner:web", "--yes")
    assert result.exit_code == 0, result.output
    _links(workdir, "  a: https://example.com/a3\n")
    result = run("plan", "links.yaml", "--owner-tag", "owner:shop")  # another owner
    assert "OWNED_BY_OTHER" in result.output
