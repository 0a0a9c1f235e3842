"""Export: files that read back as the same links, quoted where YAML would coerce."""

from __future__ import annotations

import csv
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from openpyxl import load_workbook

from linksync.errors import ConfigError
from linksync.export import (
    TABLE_COLUMNS,
    export_links,
    group_links,
    render_csv,
    render_yaml,
    write_export,
)
from linksync.model import RemoteLink

NOW = datetime(2026, 3, 1, tzinfo=UTC)
Errors = Callable[[Any], list[str]]

LINKS = [
    RemoteLink(
        "lnk.test",
        "spring-sale",
        "https://example.com/sale?utm_source=news&x=1#top",
        description="Spring sale: 20% off # today",
        tags=("sale", "spring-2026"),
        expires_at="2026-12-31T23:59:59.000Z",
        apple="https://apps.apple.com/app/id1",
        google="https://play.google.com/store/apps/details?id=x",
    ),
    RemoteLink("lnk.test", "007", "https://example.com/bond", tags=("no", "0123", "2025-12-31")),
    RemoteLink("lnk.test", "vip", "https://example.com/vip", has_password=True),
    RemoteLink("go.example.com", "Promo", "https://example.com/promo", tags=("yes",)),
    RemoteLink(
        "go.example.com", "old", "https://example.com/old", expires_at="2020-01-01T00:00:00Z"
    ),
]


class FakeLister:
    """The one client method export uses, over a list (filters as the service does)."""

    def __init__(self, links: list[RemoteLink]) -> None:
        self.links = links
        self.calls: list[tuple[str | None, str | None]] = []

    async def iter_links(
        self, search: str | None = None, tag: str | None = None, domain: str | None = None
    ) -> AsyncIterator[RemoteLink]:
        self.calls.append((tag, domain))
        for link in self.links:
            if (domain is None or link.domain == domain) and (tag is None or tag in link.tags):
                yield link


def _load(text: str) -> Any:
    return yaml.safe_load(text)


def test_single_domain_file_is_a_mapping_keyed_by_slug(schema_errors: Errors) -> None:
    text = render_yaml([ln for ln in LINKS if ln.domain == "lnk.test"], now=NOW)
    assert text.startswith("# yaml-language-server: $schema=links.schema.json\n")
    assert "Passwords cannot be exported" in text
    assert "#   lnk.test/vip" in text
    assert "add `password: {env: NAME}` to a link to manage it" in text
    doc = _load(text)
    assert doc["defaults"] == {"domain": "lnk.test"}
    assert list(doc["links"]) == ["007", "spring-sale", "vip"]
    assert doc["links"]["spring-sale"] == {
        "url": "https://example.com/sale?utm_source=news&x=1#top",
        "description": "Spring sale: 20% off # today",
        "tags": ["sale", "spring-2026"],
        "expiresAt": "2026-12-31T23:59:59.000Z",
        "apple": "https://apps.apple.com/app/id1",
        "google": "https://play.google.com/store/apps/details?id=x",
    }
    assert doc["links"]["vip"] == {"url": "https://example.com/vip"}
    assert schema_errors(doc) == []


def test_strings_yaml_would_coerce_stay_strings() -> None:
    text = render_yaml(LINKS, now=NOW)
    for loader in (yaml.SafeLoader, yaml.BaseLoader):
        doc = yaml.load(text, Loader=loader)
        bond = next(ln for ln in doc["links"] if ln["slug"] == "007")
        assert bond["tags"] == ["0123", "2025-12-31", "no"]
        promo = next(ln for ln in doc["links"] if ln["slug"] == "Promo")
        assert promo["tags"] == ["yes"]
    assert "'007'" in text and "'no'" in text and "'0123'" in text


def test_mixed_domains_make_a_sorted_list_and_past_expiry_is_left_out(
    schema_errors: Errors,
) -> None:
    doc = _load(render_yaml(LINKS, now=NOW))
    assert "defaults" not in doc
    keys = [(ln["domain"], ln["slug"]) for ln in doc["links"]]
    assert keys == [
        ("go.example.com", "old"),
        ("go.example.com", "Promo"),
        ("lnk.test", "007"),
        ("lnk.test", "spring-sale"),
        ("lnk.test", "vip"),
    ]
    assert "expiresAt" not in doc["links"][0]
    assert schema_errors(doc) == []


def test_write_export_split_by_domain(tmp_path: Path) -> None:
    info = write_export(LINKS, tmp_path / "links", split_by="domain", now=NOW)
    assert [p.name for p in info.files] == ["go.example.com.yaml", "lnk.test.yaml"]
    assert info.links == 5
    assert info.with_password == ("lnk.test/vip",)
    assert any("go.example.com/old" in w and "past" in w for w in info.warnings)
    go = _load(info.files[0].read_text())
    assert go["defaults"]["domain"] == "go.example.com"
    assert sorted(go["links"]) == ["Promo", "old"]


