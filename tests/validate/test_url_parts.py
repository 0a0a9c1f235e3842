"""Invisible characters in the cells that become part of a URL: a ``utm_*``
cell, a column read as the query, the domain, treated as in the URL column: an error
naming the character, or with ``fix_invisible`` a warning, never percent-encoded into
the URL that is sent."""

from __future__ import annotations

from pathlib import Path

import pytest

from linksync.model import Severity
from linksync.sources import SourceBatch, read_sources
from linksync.validate import validate


def _batch(tmp_path: Path, text: str, mapping: dict[str, str] | None = None) -> SourceBatch:
    path = tmp_path / "links.csv"
    path.write_text(text, encoding="utf-8")
    return read_sources([path], mapping=mapping)


@pytest.mark.parametrize(
    "header,mapping,cell,field",
    [
        ("utm_source", None, "news\u200bletter", "utm_source"),
        ("UTM Medium", None, "e\u00a0mail", "utm_medium"),
        ("Extra", {"Extra": "query"}, "utm_source=news\u200bletter", "query"),
    ],
)
def test_an_invisible_character_in_a_url_part(
    tmp_path: Path, header: str, mapping: dict[str, str] | None, cell: str, field: str
) -> None:
    batch = _batch(tmp_path, f"url,slug,{header}\nhttps://e.com/a,a,{cell}\n", mapping)
    refused = validate(batch)
    (problem,) = [p for p in refused.problems if p.constant != "URL_PARAM_ADDED"]
    assert (problem.constant, problem.severity, problem.field) == (
        "INVALID_URL",
        Severity.ERROR,
        field,
    )
    assert problem.where().endswith(f'row 2, column "{header}"')
    assert "invisible character(s): U+" in problem.message
    assert refused.invalid == frozenset({0})

    fixed = validate(batch, fix_invisible=True)
    (warning,) = [p for p in fixed.problems if p.constant == "INVALID_URL"]
    assert warning.severity is Severity.WARNING
    assert warning.message.startswith("removed invisible character(s): U+")
    assert fixed.invalid == frozenset()
    (spec,) = fixed.specs
    assert "%E2%80%8B" not in spec.url and "%C2%A0" not in spec.url
    assert spec.url in (
        "https://e.com/a?utm_source=newsletter",
        "https://e.com/a?utm_medium=email",
    )


def test_an_invisible_character_in_the_domain_is_named(tmp_path: Path) -> None:
    batch = _batch(tmp_path, "url,slug,domain\nhttps://e.com/a,a,lnk.te\u200bst\n")
    (problem,) = validate(batch).problems
    assert problem.field == "domain"
    assert "contains invisible character(s): U+200B ZERO WIDTH SPACE at position 7" in (
        problem.message
    )
    fixed = validate(batch, fix_invisible=True)
    assert fixed.ok and fixed.specs[0].domain == "lnk.test"


def test_the_validation_notes_hold_the_column_mapping(tmp_path: Path) -> None:
    batch = _batch(tmp_path, "url,slug,Notes,Owner\nhttps://e.com/a,a,n,o\n")
    notes = validate(batch).notes
    assert notes == (
        f'{tmp_path / "links.csv"}: "url" -> url, "slug" -> slug, "Notes" -> description '
        '(guess), not read: "Owner"',
    )


def test_an_invisible_character_in_the_back_half_is_named(tmp_path: Path) -> None:
    batch = _batch(tmp_path, "Destination URL,Back-half\nhttps://e.com/a,spr\u200bing\n")
    (problem,) = validate(batch).problems
    assert (problem.constant, problem.field) == ("INVALID_SLUG", "slug")
    assert problem.where().endswith('row 2, column "Back-half"')
    assert "U+200B ZERO WIDTH SPACE at position 4" in problem.message
    fixed = validate(batch, fix_invisible=True)
    assert fixed.ok and fixed.specs[0].slug == "spring"
