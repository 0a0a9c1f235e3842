"""Local validation: every constant, every problem collected, fixes, duplicates."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from pathlib import Path

import pytest

from linksync.model import LinkSpec, Provenance, Severity
from linksync.sources import read_sources
from linksync.validate import validate
from support.imports import modules_after

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def spec(row: int, **kw: object) -> LinkSpec:
    kw.setdefault("url", "https://example.com/x")
    managed = frozenset(k for k in kw if k != "managed")
    return LinkSpec(managed=managed, provenance=Provenance("t.csv", None, row), **kw)  # type: ignore[arg-type]


CASES = [
    ({"url": "ftp://example.com/x"}, "url", "INVALID_URL", "must start with http"),
    ({"url": "https://exa mple.com"}, "url", "INVALID_URL", "whitespace at position 12"),
    (
        {"url": "https://example.com/\u200bx"},
        "url",
        "INVALID_URL",
        "U+200B ZERO WIDTH SPACE at position 21",
    ),
    ({"url": "https://example.com/\ufeff"}, "url", "INVALID_URL", "U+FEFF"),
    ({"url": "https://example.com/\u00a0"}, "url", "INVALID_URL", "U+00A0 NO-BREAK SPACE"),
    ({"url": "https://example.com/\u202e"}, "url", "INVALID_URL", "U+202E"),
    ({"url": "https://:80/x"}, "url", "INVALID_URL", "not a valid URL"),
    ({"url": "https://example.com:99999/"}, "url", "INVALID_URL", "not a valid URL"),
    ({"url": None}, "url", "MISSING_URL", "no destination URL"),
    ({"apple": "itms://app"}, "apple", "INVALID_URL", "must start with http"),
    ({"google": "https://play..google.com"}, "google", "INVALID_URL", "not a valid URL"),
    ({"slug": "spring sale"}, "slug", "INVALID_SLUG", "not a valid slug"),
    ({"slug": "-spring"}, "slug", "INVALID_SLUG", "not a valid slug"),
    ({"slug": "a--b"}, "slug", "INVALID_SLUG", "not a valid slug"),
    ({"slug": "x" * 2049}, "slug", "INVALID_SLUG", "longer than 2048 bytes"),
    ({"slug": "Docs"}, "slug", "RESERVED_SLUG", "reserved"),
    ({"expires_at": "2020-01-01T00:00:00.000Z"}, "expires_at", "INVALID_EXPIRY", "in the past"),
    ({"expires_at": "31/12/2030"}, "expires_at", "INVALID_EXPIRY", "--date-format dmy"),
    ({"expires_at": "Dec 31 2030"}, "expires_at", "INVALID_EXPIRY", "not an ISO 8601"),
    ({"domain": "not a host"}, "domain", "INVALID_FIELD", "not a host name"),
]


@pytest.mark.parametrize("fields,field,constant,words", CASES)
def test_each_rule(fields: dict[str, object], field: str, constant: str, words: str) -> None:
    result = validate([spec(2, **fields)], now=NOW)
    [problem] = result.problems
    assert (problem.constant, problem.field, problem.severity) == (constant, field, Severity.ERROR)
    assert words in problem.message
    assert problem.provenance is not None and problem.provenance.row == 2
    assert result.invalid == frozenset({0}) and not result.ok


def test_valid_rows_pass() -> None:
    rows = [
        spec(2, slug="spring-sale", expires_at="2030-01-01T00:00:00.000Z", domain="go.example.com"),
        spec(
            3, url="HTTPS://Example.com:8080/a?b=c#d", slug="007", apple="https://apps.apple.com/x"
        ),
        spec(4, expires_at="2030-01-01T00:00:00+02:00"),
    ]
    result = validate(rows, now=NOW)
    assert result.problems == () and result.ok and result.invalid == frozenset()
    assert [s.slug for s in result.specs] == ["spring-sale", "007", None]


def test_every_problem_is_collected_in_row_then_field_order() -> None:
    rows = [
        spec(2, url="nope", slug="admin", expires_at="bad", apple="x"),
        spec(3),
        spec(4, url=None, slug="bad slug"),
    ]
    result = validate(rows, now=NOW)
    assert [
        (p.provenance.row if p.provenance else 0, p.field, p.constant) for p in result.problems
    ] == [
        (2, "url", "INVALID_URL"),
        (2, "slug", "RESERVED_SLUG"),
        (2, "expires_at", "INVALID_EXPIRY"),
        (2, "apple", "INVALID_URL"),
        (4, "url", "MISSING_URL"),
        (4, "slug", "INVALID_SLUG"),
    ]
    assert result.invalid == frozenset({0, 2})
    places = {p.place for i in result.invalid if (p := result.specs[i].provenance) is not None}
    assert places == {("t.csv", None, 2), ("t.csv", None, 4)}


def test_duplicates_case_insensitive_with_default_domain() -> None:
    rows = [
        spec(2, slug="Sale"),
        spec(3, slug="sale", domain="lnk.test"),
        spec(4, slug="SALE", domain="go.example.com"),
        spec(5, slug="sale", domain="GO.example.com"),
    ]
    result = validate(rows, now=NOW, default_domain="LNK.test")
    dups = [(p.provenance.row if p.provenance else 0, p.message) for p in result.problems]
    assert dups == [
        (3, "lnk.test/sale is declared twice; first at t.csv, row 2"),
        (5, "go.example.com/sale is declared twice; first at t.csv, row 4"),
    ]
    assert result.invalid == frozenset({1, 3})
    # Without a default domain, a row with none and one naming lnk.test differ.
    assert len(validate(rows[:2], now=NOW).problems) == 0


def test_fix_invisible_strips_and_warns() -> None:
    rows = [spec(2, url="https://example.com/\u200bspring\u00a0", slug="a\u200bb")]
    result = validate(rows, now=NOW, fix_invisible=True)
    assert result.ok and result.invalid == frozenset()
    assert [(p.field, p.constant, p.severity) for p in result.problems] == [
        ("url", "INVALID_URL", Severity.WARNING),
        ("slug", "INVALID_SLUG", Severity.WARNING),
    ]
    assert "U+200B ZERO WIDTH SPACE at position 21, U+00A0 NO-BREAK SPACE at position 28" in (
        result.problems[0].message
    )
    [fixed] = result.specs
    assert (fixed.url, fixed.slug) == ("https://example.com/spring", "ab")
    # Without the flag the same row is invalid.
    assert validate(rows, now=NOW).invalid == frozenset({0})


def test_batch_problems_and_frames(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("URL,Slug,Colour\nhttps://e.com/a,a,red\n", "utf-8")
    (tmp_path / "b.yaml").write_text("- {slug: a, url: https://e.com/b}\n", "utf-8")
    batch = read_sources([tmp_path / "a.csv", tmp_path / "b.yaml"])
    result = validate(batch, now=NOW)
    assert [(p.constant, p.severity) for p in result.problems] == [
        ("UNKNOWN_COLUMN", Severity.WARNING),
        ("DUPLICATE_IN_SOURCE", Severity.ERROR),
    ]
    assert str(tmp_path / "a.csv") + ", row 2" in result.problems[1].message
    assert result.summary() == [
        {
            "source": str(tmp_path / "a.csv"),
            "sheet": None,
            "rows": 1,
            "invalid": 0,
            "errors": 0,
            "warnings": 1,
        },
        {
            "source": str(tmp_path / "b.yaml"),
            "sheet": None,
            "rows": 1,
            "invalid": 1,
            "errors": 1,
            "warnings": 0,
        },
    ]


def test_empty_input() -> None:
    result = validate([], now=NOW)
    assert result.ok and result.total == 0 and result.specs == ()


def test_duplicates_among_many_rows_each_name_the_first() -> None:
    """Every repeat of a (domain, slug), case-insensitively, names its first row, in
    a column large enough that only hash ties are compared."""
    rng = random.Random(3)
    domains = [None, "go.example.com", "GO.example.com", "b.example.org"]
    rows = []
    for i in range(3000):
        slug = f"s{rng.randrange(2500)}"
        rows.append(
            spec(i + 2, slug=slug.upper() if i % 7 == 0 else slug, domain=rng.choice(domains))
        )
    result = validate(rows, now=NOW, default_domain="lnk.test")
    got = {
        (p.provenance.row if p.provenance else 0): p.message
        for p in result.problems
        if p.constant == "DUPLICATE_IN_SOURCE"
    }
    first: dict[tuple[str, str], int] = {}
    expected: dict[int, str] = {}
    for r in rows:
        assert r.slug is not None and r.provenance is not None
        key = ((r.domain or "lnk.test").lower(), r.slug.lower())
        row = first.setdefault(key, r.provenance.row or 0)
        if row != r.provenance.row:
            expected[r.provenance.row or 0] = (
                f"{key[0]}/{key[1]} is declared twice; first at t.csv, row {row}"
            )
    assert got == expected and len(expected) > 500


def test_validating_a_small_csv_with_duplicates_does_not_load_numpy_ma(tmp_path: Path) -> None:
    """A small run's checks (the managed fields of each row, repeated slugs) use no
    numpy function that imports ``numpy.ma`` (10-15 ms of every run's start-up)."""
    rows = "".join(f"s{i},https://e.com/{i}\n" for i in range(20))
    (tmp_path / "links.csv").write_text("slug,url\n" + rows + "s3,https://e.com/again\n")
    modules, proc = modules_after(tmp_path, "validate", "links.csv")
    assert proc.returncode == 1, proc.stderr
    assert "DUPLICATE_IN_SOURCE" in proc.stdout + proc.stderr
    assert "numpy" in modules and "numpy.ma" not in modules


def test_a_sheets_descriptions_too_long_or_placeholders_are_named_on_their_rows(
    tmp_path: Path,
) -> None:
    """A description over the service's limit is named on its row, one that is a
    placeholder too, and no other row is (short and long ones around them)."""
    rows = [f"s{i},https://example.com/{i},about link {i}" for i in range(300)]
    rows[10] = "s10,https://example.com/10," + "x" * 10_001
    rows[20] = "s20,https://example.com/20,N/A"
    rows[30] = "s30,https://example.com/30," + "y" * 10_000  # at the limit: fine
    (tmp_path / "links.csv").write_text("slug,url,description\n" + "\n".join(rows) + "\n")
    result = validate(read_sources([tmp_path / "links.csv"]), now=NOW)
    found = [(p.provenance.row, p.constant, p.field) for p in result.problems if p.provenance]
    assert found == [(12, "INVALID_REQUEST", "description"), (22, "INVALID_FIELD", "description")]
    assert "10,001 characters" in result.problems[0].message


def test_duplicates_across_files_with_and_without_empty_slugs(tmp_path: Path) -> None:
    """Files whose every row has a slug and a file with rows without one, a slug
    repeated in another case within a file and across files: each repeat names the
    first row where it was declared, whichever files it spans."""
    (tmp_path / "a.csv").write_text(
        "url,slug\nhttps://e.com/1,one\nhttps://e.com/2,\nhttps://e.com/3,Two\n"
        "https://e.com/4,\nhttps://e.com/5,ONE\n",
        "utf-8",
    )
    (tmp_path / "b.csv").write_text("url,slug\nhttps://e.com/6,two\nhttps://e.com/7,three\n")
    (tmp_path / "c.csv").write_text("url,slug\nhttps://e.com/8,Three\nhttps://e.com/9,four\n")
    paths = [tmp_path / name for name in ("a.csv", "b.csv", "c.csv")]
    result = validate(read_sources(paths), now=NOW)
    got = [
        (Path(p.provenance.source).name, p.provenance.row, p.message.split(";")[0])
        for p in result.problems
        if p.provenance is not None
    ]
    assert got == [
        ("a.csv", 6, "(default domain)/one is declared twice"),
        ("b.csv", 2, "(default domain)/two is declared twice"),
        ("c.csv", 2, "(default domain)/three is declared twice"),
    ]
    firsts = [p.message.split("; first at ")[1] for p in result.problems]
    a, b = str(tmp_path / "a.csv"), str(tmp_path / "b.csv")
    assert firsts == [f"{a}, row 2", f"{a}, row 4", f"{b}, row 3"]
    assert result.invalid == frozenset({4, 5, 7})
