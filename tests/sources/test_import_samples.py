"""Other products' CSV exports (samples/imports/) read with no hand-written mapping."""

from __future__ import annotations

from pathlib import Path

import pytest

from linksync.sources import read_sources

IMPORTS = Path(__file__).resolve().parents[2] / "samples" / "imports"

# (domain, slug, url, description, tags) per row, in file order.
Row = tuple[str, str, str, str | None, tuple[str, ...] | None]

EXPECTED: dict[str, list[Row]] = {
    "bitly.csv": [
        (
            "go.example.com",
            "spring-sale",
            "https://example.com/sale?ref=bitly",
            "Spring sale landing page",
            ("sale", "spring-2026"),
        ),
        (
            "go.example.com",
            "webinar",
            "https://example.com/events/webinar-march",
            "March webinar sign-up",
            ("events",),
        ),
        (
            "bit.ly",
            "3Xa9kLm",
            "https://example.com/blog/2026/pricing-update",
            "Pricing update (blog)",
            None,
        ),
    ],
    "dub.csv": [
        (
            "dub.sh",
            "spring-sale",
            "https://example.com/sale?ref=dub",
            None,
            ("sale", "spring-2026"),
        ),
        ("go.example.com", "careers", "https://example.com/jobs", None, ("hiring",)),
        (
            "go.example.com",
            "docs-v2",
            "https://docs.example.com/v2/getting-started",
            None,
            ("docs", "product"),
        ),
    ],
    "shortio.csv": [
        ("go.example.com", "get-app", "https://example.com/app", "Get the app", ("app", "mobile")),
        (
            "go.example.com",
            "spring-sale",
            "https://example.com/sale?ref=shortio",
            "Spring sale landing page",
            ("sale",),
        ),
        (
            "go.example.com",
            "nl-feb",
            "https://example.com/newsletter/2026-02",
            "February newsletter",
            ("newsletter",),
        ),
    ],
    "shlink.csv": [
        (
            "go.example.com",
            "spring-sale",
            "https://example.com/sale?ref=shlink",
            "Spring sale landing page",
            ("sale", "spring-2026"),
        ),
        ("go.example.com", "status", "https://status.example.com/", "Service status", ("ops",)),
        (
            "s.test",
            "k3Yw9",
            "https://example.com/podcast/episode-42",
            "Podcast episode 42",
            ("podcast", "audio"),
        ),
    ],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_import_sample_reads_into_the_right_fields(name: str) -> None:
    batch = read_sources([IMPORTS / name])
    assert batch.problems == ()
    assert batch.unknown_columns == ()
    got = [(s.domain, s.slug, s.url, s.description, s.tags) for s in batch.specs]
    assert got == EXPECTED[name]


def test_shortio_sample_reads_expiry_and_app_targets() -> None:
    [app, *_] = read_sources([IMPORTS / "shortio.csv"]).specs
    assert app.expires_at == "2026-12-31T23:59:59.000Z"
    assert app.apple == "https://apps.apple.com/app/id123456"
    assert app.google == "https://play.google.com/store/apps/details?id=com.example"


def test_every_sample_is_covered_and_cited() -> None:
    assert sorted(p.name for p in IMPORTS.glob("*.csv")) == sorted(EXPECTED)
    readme = (IMPORTS / "README.md").read_text(encoding="utf-8")
    for name in EXPECTED:
        assert name in readme
