"""Headers marketers write in their own sheets: each read as the field it means, on
the command line and on the local page's column step alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from linksync.cli import cli
from linksync.sources import read_sources
from linksync.sources.columns import match_columns
from linksync.sources.preview import preview

MARKETER_HEADERS = [
    ("Campaign tags", "tags"),
    ("Tags (comma separated)", "tags"),
    ("Tags, comma-separated", "tags"),
    ("Short link ending", "slug"),
    ("Custom back-half", "slug"),
    ("Expiration", "expires_at"),
]


@pytest.mark.parametrize("header,field", MARKETER_HEADERS)
def test_each_header_feeds_its_field(header: str, field: str) -> None:
    match = match_columns(["Destination URL", header])
    assert dict(match.fields) == {"url": 0, field: 1}
    assert match.unknown == ()


def test_existing_neighbours_keep_their_fields() -> None:
    """The new words take nothing from the UTM campaign or the short link columns (a
    bare "Campaign" is a guess of utm_campaign, not read until mapped)."""
    match = match_columns(["URL", "Campaign", "Campaign tags", "Short link", "Short link ending"])
    assert dict(match.fields) == {"url": 0, "tags": 2, "short_url": 3, "slug": 4}
    assert match.held == ((1, "utm_campaign"),)
    chosen = match_columns(["URL", "Campaign", "Campaign tags"], {"Campaign": "utm_campaign"})
    assert dict(chosen.fields) == {"url": 0, "utm_campaign": 1, "tags": 2}


def _sheet(tmp_path: Path) -> Path:
    path = tmp_path / "campaign.csv"
    path.write_text(
        "Destination URL,Short link ending,Campaign tags,Expiration\n"
        'https://example.com/spring,spring-sale,"spring, email",2031-03-31T23:59:00Z\n',
        encoding="utf-8",
    )
    return path


def test_validate_reads_every_column_without_a_mapping(tmp_path: Path) -> None:
    path = _sheet(tmp_path)
    res = CliRunner().invoke(cli, ["validate", str(path), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert (doc["rows"], doc["warnings"]) == (1, 0), doc["problems"]
    (spec,) = read_sources([path]).specs
    assert (spec.slug, spec.tags, spec.expires_at) == (
        "spring-sale",
        ("spring", "email"),
        "2031-03-31T23:59:00.000Z",
    )


def test_the_page_shows_campaign_tags_mapped(tmp_path: Path) -> None:
    (view,) = preview([_sheet(tmp_path)], None)
    fields = {c.header: c.field for c in view.columns}
    assert fields == {
        "Destination URL": "url",
        "Short link ending": "slug",
        "Campaign tags": "tags",
        "Expiration": "expires_at",
    }
    assert view.unmapped == ()
