"""Results reports: csv, xlsx, json, jsonl, markdown and JUnit XML writers, the annotated
copy of a source spreadsheet, the end-of-run terminal summary, and plans for people
(``render_plan_text``, ``render_plan_markdown``).

    with ReportSet(["out.xlsx", "out.jsonl"]) as reports:
        for result in results:
            reports.write(result)
        reports.close(info)
    print(render_summary(reports.counts(), info, reports.paths, exit_code, meaning))

Each name is imported from its module when first asked for, and each writer's module
when a report of its format is opened (``linksync.report.writers``): a run that writes
a JSON report loads neither the xlsx, markdown and JUnit XML writers nor the QR codes.

Layer: beside ``config``, above ``sync``. It may import sync, validate, sources, api, logs
and the lowest layer (errors, model, rules, safe), never config, export, the pipeline or
a front end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what editors and type checkers see; imported on first use
    from linksync.report.annotate import ANNOTATION_HEADERS, write_annotated
    from linksync.report.base import ReportOptions
    from linksync.report.cells import report_row
    from linksync.report.plans import render_plan_markdown, render_plan_text
    from linksync.report.summary import count_results, render_summary
    from linksync.report.writers import WRITERS, ReportSet, open_writer, report_format

#: Where each public name lives.
_HOMES = {
    **dict.fromkeys(("ANNOTATION_HEADERS", "write_annotated"), "annotate"),
    "ReportOptions": "base",
    "report_row": "cells",
    **dict.fromkeys(("render_plan_markdown", "render_plan_text"), "plans"),
    **dict.fromkeys(("count_results", "render_summary"), "summary"),
    **dict.fromkeys(("WRITERS", "ReportSet", "open_writer", "report_format"), "writers"),
}

__all__ = [
    "ANNOTATION_HEADERS",
    "WRITERS",
    "ReportOptions",
    "ReportSet",
    "count_results",
    "open_writer",
    "render_plan_markdown",
    "render_plan_text",
    "render_summary",
    "report_format",
    "report_row",
    "write_annotated",
]


def __getattr__(name: str) -> Any:
    from importlib import import_module

    if name in _HOMES:
        return getattr(import_module(f"linksync.report.{_HOMES[name]}"), name)
    raise AttributeError(f"module 'linksync.report' has no attribute {name!r}")
