"""YAML: the format, the traps (no/0123/dates), alias bombs, Python tags, shapes."""

from __future__ import annotations

from pathlib import Path

import pytest

from linksync.errors import SourceError
from linksync.sources import read_sources
from linksync.validate import validate


def _read(tmp_path: Path, text: str, name: str = "links.yaml") -> list:  # type: ignore[type-arg]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return list(read_sources([path]).specs)


def test_scalars_are_never_coerced(tmp_path: Path) -> None:
    specs = _read(
        tmp_path,
        "- {slug: no, url: https://e.com/a, tags: [yes, 0123, 2025-12-31, 1.5, ~x]}\n"
        "- {slug: 0123, url: https://e.com/b, description: 2025-12-31}\n"
        "- {slug: 1e3, url: https://e.com/c, tags: off}\n"
        "- {slug: !!int 0x1F, url: https://e.com/d}\n",
    )
    assert [(s.slug, s.tags, s.description) for s in specs] == [
        ("no", ("yes", "0123", "2025-12-31", "1.5", "~x"), None),
        ("0123", None, "2025-12-31"),
        ("1e3", ("off",), None),
        ("0x1F", None, None),
    ]


def test_alias_bomb_is_refused(tmp_path: Path) -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n"
    prev = "a"
    for name in "bcdefghij":
        bomb += f"{name}: &{name} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"
        prev = name
    bomb += f"links: [{{url: https://e.com, tags: *{prev}}}]\n"
    path = tmp_path / "bomb.yaml"
    path.write_text(bomb, encoding="utf-8")
    with pytest.raises(SourceError, match="alias"):
        read_sources([path])


def test_scalar_aliases_still_work(tmp_path: Path) -> None:
    specs = _read(
        tmp_path,
        "links:\n  - {slug: a, url: &u https://e.com/x}\n  - {slug: b, url: *u}\n",
    )
    assert [s.url for s in specs] == ["https://e.com/x", "https://e.com/x"]


@pytest.mark.parametrize(
    "doc",
    [
        "- !!python/object/apply:os.system ['echo hacked']\n",
        "- {slug: a, url: !!python/name:os.system ''}\n",
        "- {slug: a, url: !custom x}\n",
    ],
)
def test_foreign_tags_are_refused(tmp_path: Path, doc: str) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(doc, encoding="utf-8")
    with pytest.raises(SourceError, match="not allowed"):
        read_sources([path])


def test_syntax_error_is_a_source_error(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text("links: [a, b\n", encoding="utf-8")
    with pytest.raises(SourceError, match="not valid YAML"):
        read_sources([path])


def test_defaults_mapping_keyed_by_slug_and_lines(tmp_path: Path) -> None:
    specs = _read(
        tmp_path,
        "defaults:\n"
        "  domain: Go.Example.com\n"
        "  tags: [team]\n"
        "  utm: {source: nl, utm_medium: email}\n"
        "links:\n"
        "  spring: https://e.com/s?x=1#top\n"
        "  summer:\n"
        "    url: https://e.com/u\n"
        "    expires_at: 2030-12-31 23:59\n"
        "    tags: [team, sale]\n"
        "    utm: {source: ads}\n",
    )
    assert [
        (s.slug, s.domain, s.url, s.tags, s.expires_at, s.provenance.row if s.provenance else 0)
        for s in specs
    ] == [
        (
            "spring",
            "go.example.com",
            "https://e.com/s?x=1&utm_source=nl&utm_medium=email#top",
            ("team",),
            None,
            6,
        ),
        (
            "summer",
            "go.example.com",
            "https://e.com/u?utm_source=ads&utm_medium=email",
            ("team", "sale"),
            "2030-12-31T23:59:00.000Z",
            7,
        ),
    ]
    prov = specs[1].provenance
    assert prov is not None
    assert prov.column_of("domain") == "defaults.domain"
    assert prov.column_of("expires_at") == "expires_at"


def test_null_and_empty_list_are_managed(tmp_path: Path) -> None:
    [spec] = _read(
        tmp_path,
        "defaults: {tags: [x]}\n"
        "links:\n"
        "  - {slug: a, url: https://e.com, description: null, tags: [], apple: ~}\n",
    )
    assert spec.description is None and spec.apple is None and spec.tags == ()
    assert spec.managed == frozenset({"slug", "url", "description", "tags", "apple"})
    [bare] = _read(tmp_path, "- {slug: a, url: https://e.com}\n", "b.yaml")
    assert bare.managed == frozenset({"slug", "url"})


def test_wrong_shapes_make_the_row_invalid(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(
        "links:\n"
        "  - {slug: a, url: [https://e.com], tags: {a: 1}}\n"
        "  - {slug: b, url: https://e.com/b, colour: red}\n"
        "  - just text\n",
        encoding="utf-8",
    )
    batch = read_sources([path])
    result = validate(batch)
    errors = [(p.provenance.row if p.provenance else 0, p.field, p.constant) for p in result.errors]
    # A url the reader already refused is not reported missing a second time.
    # An unknown key makes its link invalid: the link is not sent.
    assert errors == [
        (2, "url", "INVALID_FIELD"),
        (2, "tags", "INVALID_FIELD"),
        (3, None, "UNKNOWN_KEY"),
        (4, "url", "INVALID_FIELD"),
    ]
    assert result.invalid == frozenset({0, 1, 2})
    assert [u.header for u in batch.unknown_columns] == ["colour"]
    assert result.warnings == ()


def test_directory_tree_sorted_and_hidden_skipped(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / ".git").mkdir()
    (tmp_path / "b" / "z.yml").write_text("- {slug: z, url: https://e.com/z}\n", "utf-8")
    (tmp_path / "a.yaml").write_text("- {slug: a, url: https://e.com/a}\n", "utf-8")
    (tmp_path / ".git" / "x.yaml").write_text("- {slug: x, url: https://e.com/x}\n", "utf-8")
    (tmp_path / "notes.txt").write_text("ignored", "utf-8")
    assert [s.slug for s in read_sources([tmp_path]).specs] == ["a", "z"]
