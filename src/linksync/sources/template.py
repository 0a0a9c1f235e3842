"""Starter files: the right headers, example rows, and (xlsx) an Instructions sheet.

Every example row passes ``validate`` (a test reads each template back), so a user
can run ``linksync validate`` on a fresh template and see a clean result.

With the team's UTM rules (a profile's ``utm_rules:``), the Links sheet gets a column
for every UTM parameter the rules require or list values for, each with a dropdown of
the allowed values (Excel data validation; an input message names the rule), and the
example rows carry allowed values. Lists longer than Excel's 255 characters are kept
on a hidden sheet, ``Lists``, the dropdown pointing at its range.
"""

from __future__ import annotations

import csv
from datetime import datetime
from pathlib import Path
from typing import Any

import xlsxwriter  # type: ignore[import-untyped]
from xlsxwriter.utility import xl_col_to_name  # type: ignore[import-untyped]

from linksync.errors import ConfigError
from linksync.model.utm_rules import UTM_PARAMETERS, UtmRules
from linksync.safe.outputs import atomic_path

FORMATS: tuple[str, ...] = ("xlsx", "csv", "yaml")

#: Header -> what goes in it (the Instructions sheet, in this order).
COLUMNS: tuple[tuple[str, str], ...] = (
    ("Destination URL", "Required. Where the short link goes; starts with https:// or http://."),
    (
        "Slug",
        "The part after the domain (spring-sale). Letters and digits, single hyphens "
        "between groups. Leave empty to let the service pick one.",
    ),
    ("Domain", "Your custom short domain. Leave empty for the workspace's default domain."),
    ("Title", "A name or memo for the link (sent as its description)."),
    ("Tags", "Comma-separated: sale, spring-2026. Separators , ; | all work."),
    (
        "Expires",
        "Optional date or date-time (UTC) after which the link stops working. An Excel "
        "date, or text such as 2030-12-31 or 2030-12-31T23:59:59Z. Must be in the future.",
    ),
    ("iOS URL", "Optional: where iPhone and iPad visitors go instead."),
    ("Android URL", "Optional: where Android visitors go instead."),
    ("Password", "Optional: visitors must enter it before the redirect."),
    ("utm_source", "Optional UTM parameters: added to the destination URL's query."),
    ("utm_medium", "Optional, e.g. email, social, cpc."),
    ("utm_campaign", "Optional, e.g. spring-2026."),
)

HEADERS: tuple[str, ...] = tuple(h for h, _ in COLUMNS)

#: Example rows: header -> cell, the other cells empty (the expiry as a datetime).
EXAMPLES: tuple[dict[str, str | datetime], ...] = (
    {
        "Destination URL": "https://example.com/spring-sale",
        "Slug": "spring-sale",
        "Title": "Spring sale landing page",
        "Tags": "sale, spring-2026",
        "Expires": datetime(2030, 12, 31, 23, 59),
        "utm_source": "newsletter",
        "utm_medium": "email",
        "utm_campaign": "spring-2026",
    },
    {
        "Destination URL": "https://example.com/app",
        "Slug": "get-app",
        "Title": "Get the app",
        "Tags": "app",
        "iOS URL": "https://apps.apple.com/app/id123456789",
        "Android URL": "https://play.google.com/store/apps/details?id=com.example.app",
    },
    {
        "Destination URL": "https://example.com/events/webinar",
        "Title": "Webinar sign-up (slug left to the service)",
        "Tags": "events",
    },
)

INSTRUCTIONS_INTRO = (
    "How to fill in the Links sheet",
    "One row per short link. Header names may be changed to your own words "
    "(e.g. 'Long URL', 'Back-half', 'Memo'): linksync recognises common names.",
    "Empty cells leave the link's current value alone when it already exists.",
    "Check the file without touching anything: linksync validate <this file>",
    "",
)

YAML_TEMPLATE = """\
# Links as code: one file, or a directory of *.yaml files.
# Check with: linksync validate <this file or directory>
defaults:                 # optional, applies to every link of this file
  tags: [spring-2026]     # merged with each link's own tags
  utm: {source: newsletter, medium: email, campaign: spring-2026}
links:                    # a list, or a mapping keyed by slug
  - slug: spring-sale
    url: https://example.com/spring-sale
    description: Spring sale landing page
    tags: [sale]
    expiresAt: "2030-12-31T23:59:59Z"
  - slug: get-app
    url: https://example.com/app
    description: Get the app
    apple: https://apps.apple.com/app/id123456789
    google: https://play.google.com/store/apps/details?id=com.example.app
  - url: https://example.com/events/webinar   # no slug: the service picks one
    description: Webinar sign-up
    tags: []              # [] or null clears (here: no tags, not even the defaults)
"""


#: Rows of the Links sheet a UTM dropdown covers (below the header).
VALIDATED_ROWS = 1000
#: Excel refuses a list written in the validation itself past this many characters.
INLINE_LIST_LIMIT = 255
#: An example value for a required UTM parameter without an allowed list.
_EXAMPLE_UTM = {"utm_source": "newsletter", "utm_medium": "email", "utm_campaign": "spring-2026"}