def test_split_by_tag_declares_each_link_once(tmp_path: Path) -> None:
    info = write_export(LINKS, tmp_path, split_by="tag", now=NOW)
    names = [p.name for p in info.files]
    assert names == ["0123.yaml", "sale.yaml", "untagged.yaml", "yes.yaml"]
    declared = []
    for path in info.files:
        links = _load(path.read_text())["links"]
        declared += [ln["slug"] for ln in links] if isinstance(links, list) else list(links)
    assert sorted(declared) == sorted(ln.slug for ln in LINKS)


def test_group_names_are_safe_and_unique_ignoring_case() -> None:
    links = [
        RemoteLink("d", "a", "https://e.com", tags=("Sale",)),
        RemoteLink("d", "b", "https://e.com", tags=("sale",)),
        RemoteLink("d", "c", "https://e.com", tags=("../etc/passwd",)),
    ]
    groups = group_links(links, "tag")
    assert list(groups) == ["etc_passwd", "Sale", "sale-2"]


def test_csv_uses_reader_columns_and_round_trips_values(tmp_path: Path) -> None:
    text = render_csv(LINKS, now=NOW)
    rows = list(csv.DictReader(text.splitlines()))
    assert list(rows[0]) == [h for h, _ in TABLE_COLUMNS]
    bond = next(r for r in rows if r["Slug"] == "007")
    assert bond["Tags"] == "0123, 2025-12-31, no"
    assert bond["Description"] == "" and bond["Has Password"] == ""
    vip = next(r for r in rows if r["Slug"] == "vip")
    assert vip["Has Password"] == "yes"
    spring = next(r for r in rows if r["Slug"] == "spring-sale")
    assert spring["Expires At"] == "2026-12-31T23:59:59.000Z"
    assert spring["iOS URL"] == "https://apps.apple.com/app/id1"


def test_xlsx_cells_are_strings(tmp_path: Path) -> None:
    out = tmp_path / "links.xlsx"
    info = write_export(LINKS, out, format="xlsx", now=NOW)
    assert info.files == (out,)
    wb = load_workbook(out, read_only=True)
    try:
        rows = [list(r) for r in wb["Links"].iter_rows(values_only=True)]
    finally:
        wb.close()  # a read-only workbook holds its file open until closed
    assert rows[0] == [h for h, _ in TABLE_COLUMNS]
    bond = next(r for r in rows if r[1] == "007")
    assert bond[1] == "007"  # not the number 7
    assert bond[4] == "0123, 2025-12-31, no"


def test_csv_warns_about_formula_like_and_separator_tags(tmp_path: Path) -> None:
    links = [RemoteLink("d", "f", "https://e.com", description="=1+2", tags=("a,b",))]
    info = write_export(links, tmp_path / "x.csv", format="csv", now=NOW)
    assert any("formula" in w for w in info.warnings)
    assert any("split when read back" in w for w in info.warnings)
    yaml_info = write_export(links, tmp_path / "x.yaml", now=NOW)
    assert yaml_info.warnings == ()


def test_empty_workspace_writes_an_empty_file(tmp_path: Path, schema_errors: Errors) -> None:
    info = write_export([], tmp_path / "links.yaml", now=NOW)
    assert info.links == 0
    doc = _load(info.files[0].read_text())
    assert doc == {"links": []}
    assert schema_errors(doc) == []


def test_out_directory_without_split_gets_links_file(tmp_path: Path) -> None:
    info = write_export(LINKS[:1], tmp_path, format="csv", now=NOW)
    assert info.files == (tmp_path / "links.csv",)


def test_bad_options_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown export format"):
        write_export(LINKS, tmp_path / "x", format="json")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="split-by"):
        write_export(LINKS, tmp_path / "x", split_by="owner")  # type: ignore[arg-type]
    afile = tmp_path / "file.yaml"
    afile.write_text("")
    with pytest.raises(ConfigError, match="needs a directory"):
        write_export(LINKS, afile, split_by="domain")


async def test_export_links_passes_filters_to_the_client(tmp_path: Path) -> None:
    lister = FakeLister(LINKS)
    info = await export_links(lister, tmp_path / "sale.yaml", tag="sale", domain="lnk.test")
    assert lister.calls == [("sale", "lnk.test")]
    assert info.links == 1
    assert list(_load(info.files[0].read_text())["links"]) == ["spring-sale"]
