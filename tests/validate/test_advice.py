"""Every "what to change" is tested against the rule it explains: a bad
value, the advice applied to it (``linksync.validate.suggest`` for the values it can
name, the advice's own words otherwise), and the validator (``linksync.rules``, which
the sandbox applies too) must accept the result; the row's message names the
suggestion ("use `black-friday`") and the value itself is never changed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from linksync import rules
from linksync.errors.advice import ADVICE
from linksync.model import LinkSpec, Severity
from linksync.rules.timestamps import parse_iso
from linksync.sources import read_sources
from linksync.sources.normalize import normalize_expiry
from linksync.ui.fixes import fix_for
from linksync.validate import validate
from linksync.validate.suggest import (
    suggest_domain,
    suggest_expiry,
    suggest_slug,
    suggest_tag,
    suggest_url,
)

NOW = datetime(2026, 6, 1, tzinfo=UTC)
GOOD = LinkSpec(url="https://example.com/a", slug="fine", managed=frozenset({"url", "slug"}))


def _errors(spec: LinkSpec) -> list[tuple[str, str]]:
    return [(p.constant, p.message) for p in validate([spec], now=NOW).errors]


def _with(field: str, value: Any) -> LinkSpec:
    return replace(GOOD, **{field: value}, managed=GOOD.managed | {field})


#: (constant, field, bad value, the suggestion expected).
SUGGESTED: list[tuple[str, str, Any, Any]] = [
    ("INVALID_SLUG", "slug", "black friday", "black-friday"),
    ("INVALID_SLUG", "slug", "Summer_Sale", "Summer-Sale"),  # the rule ignores case
    ("INVALID_SLUG", "slug", "--spring--sale--", "spring-sale"),
    ("INVALID_SLUG", "slug", "café crème", "cafe-creme"),
    ("INVALID_SLUG", "slug", "sale\u200b2026", "sale2026"),
    ("INVALID_SLUG", "slug", "x" * 2049, "x" * 2048),
    ("RESERVED_SLUG", "slug", "docs", "docs-link"),
    ("INVALID_SLUG", "slug", "API!", "API-link"),  # cleaned, then reserved
    ("INVALID_URL", "url", "example.com/spring", "https://example.com/spring"),
    ("INVALID_URL", "url", "www.example.com", "https://www.example.com"),
    ("INVALID_URL", "url", " https://example.com/a ", "https://example.com/a"),
    ("INVALID_URL", "url", "https://example.com/a b", "https://example.com/a%20b"),
    ("INVALID_URL", "url", "https://exa\u200bmple.com/", "https://example.com/"),
    ("INVALID_URL", "apple", "apps.apple.com/app/id1", "https://apps.apple.com/app/id1"),
    ("INVALID_REQUEST", "tags", ("t" * 130,), ("t" * 100,)),
    ("INVALID_REQUEST", "tags", ("spring\nsale",), ("spring sale",)),
    ("INVALID_FIELD", "domain", "https://go.example.com/", "go.example.com"),
    ("INVALID_EXPIRY", "expires_at", "31/03/2027 23:59", "2027-03-31 23:59"),
    ("INVALID_EXPIRY", "expires_at", "25.12.2027", "2027-12-25"),
]


def _suggest(field: str, value: Any) -> Any:
    if field == "tags":
        return tuple(suggest_tag(t) or t for t in value)
    fn: dict[str, Callable[[str], str | None]] = {
        "slug": suggest_slug,
        "url": suggest_url,
        "apple": suggest_url,
        "domain": suggest_domain,
        "expires_at": suggest_expiry,
    }
    return fn[field](value)


@pytest.mark.parametrize(
    "constant,field,bad,want", SUGGESTED, ids=[f"{c}-{i}" for i, (c, *_) in enumerate(SUGGESTED)]
)
def test_the_suggestion_passes_the_validator(
    constant: str, field: str, bad: Any, want: Any
) -> None:
    errors = _errors(_with(field, bad))
    assert [c for c, _ in errors] == [constant]
    suggested = _suggest(field, bad)
    assert suggested == want
    if field == "expires_at":
        suggested = normalize_expiry(suggested)  # as the reader writes what is typed
    assert _errors(_with(field, suggested)) == []
    shown = want[0] if field == "tags" else want
    if len(str(shown)) < 200:
        assert f"use `{shown}`" in errors[0][1] or f"as `{shown}`" in errors[0][1]


@pytest.mark.parametrize(
    "field,value",
    [
        ("slug", "!!!"),  # nothing left
        ("url", "mailto:someone@example.com"),  # another scheme: no guess
        ("url", "not a url"),
        ("expires_at", "03/04/2027"),  # April 3 or March 4: only the user knows
        ("expires_at", "2020-01-01T00:00:00Z"),  # in the past: no date is near
    ],
)
def test_no_suggestion_when_none_is_near(field: str, value: str) -> None:
    errors = _errors(_with(field, value))
    assert errors and all("use `" not in m for _, m in errors)
    assert _suggest(field, value) is None


def test_a_suggestion_is_never_applied(tmp_path: Path) -> None:
    path = tmp_path / "a.csv"
    path.write_text("slug,url\nblack friday,https://example.com/a\n", encoding="utf-8")
    result = validate(read_sources([path]), now=NOW)
    assert [s.slug for s in result.specs] == ["black friday"]
    assert result.invalid and "use `black-friday`" in result.errors[0].message


# --- the advice texts themselves, against the rules they state ----------------------


def test_slug_advice_states_the_services_rule() -> None:
    for text in (ADVICE["INVALID_SLUG"], fix_for("INVALID_SLUG")):
        assert "- and _" not in text and "no _" in text
        assert "spring-sale-2026" in text
    assert rules.check_slug("spring-sale-2026") is None  # the example passes
    assert rules.check_slug("spring_sale") == "INVALID_SLUG"  # what it excludes fails
    assert rules.check_slug("spring sale") == "INVALID_SLUG"
    assert rules.check_slug("spring--sale") == "INVALID_SLUG"  # "single hyphens"


def test_expiry_advice_example_is_a_valid_future_expiry() -> None:
    assert "2030-12-31 23:59" in ADVICE["INVALID_EXPIRY"]
    when = rules.parse_expiry(normalize_expiry("2030-12-31 23:59"), NOW)
    assert isinstance(when, datetime)


def test_ambiguous_time_advice_example_names_the_second_occurrence() -> None:
    assert "2026-11-01T01:30-05:00" in ADVICE["AMBIGUOUS_TIME"]
    assert parse_iso("2026-11-01T01:30-05:00") == datetime(2026, 11, 1, 6, 30, tzinfo=UTC)


def test_url_advice_applied_passes() -> None:
    assert "https://" in ADVICE["INVALID_URL"] and "https://" in fix_for("INVALID_URL")
    assert rules.check_url("example.com/a") == "INVALID_URL"
    assert rules.check_url("https://" + "example.com/a") is None


# --- file-level advice, applied through the reader ----------------------------------


def _problems(tmp_path: Path, text: str, **options: Any) -> list[tuple[str, Severity]]:
    path = tmp_path / "a.csv"
    path.write_text(text, encoding="utf-8")
    batch = read_sources([path], **options)
    return [(p.constant, p.severity) for p in validate(batch, now=NOW).problems]


def test_missing_url_column_advice_applied(tmp_path: Path) -> None:
    assert "Destination URL" in ADVICE["MISSING_URL_COLUMN"]
    assert "--map HEADER=url" in ADVICE["MISSING_URL_COLUMN"]
    bad = "Where\nhttps://example.com/a\n"
    assert ("MISSING_URL_COLUMN", Severity.ERROR) in _problems(tmp_path, bad)
    assert _problems(tmp_path, bad.replace("Where", "Destination URL")) == []
    assert _problems(tmp_path, bad, mapping={"Where": "url"}) == []


def test_unknown_and_conflicting_column_advice_applied(tmp_path: Path) -> None:
    unknown = "slug,url,Colour\na,https://example.com/a,red\n"
    assert [c for c, _ in _problems(tmp_path, unknown)] == ["UNKNOWN_COLUMN"]
    assert "--map HEADER=FIELD" in ADVICE["UNKNOWN_COLUMN"]
    assert _problems(tmp_path, unknown, mapping={"Colour": "description"}) == []
    assert _problems(tmp_path, unknown, mapping={"Colour": "ignore"}) == []
    both = "url,Destination URL,slug\nhttps://e.com/a,https://e.com/b,a\n"
    assert [c for c, _ in _problems(tmp_path, both)] == ["CONFLICTING_COLUMNS"]
    assert "--map HEADER=ignore" in ADVICE["CONFLICTING_COLUMNS"]
    assert _problems(tmp_path, both, mapping={"Destination URL": "ignore"}) == []


def test_url_param_replaced_advice_applied(tmp_path: Path) -> None:
    text = "slug,url,utm_source\na,https://e.com/a?utm_source=x,news\n"
    assert [c for c, _ in _problems(tmp_path, text)] == ["URL_PARAM_REPLACED"]
    fixed = text.replace("?utm_source=x", "")  # "remove the parameter from the URL"
    assert _problems(tmp_path, fixed) == []


def test_missing_url_and_duplicate_advice_applied() -> None:
    assert "Fill in the destination URL" in ADVICE["MISSING_URL"]
    no_url = replace(GOOD, url=None)
    assert [c for c, _ in _errors(no_url)] == ["MISSING_URL"]
    assert _errors(replace(no_url, url="https://example.com/filled")) == []
    assert "change the slug on one" in ADVICE["DUPLICATE_IN_SOURCE"]
    twice = validate([GOOD, replace(GOOD, url="https://example.com/b")], now=NOW)
    assert [p.constant for p in twice.errors] == ["DUPLICATE_IN_SOURCE"]
    other = replace(GOOD, url="https://example.com/b", slug="fine-2")
    assert validate([GOOD, other], now=NOW).errors == ()


#: Every constant local validation and the readers give a row or a file, and the test
#: above that applies its advice: a new one needs its case here.
APPLIED = {
    "INVALID_SLUG": "test_the_suggestion_passes_the_validator",
    "RESERVED_SLUG": "test_the_suggestion_passes_the_validator",
    "INVALID_URL": "test_the_suggestion_passes_the_validator",
    "INVALID_REQUEST": "test_the_suggestion_passes_the_validator",
    "INVALID_FIELD": "test_the_suggestion_passes_the_validator",
    "INVALID_EXPIRY": "test_the_suggestion_passes_the_validator",
    "AMBIGUOUS_TIME": "test_ambiguous_time_advice_example_names_the_second_occurrence",
    "MISSING_URL": "test_missing_url_and_duplicate_advice_applied",
    "DUPLICATE_IN_SOURCE": "test_missing_url_and_duplicate_advice_applied",
    "MISSING_URL_COLUMN": "test_missing_url_column_advice_applied",
    "UNKNOWN_COLUMN": "test_unknown_and_conflicting_column_advice_applied",
    "CONFLICTING_COLUMNS": "test_unknown_and_conflicting_column_advice_applied",
    "URL_PARAM_REPLACED": "test_url_param_replaced_advice_applied",
}


def test_every_value_rule_constant_has_its_advice_applied() -> None:
    covered = {c for c, *_ in SUGGESTED} | set(APPLIED)
    assert set(APPLIED) <= set(ADVICE)
    assert covered == set(APPLIED)
    assert all(name in globals() for name in APPLIED.values())
