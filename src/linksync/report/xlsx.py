"""The Excel report: a Summary sheet (first, active) and a Results sheet.

Written with the streaming writer of :mod:`linksync.report.xlsx_stream`: Results rows go
to a temporary file as they arrive, so memory stays flat however long the run. Summary
is the first sheet but its rows are written on ``close``, when the counts are known;
column widths, the autofilter range and the zip package are done then too, into a
temporary file moved into place, so no half-written report is ever left.

Every text cell is an inline string (never a formula), so formula-like text stays text
and keeps its exact value; short URLs become hyperlinks on purpose, up to Excel's 65,530
links per sheet, plain text after that.
"""

from __future__ import annotations

import re
from pathlib import Path

from linksync.model import RESULT_COLUMNS, RowResult, RunInfo, Status
from linksync.report.base import Closing, ReportOptions
from linksync.report.cells import XLSX_MAX_CELL_CHARS, link_label, report_row, where
from linksync.report.summary import Tally, run_title, safe_target
from linksync.report.xlsx_stream import Cell, StreamingWorkbook
from linksync.report.xlsx_xml import CellStyle
from linksync.safe.outputs import atomic_path
from linksync.safe.secrets import redact

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
LINK_FONT = "#0563C1"

_MAX_WIDTH = 60
_SHORT_URL_COL = RESULT_COLUMNS.index("short_url")
_N_COLS = len(RESULT_COLUMNS)
_SPACE = re.compile(r"\s")


def _is_link(value: str) -> bool:
    return (
        value.startswith(("https://", "http://"))
        and len(value) <= MAX_URL_CHARS
        and not _SPACE.search(value)
    )


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
        self._wb = wb = StreamingWorkbook()
        style = wb.add_style
        self._s_header = style(
            CellStyle(bold=True, font_color="#FFFFFF", fill=HEADER_FILL, bottom_border=True)
        )
        self._s_link = style(CellStyle(font_color=LINK_FONT, underline=True))
        self._s_failed = style(CellStyle(fill=FAILED_FILL, font_color=FAILED_FONT))
        self._s_failed_link = style(
            CellStyle(fill=FAILED_FILL, font_color=LINK_FONT, underline=True)
        )
        self._s_skipped = style(CellStyle(fill=SKIPPED_FILL, font_color=SKIPPED_FONT))
        self._s_skipped_link = style(
            CellStyle(fill=SKIPPED_FILL, font_color=LINK_FONT, underline=True)
        )
        self._s_title = style(CellStyle(bold=True, size=14))
        self._s_bold = style(CellStyle(bold=True))
        self._s_warn = style(CellStyle(bold=True, font_color=FAILED_FONT))
        self._summary = wb.add_sheet(SUMMARY_SHEET)
        self._results = wb.add_sheet(RESULTS_SHEET)
        self._links = 0
        self._results.append(RESULT_COLUMNS, self._s_header)
        self._results.freeze_rows = 1

    def write(self, result: RowResult) -> None:
        self.tally.add(result)
        if self._results.rows > self.max_rows:
            self.dropped += 1  # counted in the Summary; the rows are in csv/jsonl reports
            return
        status = result.status
        if status is Status.FAILED or status is Status.INVALID:
            fill, link_style = self._s_failed, self._s_failed_link
        elif status is Status.SKIPPED:
            fill, link_style = self._s_skipped, self._s_skipped_link
        else:
            fill, link_style = 0, self._s_link
        values: list[Cell] = list(report_row(result, self.options.secrets).values())
        short_url = values[_SHORT_URL_COL]
        if isinstance(short_url, str) and self._links < self.max_links and _is_link(short_url):
            self._links += 1
            row = self._results.append(values, fill, {_SHORT_URL_COL: link_style})
            self._results.link(row, _SHORT_URL_COL, short_url)
        else:
            self._results.append(values, fill)

    def _write_summary(self, info: RunInfo, closing: Closing) -> None:
        secrets = self.options.secrets
        counts = self.tally.counts()
        sheet = self._summary
        widths = [0, 0, 0, 0, 0, 0, 0, 0]

        def row(*cells: tuple[str | int | float, int]) -> None:
            """The next row: each cell a (value, style), from column A."""
            values: list[Cell] = []
            for col, (value, _) in enumerate(cells):
                if isinstance(value, str):
                    value = redact(value, secrets)
                widths[col] = max(widths[col], min(len(str(value)), XLSX_MAX_CELL_CHARS))
                values.append(value)
            sheet.append(values, 0, {col: style for col, (_, style) in enumerate(cells)})

        title = self.options.title or f"linksync {run_title(counts, info)}"
        sheet.append([redact(title, secrets)], 0, {0: self._s_title})
        sheet.append([])
        notes = closing.all_notes()
        if self.dropped:
            notes.append(
                f"Results sheet holds the first {self._results.rows - 1:,} rows (Excel's limit); "
                f"{self.dropped:,} more are counted here: write a .csv or .jsonl report for all"
            )
        for note in notes:
            row((note, self._s_warn))
        if notes:
            sheet.append([])
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
            row((label, self._s_bold), (value, 0))
        sheet.append([])
        statuses = list(counts.by_status)
        header = self._s_header
        row(("Action", header), *((s, header) for s in statuses), ("total", header))
        for action, total in counts.by_action.items():
            by_status = (counts.by_action_status.get((action, s), 0) for s in statuses)
            row((action, self._s_bold), *((n, 0) for n in by_status), (total, self._s_bold))
        bold = self._s_bold
        by_status = (counts.by_status[s] for s in statuses)
        row(("total", bold), *((n, bold) for n in by_status), (counts.total, bold))
        if counts.errors:
            sheet.append([])
            heads = ("Error constant", "Rows", "Example", "Link", "Message")
            row(*((head, header) for head in heads))
            for e in counts.errors:
                example = e.example
                row(
                    (e.constant, bold),
                    (e.count, 0),
                    (where(example), 0),
                    (link_label(example), 0),
                    (example.message or "", 0),
                )
        for col, n in enumerate(widths):
            if n:
                sheet.widths[col] = min(max(n + 2, 10), _MAX_WIDTH)

    def close(self, info: RunInfo, closing: Closing | None = None) -> Path:
        try:
            self._write_summary(info, closing or Closing())
            results = self._results
            results.autofilter = (1, 0, max(results.rows, 2), _N_COLS - 1)
            # Fit the widest value; leave room for the filter button beside each header.
            for col, head in enumerate(RESULT_COLUMNS):
                n = max(len(head) + 3, results.max_chars[col])
                results.widths[col] = min(n + 1, _MAX_WIDTH)
            with atomic_path(self.path) as tmp:
                self._wb.save(tmp)
        finally:
            self._wb.close()
        return self.path

    def abort(self) -> None:
        self._wb.close()
