"""The JSON Schema of link files: stable, committed, and right about real documents."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from linksync.cli import cli
from linksync.export.schema import EXPIRY_PATTERN, render_schema, reserved_pattern, slug_pattern
from linksync.rules import RESERVED_SLUGS, SLUG_RE, check_slug
from linksync.rules.timestamps import parse_iso
from linksync.sources.normalize import normalize_expiry

ROOT = Path(__file__).resolve().parents[2]
Errors = Callable[[Any], list[str]]

VALID_DOCUMENTS: list[tuple[str, Any]] = [
    (
        "architecture example",
        {
            "defaults": {
                "domain": "go.example.com",
                "tags": ["spring-2026"],
                "utm": {"source": "newsletter", "medium": "email", "campaign": "spring"},
            },
            "links": [
                {
                    "slug": "spring-sale",
                    "url": "https://example.com/sale",
                    "description": "Spring sale landing page",
                    "tags": ["sale"],
                    "expiresAt": "2026-12-31T23:59:59Z",
                    "apple": "https://apps.apple.com/app/id1",
                    "google": "https://play.google.com/store/apps/details?id=x",
                }
            ],
        },
    ),
    (
        "mapping keyed by slug, clearing fields",
        {
            "links": {
                "007": {"url": "http://example.com/bond", "description": None, "tags": []},
                "Promo-2": {"url": "HTTPS://example.com", "expires_at": "2027-01-01T00:00:00.000Z"},
            }
        },
    ),
    ("bare list", [{"url": "https://example.com"}, {"url": "https://e.com/x", "slug": "x1"}]),
    (
        "secrets by reference, fields and links left to people",
        {
            "defaults": {
                "password": {"env": "TEAM_PASSWORD"},
                "ignore_changes": ["tags", "description"],
                "ignore": ["promo-*", {"tag": "hand-made"}, "tag:frozen"],
            },
            "links": {
                "vip": {"url": "https://e.com/vip", "password": {"file": "secrets/vip.txt"}},
                "open": {"url": "https://e.com/open", "password": None, "ignore_changes": []},
                "clear": {"url": "https://e.com/c", "password": "hunter2"},
            },
        },
    ),
    ("empty links", {"links": []}),
    ("null defaults", {"defaults": None, "links": {}}),
    ("anchors under x-", {"x-common": {"domain": "go.example.com"}, "links": []}),
    (
        "reader extras",
        {
            "defaults": {
                "domain": "go.example.com",
                "description": "Spring campaign",
                "expires_at": "2026-06-30T00:00:00Z",
                "utm": {"utm_source": "news", "medium": None},
                "tags": "spring; sale",
            },
            "links": {
                "short": "https://example.com/a",
                "long": {"url": "https://example.com/b", "utm": {"campaign": "b"}},
            },
        },
    ),
]

INVALID_DOCUMENTS: list[tuple[str, Any, str]] = [
    ("no url", {"links": [{"slug": "a"}]}, "missing required 'url'"),
    ("bad scheme", {"links": [{"url": "ftp://example.com"}]}, "does not match"),
    ("space in url", [{"url": "https://example.com/a b"}], "does not match"),
    ("bad slug", {"links": [{"url": "https://e.com", "slug": "a--b"}]}, "does not match"),
    ("reserved slug", [{"url": "https://e.com", "slug": "API"}], "matches a 'not' schema"),
    ("reserved key", {"links": {"docs": {"url": "https://e.com"}}}, "matches a 'not' schema"),
    ("typo", [{"url": "https://e.com", "descripton": "x"}], "unexpected property 'descripton'"),
    ("tags as number list", [{"url": "https://e.com", "tags": [1]}], "matches no anyOf"),
    ("url value not a url", {"links": {"a": "example.com"}}, "matches no anyOf"),
    ("unknown utm key on link", [{"url": "https://e.com", "utm": {"src": "x"}}], "unexpected"),
    ("url in defaults", {"defaults": {"url": "https://e.com"}, "links": []}, "unexpected"),
    ("unquoted number slug", [{"url": "https://e.com", "slug": 7}], "not of type"),
    ("not a date", [{"url": "https://e.com", "expiresAt": "31/12/2026"}], "does not match"),
    ("date and hour", [{"url": "https://e.com", "expiresAt": "2026-12-31T10"}], "does not match"),
    (
        "both spellings",
        [{"url": "https://e.com", "expiresAt": "2026-12-31T00:00:00Z", "expires_at": None}],
        "matches a 'not' schema",
    ),
    ("unknown default", {"defaults": {"owner": "me"}, "links": []}, "unexpected"),
    ("unknown utm", {"defaults": {"utm": {"src": "x"}}, "links": []}, "unexpected"),
    ("slug in keyed link", {"links": {"a": {"url": "https://e.com", "slug": "b"}}}, "slug"),
    ("no links", {"defaults": {}}, "missing required 'links'"),
    ("null links", {"defaults": None, "links": None}, "matches no anyOf"),
    (
        "password from an unknown place",
        [{"url": "https://e.com", "password": {"vault": "vip"}}],
        "matches no anyOf",
    ),
    ("env not a name", [{"url": "https://e.com", "password": {"env": "1X"}}], "matches no"),
    ("unknown ignored field", [{"url": "https://e.com", "ignore_changes": ["slug"]}], "not one"),
    ("ignore on a link", [{"url": "https://e.com", "ignore": ["promo-*"]}], "unexpected"),
    ("ignore entry", {"defaults": {"ignore": ["promo_*"]}, "links": []}, "matches no anyOf"),
    ("misspelt links", {"link": [{"url": "https://e.com"}]}, "unexpected property 'link'"),
    ("scalar", "https://e.com", "matches no anyOf"),
]


@pytest.mark.parametrize(("name", "doc"), VALID_DOCUMENTS, ids=[n for n, _ in VALID_DOCUMENTS])
def test_valid_documents(name: str, doc: Any, schema_errors: Errors) -> None:
    assert schema_errors(doc) == []


@pytest.mark.parametrize(
    ("name", "doc", "why"), INVALID_DOCUMENTS, ids=[n for n, _, _ in INVALID_DOCUMENTS]
)
def test_invalid_documents(name: str, doc: Any, why: str, schema_errors: Errors) -> None:
    errors = schema_errors(doc)
    assert errors, f"{name} passed"
    assert why in " ".join(errors)


@pytest.mark.parametrize(
    "slug",
    ["a", "007", "Spring-Sale-2026", "a-b-c", "a--b", "-a", "a-", "", "a_b", "é", "a b", "a\n"],
)
def test_slug_pattern_agrees_with_rules(
    slug: str, pattern_matches: Callable[[str, str], bool]
) -> None:
    assert pattern_matches(slug_pattern(), slug) == bool(SLUG_RE.fullmatch(slug))


@pytest.mark.parametrize(
    "value",
    [
        "2026-12-31T23:59:59Z",
        "2026-12-31T23:59:59.123456789+02:00",
        "2026-12-31 23:59",
        "2026-12-31t23:59:59z",
        "2026-12-31T23:59:59+0200",
        "2026-12-31",
        "2026-12-31T24",
        "31/12/2026",
        "2026-12-31T23:59:59 Z",
        "tomorrow",
    ],
)
def test_expiry_pattern_agrees_with_the_readers(
    value: str, pattern_matches: Callable[[str, str], bool]
) -> None:
    read = normalize_expiry(value)
    readable = parse_iso(read) is not None
    assert pattern_matches(EXPIRY_PATTERN, value) == readable


def test_reserved_pattern_agrees_with_rules() -> None:
    for word in sorted(RESERVED_SLUGS):
        for variant in (word, word.upper(), word.capitalize()):
            assert re.search(reserved_pattern(), variant)
            assert check_slug(variant) == "RESERVED_SLUG"
    assert not re.search(reserved_pattern(), "apis")
    assert not re.search(reserved_pattern(), "my-api")


def test_committed_sample_schema_is_current() -> None:
    committed = (ROOT / "samples" / "links.schema.json").read_text(encoding="utf-8")
    assert committed == render_schema(), "run: linksync schema samples/links.schema.json"


def test_render_is_stable_and_sorted() -> None:
    text = render_schema()
    assert text == render_schema()
    assert text.endswith("}\n")
    assert '"$schema": "https://json-schema.org/draft/2020-12/schema"' in text


def test_schema_command_prints_and_writes(tmp_path: Path) -> None:
    runner = CliRunner()
    printed = runner.invoke(cli, ["schema"])
    assert printed.exit_code == 0, printed.output
    assert printed.stdout == render_schema()
    out = tmp_path / "nested" / "links.schema.json"
    written = runner.invoke(cli, ["schema", str(out)])
    assert written.exit_code == 0, written.output
    assert out.read_text(encoding="utf-8") == render_schema()
    assert str(out) in written.stderr


def test_sample_yaml_tree_is_valid(schema_errors: Errors) -> None:
    files = sorted((ROOT / "samples" / "links").glob("**/*.y*ml"))
    if not files:
        pytest.skip("samples/links/ has no YAML files yet")
    for path in files:
        doc = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
        assert schema_errors(_typed(doc)) == [], path


def _typed(value: Any) -> Any:
    """BaseLoader keeps every scalar a string (as linksync's reader does); turn YAML's
    ``null``/``~`` back into None so the schema sees what the reader sees."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    if value in ("null", "~", "Null", "NULL", ""):
        return None
    return value
