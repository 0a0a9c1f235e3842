"""Hand-made results covering every action and status, and awkward cell contents."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest

from linksync.model import Action, RowResult, RunInfo, Status
from linksync.report import ReportOptions, ReportSet
from linksync.report.summary import Counts

SECRET = "sk_live_0123456789abcdef"


def make_results() -> list[RowResult]:
    return [
        RowResult(
            Action.CREATE,
            Status.OK,
            source="campaign.xlsx",
            sheet="Spring",
            row=3,
            domain="go.example.com",
            slug="spring-sale",
            short_url="https://go.example.com/spring-sale",
            url="https://example.com/sale?utm_source=news",
            http_status=201,
            request_id="req_1",
            attempts=1,
        ),
        RowResult(
            Action.UPDATE,
            Status.OK,
            source="campaign.xlsx",
            sheet="Spring",
            row=4,
            domain="go.example.com",
            slug="spring-faq",
            short_url="https://go.example.com/spring-faq",
            url="https://example.com/faq",
            changed_fields=("description", "tags"),
            http_status=200,
            request_id="req_2",
            attempts=2,
        ),
        RowResult(
            Action.CREATE,
            Status.FAILED,
            source="campaign.xlsx",
            sheet="Spring",
            row=5,
            domain="go.example.com",
            slug="bad|slug",
            url='=HYPERLINK("http://evil")',
            http_status=400,
            error_constant="INVALID_URL",
            error_code=40001,
            message="Destination URL malformed | line one\nline two",
            request_id="req_3",
            attempts=1,
        ),
        RowResult(
            Action.INVALID,
            Status.INVALID,
            source="campaign.xlsx",
            sheet="Autumn",
            row=2,
            slug="@mention",
            url="+33 1 23",
            error_constant="MISSING_URL",
            message="-row has no destination URL",
        ),
        RowResult(
            Action.UNCHANGED,
            Status.OK,
            source="campaign.xlsx",
            sheet="Autumn",
            row=3,
            domain="go.example.com",
            slug="autumn",
            short_url="https://go.example.com/autumn",
            url="https://example.com/autumn",
        ),
        RowResult(
            Action.DELETE,
            Status.SKIPPED,
            domain="go.example.com",
            slug="old-link",
            error_constant="NOT_ATTEMPTED",
            message="\tstopped after FORBIDDEN\x01",
        ),
        RowResult(
            Action.CREATE,
            Status.FAILED,
            source="links/b.yaml",
            row=12,
            domain="go.example.com",
            slug="dup",
            url="https://example.com/x",
            http_status=409,
            error_constant="SLUG_EXISTS",
            error_code=40901,
            message="Slug already used on the chosen domain",
            request_id="req_4",
            attempts=1,
        ),
    ]


def make_info(**kw: object) -> RunInfo:
    base: dict[str, object] = {
        "target": "https://api.example.com/v1",
        "mode": "upsert",
        "started_at": "2026-03-01T10:00:00Z",
        "duration_s": 12.5,
        "requests": 9,
        "requests_by_kind": {"create": 3, "list": 2, "update": 4},
        "rate_limit_waits": 1,
        "run_id": "run-42",
    }
    base.update(kw)
    return RunInfo(**base)  # type: ignore[arg-type]


@pytest.fixture
def results() -> list[RowResult]:
    return make_results()


@pytest.fixture
def info() -> RunInfo:
    return make_info()


def write_reports(
    paths: Iterable[str | Path],
    results: Iterable[RowResult],
    info: RunInfo,
    *,
    options: ReportOptions | None = None,
    notes: Sequence[str] = (),
    refused_reason: str | None = None,
) -> tuple[list[Path], Counts]:
    """Write ``results`` to every report of ``paths`` in one call."""
    with ReportSet(paths, options) as reports:
        for result in results:
            reports.write(result)
        written = reports.close(info, notes=notes, refused_reason=refused_reason)
        return written, reports.counts()