def layout(rules: UtmRules | None = None) -> tuple[list[str], list[list[str | datetime]]]:
    """Headers and example rows, following the UTM rules: a column for each parameter
    they require or list values for; each example's UTM cell an allowed value (the
    first) when its own is not one, and filled when the parameter is required."""
    headers = list(HEADERS)
    rows = [[row.get(h, "") for h in HEADERS] for row in EXAMPLES]
    if rules is None or rules.empty:
        return headers, rows
    allowed = dict(rules.allowed or {})
    required = tuple(rules.required or ())
    for name in UTM_PARAMETERS:
        if (name in allowed or name in required) and name not in headers:
            headers.append(name)
            for row in rows:
                row.append("")
    for name in UTM_PARAMETERS:
        if name not in headers:
            continue
        c = headers.index(name)
        values = allowed.get(name)
        for row in rows:
            value = row[c]
            if values and value and value not in values:
                row[c] = values[0]
            elif name in required and not value:
                row[c] = values[0] if values else _EXAMPLE_UTM.get(name, "example")
    return headers, rows


def format_for(path: str | Path, fmt: str | None) -> str:
    """The template format: given, else from the file extension."""
    if fmt:
        fmt = fmt.lower()
    else:
        suffix = Path(path).suffix.lower().lstrip(".")
        fmt = {"yml": "yaml", "xlsm": "xlsx"}.get(suffix, suffix)
    if fmt not in FORMATS:
        raise ConfigError(f"template format must be one of {', '.join(FORMATS)} (got {fmt!r})")
    return fmt


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


def _cell_text(v: str | datetime) -> str:
    return v.strftime("%Y-%m-%d %H:%M") if isinstance(v, datetime) else v


def _write_csv(out: Path, rules: UtmRules | None) -> None:
    headers, rows = layout(rules)
    # UTF-8 with BOM, as Excel's "CSV UTF-8" saves it, so Excel opens it correctly.
    with out.open("w", encoding="utf-8-sig", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(headers)
        for row in rows:
            w.writerow([_cell_text(v) for v in row])


def _dropdowns(wb: Any, ws: Any, headers: list[str], rules: UtmRules | None) -> None:
    """A list validation on each UTM column the rules give allowed values for."""
    lists = None
    for name, values in (rules.allowed or {}).items() if rules else ():
        c = headers.index(name)
        rule = f"{name} one of: {', '.join(values)}"
        check: dict[str, Any] = {
            "validate": "list",
            "input_title": name,
            "input_message": _cut(f"The team's utm_rules: {rule}", INLINE_LIST_LIMIT),
            "error_title": f"Not an allowed {name}"[:32],
            "error_message": _cut(f"utm_rules: {rule}", INLINE_LIST_LIMIT),
        }
        if len(",".join(values)) <= INLINE_LIST_LIMIT:
            check["source"] = list(values)
        else:  # too long to write inline: a column of the hidden Lists sheet
            if lists is None:
                lists = wb.add_worksheet("Lists")
                lists.hide()
            col = UTM_PARAMETERS.index(name)
            lists.write_string(0, col, name)
            for r, value in enumerate(values, start=1):
                lists.write_string(r, col, value)
            letter = xl_col_to_name(col)
            check["source"] = f"=Lists!${letter}$2:${letter}${len(values) + 1}"
        ws.data_validation(1, c, VALIDATED_ROWS, c, check)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _write_xlsx(out: Path, rules: UtmRules | None) -> None:
    headers, rows = layout(rules)
    wb = xlsxwriter.Workbook(str(out), {"strings_to_urls": False})
    try:
        head = wb.add_format({"bold": True, "bg_color": "#DDEBF7", "border": 1})
        when = wb.add_format({"num_format": "yyyy-mm-dd hh:mm"})
        ws = wb.add_worksheet("Links")
        for c, h in enumerate(headers):
            ws.write_string(0, c, h, head)
            ws.set_column(c, c, 34 if c in (0, 6, 7) else 16)
        for r, row in enumerate(rows, start=1):
            for c, v in enumerate(row):
                if isinstance(v, datetime):
                    ws.write_datetime(r, c, v, when)
                elif v:
                    ws.write_string(r, c, v)
        ws.freeze_panes(1, 0)
        ws.autofilter(0, 0, len(rows), len(headers) - 1)
        _dropdowns(wb, ws, headers, rules)
        info = wb.add_worksheet("Instructions")
        bold = wb.add_format({"bold": True})
        wrap = wb.add_format({"text_wrap": True, "valign": "top"})
        info.set_column(0, 0, 22)
        info.set_column(1, 1, 90)
        r = 0
        for line in INSTRUCTIONS_INTRO:
            info.write_string(r, 0, line, bold if r == 0 else None)
            r += 1
        info.write_string(r, 0, "Column", bold)
        info.write_string(r, 1, "What to put in it", bold)
        for header, text in COLUMNS:
            r += 1
            info.write_string(r, 0, header, bold)
            info.write_string(r, 1, text, wrap)
        for header in headers[len(HEADERS) :]:
            r += 1
            info.write_string(r, 0, header, bold)
            info.write_string(r, 1, "A UTM parameter the team's utm_rules ask for.", wrap)
        if rules and not rules.empty:
            r += 2
            info.write_string(r, 0, "The team's UTM rules", bold)
            for line in rules.describe():
                r += 1
                info.write_string(r, 1, line, wrap)
    finally:
        wb.close()
