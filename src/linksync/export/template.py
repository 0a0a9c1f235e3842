"""``linksync template``: starter files written. What they hold (headers, example rows,
instructions) is ``linksync.sources.template``; the workbook is written by the streaming
writer every workbook of linksync is written with (``linksync.report.xlsx_stream``).

With the team's UTM rules, each UTM column with allowed values gets a dropdown of them
(Excel data validation; an input message names the rule). A list longer than Excel's
255 characters, or with a value Excel's inline list cannot hold (a comma, a quote), is
kept on a hidden sheet, ``Lists``, the dropdown pointing at its range.
"""

from __future__ import annotations

import csv
from datetime import datetime, timedelta
from itertools import zip_longest
from pathlib import Path

from linksync.model.links import column_letter
from linksync.model.utm_rules import UTM_PARAMETERS, UtmRules
from linksync.report.xlsx_stream import SheetStream, StreamingWorkbook
from linksync.report.xlsx_xml import CellStyle
from linksync.safe.outputs import atomic_path
from linksync.sources.template import (
    COLUMNS,
    FORMATS,
    HEADERS,
    INSTRUCTIONS_INTRO,
    YAML_TEMPLATE,
    format_for,
    layout,
)

__all__ = ["FORMATS", "write_template"]

#: Rows of the Links sheet a UTM dropdown covers (below the header).
VALIDATED_ROWS = 1000
#: Excel refuses a list written in the validation itself past this many characters.
INLINE_LIST_LIMIT = 255
_EXCEL_EPOCH, _DAY = datetime(1899, 12, 30), timedelta(days=1)  # the 1900 date system


def write_template(
    path: str | Path, fmt: str | None = None, *, utm_rules: UtmRules | None = None
) -> str:
    """Write a starter file (atomically: a failure leaves what was at ``path``);
    returns the format written. ``utm_rules``: the UTM columns and example values
    follow them (xlsx and csv), and the xlsx columns get dropdowns of allowed values."""
    fmt = format_for(path, fmt)
    with atomic_path(path) as out:
        if fmt == "xlsx":
            _write_xlsx(out, utm_rules)
        elif fmt == "csv":
            _write_csv(out, utm_rules)
        else:
            out.write_text(YAML_TEMPLATE, encoding="utf-8")
    return fmt


def _write_csv(out: Path, rules: UtmRules | None) -> None:
    headers, rows = layout(rules)
    # UTF-8 with BOM, as Excel's "CSV UTF-8" saves it, so Excel opens it correctly.
    with out.open("w", encoding="utf-8-sig", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(headers)
        for row in rows:
            w.writerow(
                [v.strftime("%Y-%m-%d %H:%M") if isinstance(v, datetime) else v for v in row]
            )


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _dropdowns(
    wb: StreamingWorkbook, links: SheetStream, headers: list[str], rules: UtmRules
) -> None:
    """A list validation on each UTM column the rules give allowed values for."""
    lists: dict[int, tuple[str, ...]] = {}  # column of the Lists sheet -> name, values
    for name, values in (rules.allowed or {}).items():
        rule = f"{name} one of: {', '.join(values)}"
        source: tuple[str, ...] | str = tuple(values)
        inline = not any("," in v or '"' in v for v in values)
        if not inline or len(",".join(values)) > INLINE_LIST_LIMIT:
            col = UTM_PARAMETERS.index(name)
            lists[col] = (name, *values)
            letter = column_letter(col)
            source = f"Lists!${letter}$2:${letter}${len(values) + 1}"
        links.dropdown(
            (2, VALIDATED_ROWS + 1),
            headers.index(name),
            source,
            promptTitle=name,
            prompt=_cut(f"The team's utm_rules: {rule}", INLINE_LIST_LIMIT),
            errorTitle=f"Not an allowed {name}"[:32],
            error=_cut(f"utm_rules: {rule}", INLINE_LIST_LIMIT),
        )
    if lists:
        sheet = wb.add_sheet("Lists")
        sheet.hidden = True
        for row in zip_longest(*(lists.get(c, ()) for c in range(max(lists) + 1))):
            sheet.append(row)


def _write_xlsx(out: Path, rules: UtmRules | None) -> None:
    headers, rows = layout(rules)
    wb = StreamingWorkbook()
    try:
        head = wb.add_style(CellStyle(bold=True, fill="#DDEBF7", bottom_border=True))
        when = wb.add_style(CellStyle(num_format="yyyy-mm-dd hh:mm"))
        bold = wb.add_style(CellStyle(bold=True))
        wrap = wb.add_style(CellStyle(wrap=True))
        links = wb.add_sheet("Links")
        links.append(headers, head)
        for row in rows:  # a date as Excel's serial day, shown by its number format
            dates = {c: when for c, v in enumerate(row) if isinstance(v, datetime)}
            days = [(v - _EXCEL_EPOCH) / _DAY if isinstance(v, datetime) else v for v in row]
            links.append(days, 0, dates)
        links.widths = {c: 34 if c in (0, 6, 7) else 16 for c in range(len(headers))}
        links.freeze_rows = 1
        links.autofilter = (1, 0, len(rows) + 1, len(headers) - 1)
        info = wb.add_sheet("Instructions")
        info.widths = {0: 22, 1: 90}
        for i, line in enumerate(INSTRUCTIONS_INTRO):
            info.append([line], bold if i == 0 else 0)
        info.append(["Column", "What to put in it"], bold)
        utm = "A UTM parameter the team's utm_rules ask for."
        for header, text in [*COLUMNS, *((h, utm) for h in headers[len(HEADERS) :])]:
            info.append([header, text], 0, {0: bold, 1: wrap})
        if rules and not rules.empty:
            info.append([])
            info.append(["The team's UTM rules"], bold)
            for line in rules.describe():
                info.append([None, line], 0, {1: wrap})
            _dropdowns(wb, links, headers, rules)
        wb.save(out)
    finally:
        wb.close()
