"""The Excel report: a Summary sheet (first, active) and a Results sheet.

Written with xlsxwriter in ``constant_memory`` mode: Results rows go to disk as they
arrive. Worksheets keep the order they were added in, so Summary is added first and left
empty while Results streams; its rows are written on ``close``, when the counts are
known (in constant-memory mode each sheet only has to be written top to bottom, and
Summary's rows are all written then). Column widths and the autofilter range are also
set on close; they live outside the row data.

Every text cell is written with ``write_string`` (never ``write``), so formula-like text
stays text and keeps its exact value; short URLs become hyperlinks on purpose, up to
Excel's 65,530 links per sheet, plain text after that.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from linksync.model import RESULT_COLUMNS, RowResult, RunInfo, Status
from linksync.report.base import (
    Closing,
    ReportOptions,
    prepare_parent,
    remove_quietly,
    temp_path_for,
)
from linksync.report.cells import fit_cell, link_label, redact, report_row, where
from linksync.report.summary import Tally, run_title, safe_target

SUMMARY_SHEET = "Summary"
RESULTS_SHEET = "Results"

#: Excel's limit of rows in one worksheet, less the header row.
MAX_DATA_ROWS = 1_048_575

#: Excel's limit of hyperlinks in one worksheet, and of characters in one link.
MAX_LINKS_PER_SHEET = 65530
MAX_URL_CHARS = 2079

#: Excel's "Bad" and "Neutral" cell styles.
FAILED_FILL, FAILED_FONT = "#FFC7CE", "#9C0006"
SKIPPED_FILL, SKIPPED_FONT = "#FFEB9C", "#9C5700"
HEADER_FILL = "#1F4E78"

_MAX_WIDTH = 60
_SHORT_URL_COL = RESULT_COLUMNS.index("short_url")


def _is_link(value: str) -> bool:
    return (
        value.startswith(("https://", "http://"))
        and len(value) <= MAX_URL_CHARS
        and not any(ch.isspace() for ch in value)
    )


class _Widths:
    """Widest text seen per column, for column widths that fit."""

    def __init__(self, headers: Sequence[str]) -> None:
        # Room for the filter button beside each header.
        self.chars = [len(h) + 3 for h in headers]

    def see(self, col: int, text: str) -> None:
        n = len(text)
        if n > self.chars[col]:
            self.chars[col] = n

    def apply(self, ws: Any) -> None:
        for col, n in enumerate(self.chars):
            ws.set_column(col, col, min(n + 1, _MAX_WIDTH))


class XlsxWriter:
    def __init__(
        self,
        path: Path,
        options: ReportOptions | None = None,
        *,
        max_links: int = MAX_LINKS_PER_SHEET,
        max_rows: int = MAX_DATA_ROWS,
    ) -> None:
        self.path = path
        self.max_links = max_links
        self.max_rows = max_rows
        self.dropped = 0
        self.options = options or ReportOptions()
        self.tally = Tally()
        import xlsxwriter  # type: ignore[import-untyped]  # imported when an xlsx is asked for

        prepare_parent(path)
        self._tmp = temp_path_for(path)
        self._wb = xlsxwriter.Workbook(
            str(self._tmp),
            {
                "constant_memory": True,
                "strings_to_urls": False,
                "strings_to_formulas": False,
                "strings_to_numbers": False,
            },
        )
        fmt = self._wb.add_format
        self._f_header = fmt(
            {"bold": True, "font_color": "#FFFFFF", "bg_color": HEADER_FILL, "bottom": 1}
        )
        self._f_link = fmt({"font_color": "#0563C1", "underline": 1})
        self._f_failed = fmt({"bg_color": FAILED_FILL, "font_color": FAILED_FONT})
        self._f_failed_link = fmt(
            {"bg_color": FAILED_FILL, "font_color": "#0563C1", "underline": 1}
        )
        self._f_skipped = fmt({"bg_color": SKIPPED_FILL, "font_color": SKIPPED_FONT})
        self._f_skipped_link = fmt(
            {"bg_color": SKIPPED_FILL, "font_color": "#0563C1", "underline": 1}
        )
        self._f_title = fmt({"bold": True, "font_size": 14})
        self._f_bold = fmt({"bold": True})
        self._f_warn = fmt({"bold": True, "font_color": FAILED_FONT})
        self._summary = self._wb.add_worksheet(SUMMARY_SHEET)
        self._results = self._wb.add_worksheet(RESULTS_SHEET)
        self._widths = _Widths(RESULT_COLUMNS)
        self._row = 0
        self._links = 0
        ws = self._results
        for col, name in enumerate(RESULT_COLUMNS):
            ws.write_string(0, col, name, self._f_header)
        ws.freeze_panes(1, 0)

    def write(self, result: RowResult) -> None:
        self.tally.add(result)
        if self._row >= self.max_rows:
            self.dropped += 1  # counted in the Summary; the rows are in csv/jsonl reports
            return
        self._row += 1
        r = self._row
        ws = self._results
        if result.status in (Status.FAILED, Status.INVALID):
            fill, link_fmt = self._f_failed, self._f_failed_link
        elif result.status == Status.SKIPPED:
            fill, link_fmt = self._f_skipped, self._f_skipped_link
        else:
            fill, link_fmt = None, self._f_link
        values = report_row(result, self.options.secrets)
        for col, name in enumerate(RESULT_COLUMNS):
            value = values[name]
            if value is None or value == "":
                if fill is not None:
                    ws.write_blank(r, col, None, fill)
            elif isinstance(value, str):
                text = fit_cell(value)
                self._widths.see(col, text)
                if col == _SHORT_URL_COL and self._links < self.max_links and _is_link(text):
                    self._links += 1
                    ws.write_url(r, col, text, link_fmt, text)
                else:
                    ws.write_string(r, col, text, fill)
            else:
                self._widths.see(col, str(value))
                ws.write_number(r, col, value, fill)

    def _write_summary(self, info: RunInfo, closing: Closing) -> None:
        ws = self._summary
        secrets = self.options.secrets
        counts = self.tally.counts()
        widths = [0, 0, 0, 0, 0, 0, 0, 0]
        r = 0

        def put(col: int, value: str | int | float, fmt: Any = None) -> None:
            if isinstance(value, str):
                text = fit_cell(redact(value, secrets))
                ws.write_string(r, col, text, fmt)
                widths[col] = max(widths[col], len(text))
            else:
                ws.write_number(r, col, value, fmt)
                widths[col] = max(widths[col], len(str(value)))

        title = self.options.title or f"linksync {run_title(counts, info)}"
        ws.write_string(r, 0, title, self._f_title)
        r += 2
        notes = closing.all_notes()
        if self.dropped:
            notes.append(
                f"Results sheet holds the first {self._row:,} rows (Excel's limit); "
                f"{self.dropped:,} more are counted here: write a .csv or .jsonl report for all"
            )
        for note in notes:
            put(0, note, self._f_warn)
            r += 1
        if notes:
            r += 1
        facts: list[tuple[str, str | int | float]] = [
            ("Target", safe_target(info.target)),
            ("Mode", info.mode),
            ("Dry run", "yes" if info.dry_run else "no"),
            ("Started at", info.started_at or ""),
            ("Duration (s)", round(info.duration_s, 3)),
            ("Requests made", info.requests),
        ]
        facts.extend((f"  {k}", n) for k, n in sorted(info.requests_by_kind.items()))
        facts.append(("429 waits", info.rate_limit_waits))
        if info.run_id:
            facts.append(("Run id", info.run_id))
        facts.append(("Rows", counts.total))
        for label, value in facts:
            put(0, label, self._f_bold)
            put(1, value)
            r += 1
        r += 1
        statuses = list(counts.by_status)
        put(0, "Action", self._f_header)
        for i, status in enumerate(statuses, start=1):
            put(i, status, self._f_header)
        put(len(statuses) + 1, "total", self._f_header)
        r += 1
        for action, total in counts.by_action.items():
            put(0, action, self._f_bold)
            for i, status in enumerate(statuses, start=1):
                put(i, counts.by_action_status.get((action, status), 0))
            put(len(statuses) + 1, total, self._f_bold)
            r += 1
        put(0, "total", self._f_bold)
        for i, status in enumerate(statuses, start=1):
            put(i, counts.by_status[status], self._f_bold)
        put(len(statuses) + 1, counts.total, self._f_bold)
        r += 2
        if counts.errors:
            for col, head in enumerate(("Error constant", "Rows", "Example", "Link", "Message")):
                put(col, head, self._f_header)
            r += 1
            for e in counts.errors:
                put(0, e.constant, self._f_bold)
                put(1, e.count)
                put(2, where(e.example))
                put(3, link_label(e.example))
                put(4, e.example.message or "")
                r += 1
        for col, n in enumerate(widths):
            if n:
                ws.set_column(col, col, min(max(n + 2, 10), _MAX_WIDTH))
        ws.activate()

    def flush(self) -> None:
        """Nothing to do: this format is assembled on close."""

    def close(self, info: RunInfo, closing: Closing | None = None) -> Path:
        try:
            self._write_summary(info, closing or Closing())
            self._results.autofilter(0, 0, max(self._row, 1), len(RESULT_COLUMNS) - 1)
            self._widths.apply(self._results)
            self._wb.close()
            os.replace(self._tmp, self.path)
        except BaseException:
            remove_quietly(self._tmp)
            raise
        return self.path

    def abort(self) -> None:
        try:
            self._wb.close()
        finally:
            remove_quietly(self._tmp)
